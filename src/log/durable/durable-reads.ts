/**
 * Durable reads (`read` and `readBatches` with `durable: true`): only what lies below the recovery
 * point, which no power cut can take back. A part loaded on first use (door-durable.ts): a log
 * whose readers never ask for `durable` never loads it. A durable follower's iteration is
 * records-body.ts's.
 */
import { readBatchHeader } from "../../format/batch-header.js";
import { batchSize } from "../options/log-arguments.js";
import type { LogState } from "../state/log-state.js";
import {
  checkInRange,
  type LogRecord,
  readFewRecords,
  readLimit,
  readLogRecords,
  readRawBatches,
  type ResolvedReadOptions,
} from "../read/log-read.js";

/** `readLogRecords` of only the records below the recovery point; the offset is range-checked as ever. */
export async function readDurableRecords(s: LogState, offset: number, o: ResolvedReadOptions): Promise<LogRecord[]> {
  checkInRange(s, offset);
  const limit = readLimit(s, true);
  if (offset >= limit) return [];
  // Offsets are distinct and increase, so at most `limit - offset` records lie below the limit;
  // in a compacted log's gaps fewer do, and records past it may follow: count by offset.
  const want = { ...o, maxRecords: Math.min(o.maxRecords, limit - offset) };
  const records = await (o.maxRecords === Number.POSITIVE_INFINITY
    ? readLogRecords(s, offset, o.maxBytes, want.maxRecords, o.isolation)
    : readFewRecords(s, offset, want));
  const durable = await s.mode.durableLimitAfterRead(s, limit);
  return records.filter((r) => r.offset < durable);
}

/** `readRawBatches` cut to the whole batches whose last offset is below the recovery point. */
export async function readDurableBatches(s: LogState, offset: number, maxBytes: number): Promise<Uint8Array> {
  checkInRange(s, offset);
  const limit = readLimit(s, true);
  if (offset >= limit) return new Uint8Array(0);
  const raw = await readRawBatches(s, offset, maxBytes);
  const durable = await s.mode.durableLimitAfterRead(s, limit);
  let at = 0;
  while (at < raw.length && readBatchHeader(raw, at).lastOffset < durable) at += batchSize(raw, at);
  return raw.subarray(0, at);
}
