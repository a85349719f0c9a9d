/**
 * Opening a partition's segments, as Kafka's LogLoader does, with pagelog's stricter rules.
 *
 * An open decides before it changes anything. First a plan, which only reads:
 * 1. Clean shutdown: trust every segment's log, but sanity-check its indexes and plan a rebuild
 *    of any that fail. Unclean: segments wholly below the recovery point get the same check;
 *    from the segment holding the recovery point to the last, `Segment.planRecovery()` walks
 *    every batch, rebuilds the indexes in memory and plans a cut at the first bad byte; every
 *    segment after a cut or a gap in offsets is planned for deletion.
 * 2. Reject (`PAGELOG_CORRUPT`) whatever would lose acknowledged records: damage below the
 *    recovery point, a recovery point past the end, and after a clean shutdown (when every
 *    record was durable) an overlap of segments or a checkpointed start past the end.
 * A rejected plan leaves every file as it was. An accepted one is then carried out, in order:
 * leftovers (`*.tmp`, `*.deleted`, `*.cleaned`, index files whose `.log` is gone) removed, each
 * planned cut and rebuild written, deletions newest first (so a crash while deleting leaves a
 * prefix). Every truncation and deletion is durable (file fsync, directory fsync) before this
 * returns, so the log never accepts an append on top of something a crash could undo.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { Segment } from "../segment/segment.js";
import { LOG_SUFFIX, parseSegmentFileName } from "../segment/segment-names.js";
import { joinPath } from "../storage/paths.js";
import type { Storage } from "../storage/storage.js";
import { inOrder, OPENING_AT_ONCE } from "./in-order.js";
import type { LoadInput } from "./log-load-input.js";
import { carryOut } from "./log-load-apply.js";
import { RETIRED_SUFFIX } from "./segment-files.js";
import { type Plan, planLoad, recoveryPointPastEnd, Tally } from "./log-load-plan.js";

/** What opening a log had to do, so a user can see what a crash cost. */
export interface LogRecovery {
  /** The directory was shut down cleanly: nothing was scanned but the index sanity checks. */
  readonly clean: boolean;
  /** Segments whose batches were walked and validated. */
  readonly segmentsScanned: number;
  /** Bytes of `.log` walked. */
  readonly bytesScanned: number;
  /** Bytes cut off at the first invalid batch. */
  readonly bytesTruncated: number;
  /** Segments deleted because they came after a truncation or a gap. */
  readonly segmentsDeleted: number;
  /** Segments whose `.index` and `.timeindex` were rebuilt from the log. */
  readonly indexesRebuilt: number;
  /** Leftover files removed (`*.tmp`, `*.deleted`, orphaned indexes). */
  readonly filesRemoved: number;
  /** Their names, in the partition directory: what a crash had left half done. */
  readonly leftoversRemoved: readonly string[];
  /**
   * Where the open cut a torn tail (`bytesTruncated` counts its bytes): `"last-segment"`, or
   * `"mid-log"` when the damage was in an earlier segment and every later one was deleted (they
   * are among `segmentsDeleted`); `"none"` when nothing was cut.
   */
  readonly tailCut: "none" | "last-segment" | "mid-log";
  /** Segments deleted because they did not continue the log (an offset gap above the recovery point). */
  readonly segmentsDeletedAfterGap: number;
  /** Interrupted `truncateTo` calls the open finished: a replacement segment overlapped the one it was cutting. */
  readonly truncationsFinished: number;
  /** The checkpointed start offset was past every surviving record: the log started over, empty, there. */
  readonly startedOver: boolean;
  readonly durationMs: number;
}

export interface LoadedLog {
  readonly segments: Segment[];
  readonly startOffset: number;
  readonly recovery: LogRecovery;
}

const LEFTOVER = /\.(tmp|deleted|cleaned)$/;

const SWAP = /\.swap$/;

function now(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

/**
 * Opens a partition's segments in three named phases: `survey` (which files are there),
 * `decide` (open the segments and plan, reading only: a rejection leaves every file as it was),
 * and `carryOut` (log-load-apply.ts). Then only the active segment keeps its indexes in memory.
 */
export async function loadLog(input: LoadInput): Promise<LoadedLog> {
  const started = now();
  const { leftovers, bases, retiredBases } = await survey(input.storage, input.dir);
  const { segments, plan } = await decide(input, bases, retiredBases);
  // ---- the plan is accepted: carry it out --------------------------------------------------
  // A `.deleted` that proves a full-disk deletion stays until a checkpoint no longer needs it.
  const removable = plan.keepRetired === true ? leftovers.filter((n) => !n.endsWith(RETIRED_SUFFIX)) : leftovers;
  await carryOut(input, plan, segments, removable);

  // Only the active segment's indexes stay in memory: the others are read back on demand, so
  // opening a large log costs memory for what is used.
  for (const segment of segments.slice(0, -1)) segment.releaseIndexes();
  const first = segments[0]!;
  const end = segments[segments.length - 1]!.nextOffset;
  const startOffset = Math.min(Math.max(input.logStartOffset ?? first.baseOffset, first.baseOffset), end);
  const { tally } = plan;
  return {
    segments,
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
      durationMs: now() - started,
    },
  };
}

/**
 * Phase 1, reading only: the directory's segment base offsets (sorted) and its leftovers
 * (`*.tmp`, `*.deleted`, `*.cleaned`, index files whose `.log` is gone). Refuses a `.swap`.
 */
async function survey(
  storage: Storage,
  dir: string,
): Promise<{ leftovers: string[]; bases: number[]; retiredBases: number[] }> {
  const names = await storage.list(dir);
  // A `.swap` file is a Kafka compaction a broker was completing: the compacted data may exist
  // only there (the old segments already renamed `.deleted`). pagelog never writes one and its
  // logs have no offset gaps to hold compacted data, so it refuses rather than delete it.
  const swap = names.find((n) => SWAP.test(n));
  if (swap !== undefined) {
    throw new PagelogError(
      `log ${dir} holds ${swap}, an interrupted Kafka compaction: let a Kafka broker finish it (pagelog does not compact and will not delete it)`,
      ErrorCode.CORRUPT,
      { path: joinPath(dir, swap) },
    );
  }
  const logBases = new Set(
    names
      .map(parseSegmentFileName)
      .filter((p) => p?.suffix === LOG_SUFFIX)
      .map((p) => p!.baseOffset),
  );
  const leftovers: string[] = [];
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    const leftover =
      LEFTOVER.test(name) || (parsed !== undefined && parsed.suffix !== LOG_SUFFIX && !logBases.has(parsed.baseOffset));
    // Only files: a directory that happens to have such a name is not something pagelog (or
    // Kafka) left behind, and removing it would fail the open for good.
    if (leftover && (await storage.stat(joinPath(dir, name)))?.kind === "file") leftovers.push(name);
  }
  // `<base>.log.deleted`: a segment retention deleted on a full disk before it could checkpoint
  // the new start offset (log-retention.ts); its name says the gap below the first segment is
  // a deletion, not a loss.
  const retiredBases = names
    .filter((n) => n.endsWith(RETIRED_SUFFIX))
    .map((n) => parseSegmentFileName(n.slice(0, -RETIRED_SUFFIX.length)))
    .filter((p) => p?.suffix === LOG_SUFFIX)
    .map((p) => p!.baseOffset);
  return { leftovers, bases: [...logBases].sort((a, b) => a - b), retiredBases };
}

/**
 * Phase 2, reading only: opens the segments at `bases` and plans (log-load-plan.ts). A rejected
 * plan closes every handle and throws with nothing written.
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
