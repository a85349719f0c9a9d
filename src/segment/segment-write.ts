/**
 * Writing a segment: appending batches (one write for a group) and sealing a segment that takes
 * no more appends. fsyncing is in segment-flush.ts; truncating whole batches is part of the
 * segment's load (load/segment-load.ts), which truncation's door loads.
 */
import type { BatchHeader } from "../format/index.js";
import { gapAllowed } from "./batch-scanner.js";
import { MAX_INT32 } from "./offset-index.js";
import { indexBatch, type SegmentState } from "./segment-state.js";
import { NO_TIMESTAMP } from "./time-index.js";

/** Whether a batch ending at `lastOffset` of `bytes` bytes still fits this segment's int32 fields. */
export function canHold(s: SegmentState, lastOffset: number, bytes: number): boolean {
  return lastOffset - s.baseOffset <= MAX_INT32 && s.size + bytes <= MAX_INT32;
}

/**
 * A batch past the next offset continues the segment only in a compacted log's cleaned part. The
 * first batch too: a cleaned segment is named by its first source segment, whose own first batch
 * may start past that base (Kafka's cleaner drops a batch left empty). A segment above the clean
 * point (every segment the log appends to) still starts exactly at its base.
 */
function continues(s: SegmentState, next: number, header: BatchHeader): boolean {
  return gapAllowed(header, next, s.options.offsetGaps?.below);
}

/** Appends one whole, valid batch at the end of the log, then any index entries it earns. */
export function appendBatch(s: SegmentState, bytes: Uint8Array, header: BatchHeader): Promise<void> {
  return appendBatches(s, [{ bytes, header }]);
}

/** Appends several whole, valid, consecutive batches with one write, then their index entries. */
export async function appendBatches(
  s: SegmentState,
  batches: ReadonlyArray<{ readonly bytes: Uint8Array; readonly header: BatchHeader }>,
): Promise<void> {
  let next = s.nextOffset;
  let total = 0;
  for (const { bytes, header } of batches) {
    if (header.sizeInBytes !== bytes.length)
      throw new RangeError(`batch is ${bytes.length} bytes but its header says ${header.sizeInBytes}`);
    if (header.baseOffset !== next && !continues(s, next, header))
      throw new RangeError(
        `batch base offset ${header.baseOffset} does not continue segment ${s.baseOffset} (next offset ${next})`,
      );
    next = header.lastOffset + 1;
    total += bytes.length;
  }
  if (!canHold(s, next - 1, total))
    throw new RangeError(
      `${batches.length === 1 ? "batch does" : "batches do"} not fit segment ${s.baseOffset}'s int32 offsets or positions`,
    );
  // One batch is written as it is; several are joined into one write.
  let joined = batches[0]?.bytes ?? new Uint8Array(0);
  if (batches.length > 1) {
    joined = new Uint8Array(total);
    let at = 0;
    for (const { bytes } of batches) {
      joined.set(bytes, at);
      at += bytes.length;
    }
  }
  let position = s.size;
  s.logUnsynced = true;
  await s.log.write(position, joined);
  s.size += total;
  for (const { header } of batches) {
    await indexBatch(s, header, position);
    position += header.sizeInBytes;
  }
}

/** One last time-index entry for the largest timestamp, as Kafka's onBecomeInactiveSegment adds. */
export async function seal(s: SegmentState): Promise<void> {
  if (s.maxTimestamp !== NO_TIMESTAMP) await s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp);
}
