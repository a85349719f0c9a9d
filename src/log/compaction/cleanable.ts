/*
 * What a cleaning may rewrite, as Kafka's LogCleanerManager decides it: the leading segments
 * below the active one, wholly below the recovery point (a record a power cut could still take
 * back must never be the reason an older, durable one is removed), and, with
 * `minCompactionLagMs`, only segments whose newest record is that old; and how those segments
 * are grouped into cleaned ones (Kafka's groupSegmentsBySize).
 */
import type { Segment } from "../../segment/segment.js";
import { keepsLogOpen, type LogState } from "../state/log-state.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import type { NothingCleanedReason } from "./compaction-result.js";

/** The range a cleaning covers: the first `count` segments, ending at `end`; dirty from `dirtyFrom`. */
export interface Cleanable {
  readonly count: number;
  readonly end: number;
  readonly dirtyFrom: number;
}

/** The cleanable leading segments at wall time `now`; undefined when nothing in them is dirty. */
export async function cleanableRange(s: LogState, now: number): Promise<Cleanable | undefined> {
  const lag = s.options.minCompactionLagMs;
  let count = 0;
  while (count < s.segments.length - 1) {
    const slot = s.segments[count]!;
    if (slot.nextOffset > s.recoveryPoint) break;
    if (lag > 0 && (await loaded(slot)).maxTimestamp > now - lag) break;
    count++;
  }
  if (count === 0) return undefined;
  const end = s.segments[count - 1]!.nextOffset;
  const dirtyFrom = Math.max(s.offsetGaps.below, s.segments[0]!.baseOffset);
  if (dirtyFrom >= end) return undefined;
  return { count, end, dirtyFrom };
}

/** Why `cleanableRange` found nothing at wall time `now` (it returned undefined). */
export async function nothingCleanable(s: LogState, now: number): Promise<NothingCleanedReason> {
  const first = s.segments[0]!;
  // Above the recovery point counts as not closed yet: its roll flush has not finished (compact()
  // waits for it, so only the background cleaner can see this).
  if (s.segments.length === 1 || first.nextOffset > s.recoveryPoint) return "no-closed-segment";
  const lag = s.options.minCompactionLagMs;
  if (lag > 0 && (await loaded(first)).maxTimestamp > now - lag) return "min-compaction-lag";
  return "already-clean";
}

/**
 * Consecutive slots whose `.log`s together fit `segmentBytes`, whose indexes together fit
 * `maxIndexBytes` and whose offsets fit a segment's int32 relative offsets (Kafka's
 * groupSegmentsBySize). The sizes are the sources': the cleaned segment is never larger.
 */
export async function groups(s: LogState, slots: readonly SegmentSlot[]): Promise<SegmentSlot[][]> {
  const { segmentBytes, maxIndexBytes, indexIntervalBytes } = s.options;
  // The most index bytes a cleaned segment of `bytes` can need: an entry (12 bytes at most) per
  // index interval, and never more than one per smallest batch (68 bytes).
  const indexFor = (bytes: number): number => 12 * (1 + Math.floor(bytes / Math.max(68, indexIntervalBytes)));
  const out: SegmentSlot[][] = [];
  let group: SegmentSlot[] = [];
  let bytes = 0;
  for (const slot of slots) {
    const size = await slot.size(); // one stat of an idle segment
    const fits =
      bytes + size <= segmentBytes &&
      indexFor(bytes + size) <= maxIndexBytes &&
      slot.nextOffset - 1 - (group[0]?.baseOffset ?? 0) <= 0x7fffffff;
    if (group.length > 0 && !fits) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(slot);
    bytes += size;
  }
  if (group.length > 0) out.push(group);
  return out;
}

/** Loads a slot (its first use checks it); a check that fails leaves the log as it was. */
export async function loaded(slot: SegmentSlot): Promise<Segment> {
  return slot.segment ?? (await slot.load().catch((err: unknown) => Promise.reject(keepsLogOpen(err))));
}
