/**
 * Record batches taken apart and put back together at the byte level, independently of the
 * product's codec, so the hostile-files sweep can write any bytes the format can hold: fields
 * set to values the encoder never writes, varints over-long or non-canonical, lengths that do
 * not match, and each batch with its CRC-32C fixed (so it passes the CRC) or left stale.
 *
 * Layout (record batch v2, all integers big-endian): baseOffset int64 @0, length int32 @8,
 * partitionLeaderEpoch int32 @12, magic int8 @16, crc uint32 @17 (CRC-32C of [21, 12+length)),
 * attributes int16 @21, lastOffsetDelta int32 @23, baseTimestamp int64 @27, maxTimestamp int64
 * @35, producerId int64 @43, producerEpoch int16 @51, baseSequence int32 @53, recordsCount int32
 * @57, records @61.
 */
import { bitwiseCrc32c } from "../../unit/format/helpers.js";
import { concat } from "../../support/bytes.js";

export const LOG_OVERHEAD = 12;
export const HEADER = 61;
export const CRC_AT = 17;
export const CRC_FROM = 21;

/** A header field: where it is and how wide (bytes). */
export const FIELDS = {
  baseOffset: { at: 0, width: 8 },
  length: { at: 8, width: 4 },
  partitionLeaderEpoch: { at: 12, width: 4 },
  magic: { at: 16, width: 1 },
  crc: { at: 17, width: 4 },
  attributes: { at: 21, width: 2 },
  lastOffsetDelta: { at: 23, width: 4 },
  baseTimestamp: { at: 27, width: 8 },
  maxTimestamp: { at: 35, width: 8 },
  producerId: { at: 43, width: 8 },
  producerEpoch: { at: 51, width: 2 },
  baseSequence: { at: 53, width: 4 },
  recordsCount: { at: 57, width: 4 },
} as const;
export type FieldName = keyof typeof FIELDS;

/** Writes `value` (any integer; two's complement, truncated to the width) big-endian into `bytes`. */
export function setField(bytes: Uint8Array, batchAt: number, field: FieldName, value: bigint): void {
  const { at, width } = FIELDS[field];
  let v = BigInt.asUintN(width * 8, value);
  for (let i = width - 1; i >= 0; i--) {
    bytes[batchAt + at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

export function getField(bytes: Uint8Array, batchAt: number, field: FieldName): bigint {
  const { at, width } = FIELDS[field];
  let v = 0n;
  for (let i = 0; i < width; i++) v = (v << 8n) | BigInt(bytes[batchAt + at + i]!);
  return BigInt.asIntN(width * 8, v);
}

/**
 * Recomputes the CRC of the batch at `batchAt` over [21, 12 + length) as its length field now
 * says. Returns false (and changes nothing) when that range is not inside `bytes`.
 */
export function fixCrc(bytes: Uint8Array, batchAt: number): boolean {
  const length = Number(getField(bytes, batchAt, "length"));
  const end = batchAt + LOG_OVERHEAD + length;
  if (length < CRC_FROM - LOG_OVERHEAD || end > bytes.length) return false;
  setField(bytes, batchAt, "crc", BigInt(bitwiseCrc32c(bytes.subarray(batchAt + CRC_FROM, end))));
  return true;
}

/** A batch as found in a segment file. */
export interface BatchAt {
  /** Byte position in the segment. */
  position: number;
  /** Total size, 12 + length. */
  size: number;
  baseOffset: number;
  lastOffsetDelta: number;
  recordsCount: number;
}

/** Walks the whole (valid) batches of a segment file. */
export function batchesOf(segment: Uint8Array): BatchAt[] {
  const out: BatchAt[] = [];
  for (let at = 0; at + HEADER <= segment.length;) {
    const size = LOG_OVERHEAD + Number(getField(segment, at, "length"));
    out.push({
      position: at,
      size,
      baseOffset: Number(getField(segment, at, "baseOffset")),
      lastOffsetDelta: Number(getField(segment, at, "lastOffsetDelta")),
      recordsCount: Number(getField(segment, at, "recordsCount")),
    });
    at += size;
  }
  return out;
}

// ---- varints (zigzag, 7-bit groups, least significant first) ---------------------------------

/** The canonical zigzag varint of a signed integer of `bits` bits (32 for varint, 64 for varlong). */
export function zigzag(value: bigint, bits: 32 | 64 = 32): Uint8Array {
  let v = BigInt.asUintN(bits, (value << 1n) ^ (value >> BigInt(bits - 1)));
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? low : low | 0x80);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

/** The same value padded with redundant continuation groups to `bytes` bytes (non-canonical, or over-long). */
export function paddedVarint(value: bigint, bytes: number, bits: 32 | 64 = 32): Uint8Array {
  const canonical = zigzag(value, bits);
  if (bytes <= canonical.length) return canonical;
  const out = new Uint8Array(bytes);
  out.set(canonical);
  out[canonical.length - 1]! |= 0x80;
  for (let i = canonical.length; i < bytes - 1; i++) out[i] = 0x80;
  out[bytes - 1] = 0x00;
  return out;
}

/** Reads a zigzag varint (no limit on its length: the tests' own parser of good bytes). */
function readZigzag(bytes: Uint8Array, at: number): { value: bigint; next: number } {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    const b = bytes[at++]!;
    v |= BigInt(b & 0x7f) << shift;
    shift += 7n;
    if ((b & 0x80) === 0) break;
  }
  return { value: (v >> 1n) ^ -(v & 1n), next: at };
}

/** One field of a record, as bytes: a varint, the attributes byte, or the bytes of a key/value. */
export interface RecordField {
  readonly name: string;
  bytes: Uint8Array;
}

/**
 * An uncompressed batch split into its 61-byte header and, per record, its fields (the record's
 * length varint first): the unit the record-level mutations edit.
 */
export interface SplitBatch {
  header: Uint8Array;
  records: RecordField[][];
}

export function splitBatch(batch: Uint8Array): SplitBatch {
  const header = batch.slice(0, HEADER);
  const count = Number(getField(batch, 0, "recordsCount"));
  const records: RecordField[][] = [];
  let at = HEADER;
  const take = (name: string, fields: RecordField[], bytes: Uint8Array) => fields.push({ name, bytes });
  for (let r = 0; r < count; r++) {
    const fields: RecordField[] = [];
    const varint = (name: string) => {
      const { value, next } = readZigzag(batch, at);
      take(name, fields, batch.slice(at, next));
      at = next;
      return Number(value);
    };
    const raw = (name: string, n: number) => {
      take(name, fields, batch.slice(at, at + Math.max(0, n)));
      at += Math.max(0, n);
    };
    varint("length");
    raw("attributes", 1);
    varint("timestampDelta");
    varint("offsetDelta");
    raw("key", varint("keyLength"));
    raw("value", varint("valueLength"));
    const headers = varint("headerCount");
    for (let h = 0; h < headers; h++) {
      raw(`header${h}.key`, varint(`header${h}.keyLength`));
      raw(`header${h}.value`, varint(`header${h}.valueLength`));
    }
    records.push(fields);
  }
  if (at !== batch.length) throw new Error(`splitBatch: ${batch.length - at} bytes left over`);
  return { header, records };
}

/**
 * Puts a split batch back together. Unless told otherwise, each record's length varint, the
 * batch's length field and the records count are recomputed from what is there, and the CRC is
 * fixed; `keepRecordLengths` keeps the record length varints as they are, `keepLength` /
 * `keepCount` keep the header's fields, `crc: "stale"` keeps the old CRC bytes.
 */
export function joinBatch(
  split: SplitBatch,
  options: {
    keepRecordLengths?: boolean;
    keepLength?: boolean;
    keepCount?: boolean;
    crc?: "fixed" | "stale";
    trailing?: Uint8Array;
  } = {},
): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const fields of split.records) {
    const body = concat(fields.slice(1).map((f) => f.bytes));
    parts.push(options.keepRecordLengths ? fields[0]!.bytes : zigzag(BigInt(body.length)), body);
  }
  if (options.trailing !== undefined) parts.push(options.trailing);
  const out = concat([split.header, ...parts]);
  if (!options.keepLength) setField(out, 0, "length", BigInt(out.length - LOG_OVERHEAD));
  if (!options.keepCount) setField(out, 0, "recordsCount", BigInt(split.records.length));
  if ((options.crc ?? "fixed") === "fixed") fixCrc(out, 0);
  return out;
}

export { concat };

/** `bytes` with [from, to) replaced by `insert`. */
export function splice(bytes: Uint8Array, from: number, to: number, insert: Uint8Array): Uint8Array {
  return concat([bytes.subarray(0, from), insert, bytes.subarray(to)]);
}
