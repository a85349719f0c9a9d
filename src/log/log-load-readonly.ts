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
import { ErrorCode, PagelogError } from "../errors.js";
import { Segment } from "../segment/segment.js";
import type { LoadInput } from "./log-load-input.js";
import type { LoadedLog } from "./log-loader.js";
import { type CheckpointedValues, followCleanPoint, listSegmentBases, type ReadOnlyState } from "./read-only-state.js";
import { SegmentSlot, type SlotContext } from "./segment-slot.js";
import { TailMarks } from "./tail-marks.js";

export interface ReadOnlyLoad extends LoadedLog {
  /** Below the checkpointed recovery point (and the end): what a durable read may return. */
  readonly recoveryPoint: number;
  readonly marks: Map<number, TailMarks>;
  /** No segment was there yet: the active one is an empty stand-in. */
  readonly phantom: boolean;
}

/** Walked segments whose marks are kept: a truncation that reaches further back is found by the listing. */
export const MARKED_SEGMENTS = 2;

export async function loadReadOnly(input: LoadInput, context?: SlotContext): Promise<ReadOnlyLoad> {
  const started = typeof performance === "undefined" ? Date.now() : performance.now();
  const slotContext: SlotContext = context ?? {
    storage: input.storage,
    dir: input.dir,
    segmentOptions: input.segmentOptions,
    firstUses: { segmentsLoaded: 0, indexesRebuilt: 0 },
    readOnly: true,
  };
  const bases = await listSegmentBases(input.storage, input.dir);
  const phantom = bases.length === 0;
  // An empty partition directory (the writer made it and has not created its first segment yet):
  // an empty stand-in at the start offset, replaced by a refresh once a segment is there.
  if (phantom) bases.push(input.logStartOffset ?? 0);
  const recoveryPoint = input.recoveryPoint ?? 0;
  let first = 0;
  while (first + 1 < bases.length && bases[first + 1]! < recoveryPoint) first++;
  const slots = bases.slice(0, first).map((base, i) => SegmentSlot.idle(slotContext, base, bases[i + 1]!));
  const marks = new Map<number, TailMarks>();
  let bytesScanned = 0;
  try {
    for (let i = first; i < bases.length; i++) {
      const { segment, marked, stop } = await walkSegment(input, bases[i]!);
      slots.push(SegmentSlot.of(slotContext, segment));
      marks.set(segment.baseOffset, marked);
      bytesScanned += segment.size;
      // A torn tail is the end for now; so is a next segment that does not continue this one
      // (a gap, or the overlap of a truncateTo the writer is in the middle of).
      if (stop.reason !== undefined || bases[i + 1] !== segment.nextOffset) break;
    }
  } catch (err) {
    await Promise.allSettled(slots.map((slot) => slot.close()));
    throw err;
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
    recovery: {
      clean: input.clean,
      segmentsScanned: slots.length - first,
      bytesScanned,
      bytesTruncated: 0,
      segmentsDeleted: 0,
      indexesRebuilt: 0,
      filesRemoved: 0,
      leftoversRemoved: [],
      tailCut: "none",
      segmentsDeletedAfterGap: 0,
      truncationsFinished: 0,
      startedOver: false,
      swapsCompleted: 0, // only the writer finishes an interrupted compaction's swap
      durationMs: (typeof performance === "undefined" ? Date.now() : performance.now()) - started,
    },
  };
}

/** What the Log takes from a read-only load besides the segments. */
export interface ReadOnlyLoaded {
  readonly readOnly?: { readonly recoveryPoint: number; readonly state: ReadOnlyState };
}

/** What a read-only log needs from its LogDir: how to re-read the checkpoints, how often to poll. */
export type ReadOnlyHost = Pick<ReadOnlyState, "readCheckpoints" | "pollMs">;

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
  const state: ReadOnlyState = {
    ...host,
    marks: load.marks,
    phantom: load.phantom,
    cleanPointSeen: seen.cleanPoint,
    recoveryPointSeen: Math.max(0, seen.recoveryPoint ?? 0),
  };
  return { ...load, readOnly: { recoveryPoint: load.recoveryPoint, state } };
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

/** Opens one segment read-only and walks it (segment-follow.ts), marking its batches. */
export async function walkSegment(
  input: Pick<LoadInput, "storage" | "dir" | "segmentOptions">,
  base: number,
): Promise<{ segment: Segment; marked: TailMarks; stop: Awaited<ReturnType<Segment["planFollow"]>> }> {
  const segment = await Segment.openReadOnly(input.storage, input.dir, base, input.segmentOptions);
  try {
    const marked = new TailMarks(base);
    const stop = await segment.planFollow((batch) => marked.add(batch));
    return { segment, marked, stop };
  } catch (err) {
    await segment.close().catch(() => undefined);
    throw err;
  }
}
