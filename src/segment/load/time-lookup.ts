/*
 * A segment's exact offset-for-timestamp lookup (`Segment.offsetForTimestamp`), which also checks
 * the time index entry it starts from against the log. A part loaded on first use (segment.ts
 * loads it with the first lookup by time): a page that never asks `offsetForTimestamp` never
 * loads it (docs/entry-points.md).
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { decodeBatch } from "../../format/checked/batch-functions.js";
import type { OffsetPosition } from "../offset-index.js";
import {
  corruptAt,
  fromIndex,
  loadIndexes,
  namesBase,
  scanFrom,
  type SegmentState,
  timeEntryLies,
} from "../segment-state.js";
import type { TimestampOffset } from "../time-index.js";

/** See `Segment.offsetForTimestamp`. */
export async function segmentOffsetForTimestamp(s: SegmentState, timestamp: number): Promise<number | null> {
  await loadIndexes(s);
  if (s.maxTimestamp < timestamp) return null;
  const before = s.timeIndex.lookupBefore(timestamp);
  if (before !== undefined) {
    try {
      // (An entry of NO_TIMESTAMP names the base offset, not a batch: nothing to check.)
      const entry = namesBase(s, before) ? undefined : before;
      return await fromIndex(s, s.offsetIndex.lookup(before.offset), (from) =>
        offsetForTimestampFrom(s, from, timestamp, entry),
      );
    } catch (err) {
      // The time index's entry is not what the log holds there (or the walk met damage, which
      // the walk from the start below meets again and reports).
      if (!(err instanceof PagelogError && err.code === ErrorCode.CORRUPT)) throw err;
    }
  }
  return offsetForTimestampFrom(s, { offset: s.baseOffset, position: 0 }, timestamp, undefined);
}

/**
 * The walk of `offsetForTimestamp`. With `entry` (the time-index entry it starts from), it also
 * checks that entry against the log: a real one names the last offset of a batch whose
 * maxTimestamp it holds, and no record up to it reaches the timestamp asked for. A lying entry
 * would start the walk past the answer: `PAGELOG_CORRUPT`, and the caller walks from the start.
 */
async function offsetForTimestampFrom(
  s: SegmentState,
  start: OffsetPosition,
  timestamp: number,
  entry: TimestampOffset | undefined,
): Promise<number | null> {
  const scanner = scanFrom(s, start, {});
  let unchecked = entry;
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    if (unchecked !== undefined && batch.header.lastOffset >= unchecked.offset) {
      if (batch.header.lastOffset !== unchecked.offset || batch.header.maxTimestamp !== unchecked.timestamp)
        throw timeEntryLies(s, unchecked);
      unchecked = undefined;
    }
    // Every batch passed over is decoded too, not skipped on its header's say-so: the decoder
    // refuses a maxTimestamp that disagrees with the records (a few batches: the time index
    // brought the walk close).
    const decoded = await decodeBatch(batch.bytes.slice(), { verifyCrc: false });
    if (batch.header.maxTimestamp < timestamp) continue;
    if (entry !== undefined && batch.header.lastOffset <= entry.offset) throw timeEntryLies(s, entry);
    const record = decoded.records.find((r) => r.timestamp >= timestamp);
    if (record !== undefined) return record.offset;
  }
  if (scanner.stop.reason !== undefined) throw corruptAt(s, scanner.stop);
  if (unchecked !== undefined) throw timeEntryLies(s, unchecked);
  return null;
}
