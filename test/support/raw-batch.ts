/**
 * Record batches built field by field, for tests that need bytes pagelog's encoder refuses to
 * make (offset deltas out of range, counts that do not match, lengths that lie), with a CRC-32C
 * that is correct for whatever the bytes say: hostile input, not a torn write.
 */
import { crc32c } from "../../src/format/crc32c.js";
import { writeVarint } from "../../src/format/varint.js";

export interface RawRecord {
  offsetDelta: number;
  timestampDelta?: number;
  /** null writes length -1. */
  key?: Uint8Array | null;
  value?: Uint8Array | null;
  /** Overrides the record's length prefix (the body is written as built). */
  lengthOverride?: number;
}

export interface RawBatchFields {
  baseOffset: number;
  lastOffsetDelta: number;
  records: RawRecord[];
  /** @defaultValue records.length */
  recordsCount?: number;
  baseTimestamp?: number;
  maxTimestamp?: number;
  attributes?: number;
  magic?: number;
}

function bytesField(value: Uint8Array | null | undefined): number[] {
  if (value === null || value === undefined) return writeVarint(-1);
  return [...writeVarint(value.length), ...value];
}

export function rawRecord(r: RawRecord): number[] {
  const body = [
    0,
    ...writeVarint(r.timestampDelta ?? 0),
    ...writeVarint(r.offsetDelta),
    ...bytesField(r.key),
    ...bytesField(r.value),
    ...writeVarint(0),
  ];
  return [...writeVarint(r.lengthOverride ?? body.length), ...body];
}

/** A whole batch v2 with these fields and a CRC that matches them. */
export function rawBatch(f: RawBatchFields): Uint8Array {
  const records = f.records.flatMap(rawRecord);
  const bytes = new Uint8Array(61 + records.length);
  const view = new DataView(bytes.buffer);
  view.setBigInt64(0, BigInt(f.baseOffset));
  view.setInt32(8, bytes.length - 12);
  view.setInt32(12, -1);
  view.setInt8(16, f.magic ?? 2);
  view.setInt16(21, f.attributes ?? 0);
  view.setInt32(23, f.lastOffsetDelta);
  view.setBigInt64(27, BigInt(f.baseTimestamp ?? 1_000));
  view.setBigInt64(35, BigInt(f.maxTimestamp ?? f.baseTimestamp ?? 1_000));
  view.setBigInt64(43, -1n);
  view.setInt16(51, -1);
  view.setInt32(53, -1);
  view.setInt32(57, f.recordsCount ?? f.records.length);
  bytes.set(records, 61);
  fixCrc(bytes);
  return bytes;
}

/** Recomputes the CRC-32C of the batch at `position` over bytes [21, 12 + length), in place. */
export function fixCrc(bytes: Uint8Array, position = 0): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = position + 12 + view.getInt32(position + 8);
  view.setUint32(position + 17, crc32c(bytes.subarray(position + 21, end)));
}
