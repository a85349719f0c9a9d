/**
 * Opening a partition's segments, as Kafka's LogLoader does, with pagelog's stricter rules.
 *
 * An open decides before it changes anything, in the two phases docs/recovery.md tells. First
 * the plan (log-load-plan.ts), which only reads:
 * - Clean shutdown: only the active segment is opened and checked (its log trusted, its indexes
 *   sanity-checked, a rebuild planned for any that fail); every older segment stays idle and gets
 *   the same check on its first use (segment-slot.ts). Unclean: segments wholly below the
 *   recovery point get that check here;
 *   from the segment holding the recovery point to the last, `Segment.planRecovery()` walks
 *   every batch, rebuilds the indexes in memory and plans a cut at the first bad byte; every
 *   segment after a cut or a gap in offsets is planned for deletion.
 * - It rejects (`PAGELOG_CORRUPT`) whatever would lose acknowledged records: damage below the
 *   recovery point, a recovery point past the end, and after a clean shutdown (when every
 *   record was durable) an overlap of segments or a checkpointed start past the end.
 * A rejected plan leaves every file as it was. An accepted one is then carried out
 * (log-load-apply.ts), in order:
 * leftovers (`*.tmp`, `*.deleted`, `*.cleaned`, index files whose `.log` is gone) removed, each
 * planned cut and rebuild written, deletions newest first (so a crash while deleting leaves a
 * prefix). Every truncation and deletion is durable (file fsync, directory fsync) before this
 * returns, so the log never accepts an append on top of something a crash could undo.
 * Before both phases, the swaps of a cleaning a crash interrupted are finished (complete-swaps.ts):
 * the cleaner's protocol, whose commit point was already durable.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { Segment } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentBaseOf } from "../../segment/segment-names.js";
import { joinPath } from "../../storage/paths.js";
import type { Storage } from "../../storage/storage.js";
import { inOrder, OPENING_AT_ONCE } from "../util/in-order.js";
import { type LogRecovery, millisecondsNow } from "./recovery-report.js";
import type { LoadInput } from "./log-load-input.js";
import { carryOut } from "./log-load-apply.js";
import { RETIRED_SUFFIX } from "../state/segment-files.js";
import { type Plan, planCleanLoad, planLoad, recoveryPointPastEnd, Tally } from "./log-load-plan.js";
import { SegmentSlot, type SlotContext } from "../state/segment-slot.js";
import { idleSlot } from "../state/idle-slot.js";
import { completeSwaps } from "./complete-swaps.js";

export type { LogRecovery } from "./recovery-report.js";

export interface LoadedLog {
  /** Every segment but the last idle (see segment-slot.ts); the last, the active one, loaded. */
  readonly segments: SegmentSlot[];
  /** What the slots share, the log's new ones too. */
  readonly slotContext: SlotContext;
  readonly startOffset: number;
  readonly recovery: LogRecovery;
}

const LEFTOVER = /\.(tmp|deleted|cleaned)$/;

const SWAP = /\.swap$/;

const now = millisecondsNow;

/**
 * Opens a partition's segments: the interrupted swaps finished, then the two phases, the plan
 * (`survey`, which files are there, then `decide`, which opens the segments and plans, reading
 * only: a rejection leaves every file as it was) and its carrying out (`carryOut`,
 * log-load-apply.ts). Then only the active segment stays loaded. A writable log comes here
 * through open-log-files.ts, which starts an empty directory's log without this module.
 */
export async function loadLog(input: LoadInput, listing?: readonly string[]): Promise<LoadedLog> {
  const started = now();
  // Interrupted compactions first (compaction/complete-swaps.ts): the plan sees the log as the cleaner left it.
  // One listing serves both unless a swap changed the directory (a log never compacted costs no
  // storage call more than before); `listing` is the directory's, when the caller just listed it.
  const listed = listing ?? (await input.storage.list(input.dir));
  const swapsCompleted = await completeSwaps(input, listed);
  // Any `.swap` (of a log or an index) was finished or removed: list again.
  const names = listed.some((n) => SWAP.test(n)) ? await input.storage.list(input.dir) : listed;
  const { leftovers, bases, retiredBases } = await survey(input.storage, input.dir, names);
  const { segments, plan } = await decide(input, bases, retiredBases);
  // ---- the plan is accepted: carry it out --------------------------------------------------
  // A `.deleted` that proves a full-disk deletion stays until a checkpoint no longer needs it.
  const keptBases = plan.startOverAt !== undefined ? [] : (plan.keptBases ?? segments.map((seg) => seg.baseOffset));
  const { now: removable, bySlot: orphans } = orphansOfIdle(
    input,
    plan.keepRetired === true ? leftovers.filter((n) => !n.endsWith(RETIRED_SUFFIX)) : leftovers,
    keptBases,
  );
  await carryOut(input, plan, segments, removable);

  // Only the active segment stays open: every other one is idle until its first use (read,
  // timestamp lookup, retention, truncation), so an open log costs memory and descriptors for
  // what is used. After a clean open the old segments were never opened; after a recovery they
  // were checked (or walked) here, and their first use checks them again, now all durable.
  const context: SlotContext = {
    storage: input.storage,
    dir: input.dir,
    segmentOptions: input.segmentOptions,
    firstUses: { segmentsLoaded: 0, indexesRebuilt: 0 },
  };
  const loaded = new Map(segments.map((segment) => [segment.baseOffset, segment]));
  const active = segments[segments.length - 1]!;
  const slots = keptBases.slice(0, -1).map((base, i) => {
    const segment = loaded.get(base);
    return idleSlot(context, base, keptBases[i + 1]!, segment?.size, orphans.get(base));
  });
  await Promise.all(segments.filter((segment) => segment !== active).map((segment) => segment.close()));
  slots.push(SegmentSlot.of(context, active));
  const first = slots[0]!;
  const end = active.nextOffset;
  const startOffset = Math.min(Math.max(input.logStartOffset ?? first.baseOffset, first.baseOffset), end);
  const { tally } = plan;
  return {
    segments: slots,
    slotContext: context,
    startOffset,
    recovery: {
      clean: input.clean,
      segmentsScanned: tally.segmentsScanned,
      bytesScanned: tally.bytesScanned,
      bytesTruncated: tally.bytesTruncated,
      segmentsDeleted: tally.segmentsDeleted,
      indexesRebuilt: tally.indexesRebuilt,
      filesRemoved: removable.length,
      leftoversRemoved: removable,
      tailCut: tally.tailCut,
      segmentsDeletedAfterGap: tally.segmentsDeletedAfterGap,
      truncationsFinished: tally.truncationsFinished.size,
      startedOver: bases.length > 0 && plan.startOverAt !== undefined,
      swapsCompleted,
      durationMs: now() - started,
    },
  };
}

/**
 * Which leftovers go now, and which wait for the first use of the idle segment whose span holds
 * them. After a clean shutdown the open checks no old segment, so an index file with no `.log`
 * between two kept segments may be a compaction's leftover (the merged segment before it covers
 * its offsets) or all that is left of a segment whose `.log` was lost (the segment before it ends
 * at its base): only that segment's first use can tell. Removing it here would let a use that
 * then rejects the damage find the damaged segment's files gone. Orphans below the first segment
 * (a retention cut short) or above the last (a truncation cut short), and every leftover of an
 * unclean open (its plan checked every segment before it was accepted), go now.
 */
function orphansOfIdle(
  input: LoadInput,
  leftovers: readonly string[],
  keptBases: readonly number[],
): { now: string[]; bySlot: Map<number, string[]> } {
  const bySlot = new Map<number, string[]>();
  if (!input.clean || keptBases.length < 2) return { now: [...leftovers], bySlot };
  const now: string[] = [];
  for (const name of leftovers) {
    const base = segmentBaseOf(name);
    let i = -1; // the last kept segment starting below it
    while (base !== undefined && i + 1 < keptBases.length && keptBases[i + 1]! < base) i++;
    if (base === undefined || i < 0 || i >= keptBases.length - 1) {
      now.push(name);
      continue;
    }
    const owner = keptBases[i]!;
    bySlot.set(owner, [...(bySlot.get(owner) ?? []), joinPath(input.dir, name)]);
  }
  return { now, bySlot };
}

/**
 * The plan, first step (reading only): the directory's segment base offsets (sorted) and its leftovers
 * (`*.tmp`, `*.deleted`, `*.cleaned`, index files whose `.log` is gone). Refuses a `.swap`.
 */
async function survey(
  storage: Storage,
  dir: string,
  names: readonly string[],
): Promise<{ leftovers: string[]; bases: number[]; retiredBases: number[] }> {
  // completeSwaps finished every swap before this: a `.swap` still here is not a file it could
  // finish (a directory of that name, say), and the data may exist only there: refuse.
  const swap = names.find((n) => SWAP.test(n));
  if (swap !== undefined) {
    throw new PagelogError(
      `log ${dir} holds ${swap}, an interrupted compaction pagelog cannot finish`,
      ErrorCode.CORRUPT,
      { path: joinPath(dir, swap) },
    );
  }
  // One pass over the names, allocating nothing per segment file: a clean open of a partition
  // of many segments costs little more than its listing.
  const logBases = new Set<number>();
  for (const name of names) {
    const base = segmentBaseOf(name, LOG_SUFFIX);
    if (base !== undefined) logBases.add(base);
  }
  const leftovers: string[] = [];
  const retiredBases: number[] = [];
  for (const name of names) {
    const base = segmentBaseOf(name);
    const leftover = base === undefined ? LEFTOVER.test(name) : !name.endsWith(LOG_SUFFIX) && !logBases.has(base);
    // Only files: a directory that happens to have such a name is not something pagelog (or
    // Kafka) left behind, and removing it would fail the open for good.
    if (leftover && (await storage.stat(joinPath(dir, name)))?.kind === "file") leftovers.push(name);
    // `<base>.log.deleted`: a segment retention deleted on a full disk before it could checkpoint
    // the new start offset (log-retention.ts); its name says the gap below the first segment is
    // a deletion, not a loss.
    const retired = name.endsWith(RETIRED_SUFFIX)
      ? segmentBaseOf(name.slice(0, -RETIRED_SUFFIX.length), LOG_SUFFIX)
      : undefined;
    if (retired !== undefined) retiredBases.push(retired);
  }
  return { leftovers, bases: [...logBases].sort((a, b) => a - b), retiredBases };
}

/**
 * The plan, second step (reading only): opens the segments at `bases` (after a clean shutdown, the last only)
 * and plans (log-load-plan.ts). A rejected plan closes every handle and throws with nothing written.
 */
async function decide(
  input: LoadInput,
  bases: readonly number[],
  retiredBases: readonly number[],
): Promise<{ segments: Segment[]; plan: Plan }> {
  if (bases.length === 0) {
    // A new log starts where its checkpointed start offset says, else at 0. A log whose
    // checkpointed recovery point lies above that had durable records, and every segment
    // holding them is gone: report it, never start over.
    const start = input.logStartOffset ?? 0;
    if (input.recoveryPoint !== undefined && input.recoveryPoint > start)
      throw recoveryPointPastEnd(input.dir, input.recoveryPoint, start);
    return { segments: [], plan: { steps: [], tally: new Tally(), startOverAt: start } };
  }
  if (input.clean) {
    // After a clean shutdown only the active segment is opened: see planCleanLoad.
    const active = await Segment.openExisting(input.storage, input.dir, bases[bases.length - 1]!, input.segmentOptions);
    try {
      const plan = await planCleanLoad(input, bases, active, retiredBases);
      return { segments: [active], plan: { ...plan, keptBases: bases } };
    } catch (err) {
      await active.close().catch(() => undefined);
      throw err;
    }
  }
  const opened: Segment[] = [];
  try {
    // Several at a time: opening is a few small file calls per segment, and a log of thousands of
    // segments would otherwise wait for each in turn.
    const segments = await inOrder(bases, OPENING_AT_ONCE, async (base) => {
      const segment = await Segment.openExisting(input.storage, input.dir, base, input.segmentOptions);
      opened.push(segment);
      return segment;
    });
    return { segments, plan: await planLoad(input, segments, retiredBases) };
  } catch (err) {
    // Rejected: nothing was written. Give the handles back and report.
    await Promise.allSettled(opened.map((s) => s.close()));
    throw err;
  }
}
