/*
 * Opening a partition's log read-only, while another process may be writing it (a read-only
 * open takes no lock and writes nothing, not even a repair: only the writer recovers). Nothing is cut, removed
 * or rebuilt on disk, and no file is opened for writing:
 * - segments below the one holding the checkpointed recovery point are trusted as a clean open
 *   trusts them: idle, checked on first use, a failed index check rebuilt in memory only;
 * - from that segment on, every batch is walked (CRC checked) and indexed in memory (the
 *   writer's active `.index`/`.timeindex` bytes are never read), and the first byte that is not
 *   a valid batch is the end for now: a torn tail the writer may still be writing, or a crash's
 *   remains that only the writer's next open repairs. Later segments are ignored for now.
 * A missing checkpoint is recovery point 0 (everything is walked) and the first segment's base
 * as the start offset.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { cleanedAway } from "../../segment/batch-scanner.js";
import { Segment } from "../../segment/segment.js";
import type { LoadInput } from "../load/log-load-input.js";
import type { LoadedLog } from "../load/log-loader.js";
import { millisecondsNow, unrepairedRecovery } from "../load/recovery-report.js";
import { LOG_SUFFIX, segmentBaseOf, segmentFilePath } from "../../segment/segment-names.js";
import { checkSwap } from "../load/complete-swaps.js";
import { SWAP_SUFFIX } from "../compaction/swap.js";
import { type CheckpointedValues, followCleanPoint, type ReadOnlyState } from "../state/read-only-state.js";
import { SegmentSlot, type SlotContext } from "../state/segment-slot.js";
import { idleSlot } from "../state/idle-slot.js";
import { TailMarks } from "../state/tail-marks.js";

interface ReadOnlyLoad extends LoadedLog {
  /** Below the checkpointed recovery point (and the end): what a durable read may return. */
  readonly recoveryPoint: number;
  readonly marks: Map<number, TailMarks>;
  /** No segment was there yet: the active one is an empty stand-in. */
  readonly phantom: boolean;
}

/** Walked segments whose marks are kept: a truncation that reaches further back is found by the listing. */
export const MARKED_SEGMENTS = 2;

export async function loadReadOnly(input: LoadInput, context?: SlotContext): Promise<ReadOnlyLoad> {
  const started = millisecondsNow();
  const slotContext: SlotContext = context ?? {
    storage: input.storage,
    dir: input.dir,
    segmentOptions: input.segmentOptions,
    firstUses: { segmentsLoaded: 0, indexesRebuilt: 0 },
    readOnly: true,
  };
  const { bases, swaps } = await listWithSwaps(input);
  const phantom = bases.length === 0;
  // An empty partition directory (the writer made it and has not created its first segment yet):
  // an empty stand-in at the start offset, replaced by a refresh once a segment is there.
  if (phantom) bases.push(input.logStartOffset ?? 0);
  const recoveryPoint = input.recoveryPoint ?? 0;
  let first = 0;
  while (first + 1 < bases.length && bases[first + 1]! < recoveryPoint) first++;
  // A swap's cleaned segment is walked already: it is read through its `.swap` name, never idle.
  const slots = bases
    .slice(0, first)
    .map((base, i) =>
      swaps.has(base)
        ? SegmentSlot.of(slotContext, swaps.get(base)!.segment)
        : idleSlot(slotContext, base, bases[i + 1]!),
    );
  const marks = new Map<number, TailMarks>();
  let bytesScanned = 0;
  try {
    for (let i = first; i < bases.length; i++) {
      const { segment, marked, stop } = swaps.get(bases[i]!) ?? (await walkSegment(input, bases[i]!));
      slots.push(SegmentSlot.of(slotContext, segment));
      marks.set(segment.baseOffset, marked);
      bytesScanned += segment.size;
      // A torn tail is the end for now; so is a next segment that does not continue this one
      // (a gap, or the overlap of a truncateTo the writer is in the middle of), unless the gap
      // is records a log cleaner dropped, wholly below the clean point.
      const next = bases[i + 1];
      if (stop.reason !== undefined || next === undefined) break;
      if (next !== segment.nextOffset && !cleanedAway(segment.nextOffset, next, input.segmentOptions.offsetGaps?.below))
        break;
    }
  } catch (err) {
    await Promise.allSettled(slots.map((slot) => slot.close()));
    throw err;
  } finally {
    // Swaps past where the walk stopped are not held by any slot.
    const held = new Set(slots.map((slot) => slot.segment));
    for (const swap of swaps.values()) if (!held.has(swap.segment)) await swap.segment.close().catch(() => undefined);
  }
  for (const base of [...marks.keys()].slice(0, -MARKED_SEGMENTS)) marks.delete(base);
  const end = slots[slots.length - 1]!.nextOffset;
  const firstBase = slots[0]!.baseOffset;
  return {
    segments: slots,
    slotContext,
    startOffset: Math.min(Math.max(input.logStartOffset ?? firstBase, firstBase), end),
    recoveryPoint: Math.min(recoveryPoint, end),
    marks,
    phantom,
    // What it walked, and nothing changed: only the writer repairs.
    recovery: unrepairedRecovery(input.clean, started, { segments: slots.length - first, bytes: bytesScanned }),
  };
}

/** What the Log takes from a read-only load besides the segments (read-only-open.ts adds the mode). */
interface ReadOnlyLoaded {
  readonly readOnly: { readonly recoveryPoint: number; readonly state: ReadOnlyState };
}

/** What a read-only log needs from its LogDir: how to re-read the checkpoints, how often to poll. */
type ReadOnlyHost = Pick<ReadOnlyState, "readCheckpoints" | "pollMs">;

/** `openLog`'s read-only load: the segments, and the state following them needs. */
export async function loadReadOnlyLog(input: LoadInput, host: ReadOnlyHost): Promise<LoadedLog & ReadOnlyLoaded> {
  let load = await loadReadOnly(input);
  // What a refresh compares with to tell a cleaning since (refresh-cleaned.ts).
  let seen: CheckpointedValues = {
    cleanPoint: input.segmentOptions.offsetGaps?.below,
    recoveryPoint: input.recoveryPoint,
    logStartOffset: undefined,
  };
  const end = load.segments[load.segments.length - 1]!.nextOffset;
  if ((input.recoveryPoint ?? 0) > end) {
    // Below the recovery point the writer made every record durable: unless it truncated since
    // (it lowers the checkpoint before it cuts), valid batches that end there are damage.
    await Promise.allSettled(load.segments.map((slot) => slot.close()));
    const again = await host.readCheckpoints();
    // The writer may have cleaned since its directory was opened: gaps its walk stopped at.
    followCleanPoint(input.segmentOptions.offsetGaps, again);
    checkDurablePrefix(input.dir, end, again.recoveryPoint);
    load = await loadReadOnly({ ...input, ...again });
    seen = again;
  }
  // The checkpoint was read before the files (the directory's open may be long before): a
  // truncateTo since lowered it before it cut, and the records it appended after may be in the
  // files walked, not flushed. Read after the walk, it bounds what the walk saw as durable.
  const recoveryPoint = Math.min(load.recoveryPoint, (await host.readCheckpoints()).recoveryPoint ?? 0);
  const state: ReadOnlyState = {
    ...host,
    marks: load.marks,
    phantom: load.phantom,
    cleanPointSeen: seen.cleanPoint,
    recoveryPointSeen: Math.max(0, seen.recoveryPoint ?? 0),
  };
  return { ...load, readOnly: { recoveryPoint, state } };
}

/**
 * Throws `PAGELOG_CORRUPT` if the valid batches end below the recovery point the writer
 * checkpointed (read again after the walk: a truncateTo lowers it before it cuts).
 */
export function checkDurablePrefix(dir: string, end: number, recoveryPoint: number | undefined): void {
  if (recoveryPoint !== undefined && recoveryPoint > end)
    throw new PagelogError(
      `log ${dir} is corrupt: its valid batches end at offset ${end}, below the recovery point ${recoveryPoint} its writer checkpointed`,
      ErrorCode.CORRUPT,
      { path: dir },
    );
}

type Walked = { segment: Segment; marked: TailMarks; stop: Awaited<ReturnType<Segment["planFollow"]>> };

/** Opens one segment read-only (`suffix`: under another name) and walks it (segment-follow.ts), marking its batches. */
export async function walkSegment(
  input: Pick<LoadInput, "storage" | "dir" | "segmentOptions">,
  base: number,
  suffix = "",
): Promise<Walked> {
  const segment = await Segment.openReadOnly(input.storage, input.dir, base, input.segmentOptions, suffix);
  try {
    const marked = new TailMarks(base);
    const stop = await segment.planFollow((batch) => marked.add(batch));
    return { segment, marked, stop };
  } catch (err) {
    await segment.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The partition's segment bases as the writer's next open will find them once it has finished
 * every interrupted swap (compaction/complete-swaps.ts), decided in memory: each `<b>.log.swap`,
 * walked and checked as that open checks it (or refused as it refuses it), stands for the
 * segments whose bases lie in `[b, end)`, whichever of them are still there. `.cleaned` and
 * `.deleted` files are not segments: the writer's open removes them. A swap the writer renamed
 * into place between the listing and its walk is found by listing again.
 */
async function listWithSwaps(
  input: LoadInput,
): Promise<{ bases: number[]; swaps: Map<number, Walked & { end: number }> }> {
  for (let attempt = 0; ; attempt++) {
    const names = await listPartition(input.storage, input.dir);
    const listed = new Set<number>();
    for (const name of names) {
      const base = segmentBaseOf(name, LOG_SUFFIX);
      if (base !== undefined) listed.add(base);
    }
    const swaps = new Map<number, Walked & { end: number }>();
    let gone = false;
    try {
      for (const name of names) {
        const base = name.endsWith(SWAP_SUFFIX)
          ? segmentBaseOf(name.slice(0, -SWAP_SUFFIX.length), LOG_SUFFIX)
          : undefined;
        if (base === undefined) continue;
        const walked = await walkSegment(input, base, SWAP_SUFFIX);
        swaps.set(base, { ...walked, end: walked.segment.nextOffset });
        const path = segmentFilePath(input.dir, base, LOG_SUFFIX) + SWAP_SUFFIX;
        const whole = walked.stop.reason === undefined && walked.segment.size > 0;
        if (!whole && attempt < 3 && (await input.storage.stat(path)) === null) gone = true;
        if (gone) break;
        checkSwap(input.dir, path, whole ? undefined : walked.stop, walked.segment.nextOffset, listed);
      }
    } catch (err) {
      for (const swap of swaps.values()) await swap.segment.close().catch(() => undefined);
      throw err;
    }
    if (gone) {
      for (const swap of swaps.values()) await swap.segment.close().catch(() => undefined);
      continue;
    }
    const bases = [...listed].filter((b) => ![...swaps.values()].some((w) => b > w.segment.baseOffset && b < w.end));
    for (const base of swaps.keys()) if (!bases.includes(base)) bases.push(base);
    return { bases: bases.sort((a, b) => a - b), swaps };
  }
}

/** The names in a partition directory; [] if it is gone. */
async function listPartition(storage: LoadInput["storage"], dir: string): Promise<string[]> {
  try {
    return await storage.list(dir);
  } catch (err) {
    if (err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND) return [];
    throw err;
  }
}
