/*
 * Rewriting one record batch v2 with only some of its records, as Kafka's log cleaner does
 * (MemoryRecords.filterTo): the batch keeps its base offset, its last offset delta, its base
 * timestamp, its producer fields and its attributes, so every surviving record keeps its offset
 * and timestamp (the protocol guide: "magic v2 and above preserves the first and last offset ...
 * from the original batch when the log is cleaned"). The surviving records' bytes are copied as
 * they are (their deltas are relative to the fields kept); the length, the record count, the
 * largest timestamp and the CRC are written anew.
 */
import { corruptError as corrupt } from "../errors.js";
import { readBatchHeader } from "./batch-header.js";
import {
  CRC_COVERED_START,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAX_TIMESTAMP_OFFSET,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
} from "./batch-layout.js";
import { writeInt64 } from "./batch-header.js";
import { crc32c as defaultCrc32c, type Crc32c } from "./crc32c.js";
import { decodeVarint } from "./varint.js";

/**
 * The batch at the start of `bytes` (uncompressed, already checked) with only the records whose
 * index `keep` answers true for; `timestamps[i]` is record i's timestamp (from the decoder), so
 * the new largest timestamp is that of the records kept. A batch that keeps none is still a batch
 * (Kafka's empty batch): its header with no records, its largest timestamp as it was.
 * `lastOffsetDelta`, when given, ends the batch earlier (a truncation inside it: it must not
 * drop a kept record).
 */
export function filterBatch(
  bytes: Uint8Array,
  keep: readonly boolean[],
  timestamps: readonly number[],
  crc32c: Crc32c = defaultCrc32c,
  lastOffsetDelta?: number,
): Uint8Array {
  const header = readBatchHeader(bytes);
  if (header.compression !== 0) throw new RangeError("filterBatch takes uncompressed batches only");
  if (keep.length !== header.recordsCount || timestamps.length !== header.recordsCount)
    throw new RangeError(`filterBatch: ${keep.length} answers for ${header.recordsCount} records`);
  const ranges: Array<[number, number]> = [];
  let at = RECORDS_OFFSET;
  let kept = 0;
  let largest = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < header.recordsCount; i++) {
    const length = decodeVarint(bytes, at, header.sizeInBytes);
    const end = length.position + length.value;
    if (length.value < 0 || end > header.sizeInBytes) throw corrupt(`record ${i} runs past its batch`);
    if (keep[i]) {
      ranges.push([at, end]);
      kept++;
      if (timestamps[i]! > largest) largest = timestamps[i]!;
    }
    at = end;
  }
  const recordBytes = ranges.reduce((sum, [from, to]) => sum + (to - from), 0);
  const out = new Uint8Array(RECORDS_OFFSET + recordBytes);
  out.set(bytes.subarray(0, RECORDS_OFFSET));
  let write = RECORDS_OFFSET;
  for (const [from, to] of ranges) {
    out.set(bytes.subarray(from, to), write);
    write += to - from;
  }
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setInt32(LENGTH_OFFSET, out.length - LOG_OVERHEAD);
  view.setInt32(RECORDS_COUNT_OFFSET, kept);
  if (lastOffsetDelta !== undefined) view.setInt32(LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
  // Under LogAppendTime the largest timestamp is every record's: it stays. Otherwise it must be
  // the largest of the records kept (the decoder checks it); an empty batch keeps the old one.
  if (!header.isLogAppendTime && kept > 0) writeInt64(view, MAX_TIMESTAMP_OFFSET, largest);
  view.setUint32(CRC_OFFSET, crc32c(out.subarray(CRC_COVERED_START)) >>> 0);
  return out;
}
