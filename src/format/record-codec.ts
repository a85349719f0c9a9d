/**
 * The records section of a batch v2: sizing, writing and strict reading of `Record`s (layout in
 * `batch-layout.ts`). Encoding is two passes over the input, sizes first, then bytes straight
 * into the caller's buffer, so no record is built in an intermediate array.
 */
import { corruptError as corrupt } from "../errors.js";
import {
  MIN_RECORD_BODY_SIZE,
  MIN_RECORD_SIZE,
  NULL_LENGTH,
  RECORD_ATTRIBUTES,
  RECORD_ATTRIBUTES_SIZE,
} from "./batch-layout.js";
import { readVarint, readVarlong, varintSize, varlongSize, writeVarint32, writeVarlong } from "./varint.js";
import type { ByteCursor } from "./varint.js";
import { checkAttached, ownedCopy } from "./owned-bytes.js";

/** Bytes of a key, value or header value: a string is written as UTF-8; `null` is Kafka's null. */
export type BytesInput = Uint8Array | string | null;

/** Headers as an object (one value per key) or as a list (duplicate keys allowed, order kept). */
export type HeadersInput = Record<string, BytesInput> | ReadonlyArray<{ key: string; value: BytesInput }>;

/** One record to append. */
export interface RecordInput {
  /** The record's key (Kafka's null key when absent). @defaultValue null */
  key?: BytesInput;
  /** The record's value; `null` is Kafka's null value (a tombstone in a compacted topic). */
  value: BytesInput;
  /** The record's headers. @defaultValue no headers */
  headers?: HeadersInput;
  /**
   * Milliseconds since the epoch (CreateTime).
   * @defaultValue the time its batch is written: `log.append()` takes it from the log's `clock`
   *   (`LogOptions.clock`, `Date.now()` unless one is injected); `encodeBatch()` from its
   *   `timestamp` option (`Date.now()` unless given)
   */
  timestamp?: number;
}

/** One record header as read back. */
export interface DecodedHeader {
  /** The header's key (UTF-8 decoded). */
  key: string;
  /** A view into the decoded bytes, or `null`. */
  value: Uint8Array | null;
}

/**
 * A record read back from a batch. `key`, `value` and header values are views into the bytes
 * that were decoded (no copy): copy them if you keep them and reuse that buffer.
 */
export interface DecodedRecord {
  /** The record's offset in its partition. */
  offset: number;
  /** CreateTime (`baseTimestamp + timestampDelta`), or the batch's `maxTimestamp` under LogAppendTime. */
  timestamp: number;
  /** The key's bytes, or `null`. */
  key: Uint8Array | null;
  /** The value's bytes, or `null`. */
  value: Uint8Array | null;
  /** The headers, in their order in the batch. */
  headers: DecodedHeader[];
}

/** Strings at or below this length are written with a plain loop when ASCII; longer ones by `encodeInto`. */
const SHORT_STRING = 32;
const ASCII_LIMIT = 0x80;
const TWO_BYTE_LIMIT = 0x800;
const HIGH_SURROGATE_MIN = 0xd800;
const HIGH_SURROGATE_MAX = 0xdbff;
const LOW_SURROGATE_MIN = 0xdc00;
const LOW_SURROGATE_MAX = 0xdfff;

const encoder = new TextEncoder();
/** Fatal: a header key that is not UTF-8 is damage, never a key made of U+FFFD that nobody wrote. */
const decoder = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 byte length of `s` as `TextEncoder` writes it (a lone surrogate becomes U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < ASCII_LIMIT) continue;
    if (c < TWO_BYTE_LIMIT) {
      bytes += 1;
      continue;
    }
    if (c >= HIGH_SURROGATE_MIN && c <= HIGH_SURROGATE_MAX && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= LOW_SURROGATE_MIN && d <= LOW_SURROGATE_MAX) {
        bytes += 2; // two UTF-16 units, four UTF-8 bytes
        i++;
        continue;
      }
    }
    bytes += 2; // three UTF-8 bytes
  }
  return bytes;
}

/**
 * A record's inputs as read once from the caller's object: every getter, proxy trap and array
 * element is read exactly once, when the record is validated, so the sizing pass and the writing
 * pass see the same values (a getter returning different bytes each time cannot desize a batch).
 */
export interface RecordSnapshot {
  readonly key: BytesInput;
  readonly value: BytesInput;
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: BytesInput }>;
  /** undefined: the batch's default timestamp. */
  readonly timestamp: number | undefined;
}

// %TypedArray%.prototype's own getters read a typed array's internal slots: a subclass that
// overrides `length`, or a Proxy posing as a Uint8Array, cannot make two reads disagree.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag)!.get!;
const typedArrayLength = Object.getOwnPropertyDescriptor(typedArrayProto, "length")!.get!;

/** A real Uint8Array (or Buffer), from any realm; not a Proxy, not another typed array. */
function isUint8Array(value: unknown): value is Uint8Array {
  return typedArrayTag.call(value) === "Uint8Array";
}

/**
 * Checks a key, value or header value; returns it unchanged, or with `own` a Uint8Array's copy
 * (owned-bytes.ts: the log encodes later, and the record is what was passed at the call).
 */
function checkBytes(value: unknown, name: () => string, own: boolean): BytesInput {
  if (typeof value === "string") return checkWellFormed(value, name);
  if (value === null) return value;
  if (!isUint8Array(value))
    throw new TypeError(`${name()} must be a Uint8Array, a string or null, got ${describeValue(value)}`);
  const length = typedArrayLength.call(value) as number;
  if (length === 0) checkAttached(value, name); // or a detached buffer would be written as empty bytes
  return own ? ownedCopy(value, length) : value;
}

const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/\p{Cs}/u.test(s); // in a `u` regex only a lone surrogate is a code point of category Cs

/**
 * A string is written as UTF-8, and a lone surrogate has no UTF-8 form: `TextEncoder` would write
 * U+FFFD, so the record would read back as something nobody appended. Refused instead.
 */
function checkWellFormed(s: string, name: () => string): string {
  if (isWellFormed(s)) return s;
  let at = 0;
  for (; at < s.length; at++) {
    const c = s.charCodeAt(at);
    if (c < HIGH_SURROGATE_MIN || c > LOW_SURROGATE_MAX) continue;
    const d = s.charCodeAt(at + 1);
    if (c <= HIGH_SURROGATE_MAX && d >= LOW_SURROGATE_MIN && d <= LOW_SURROGATE_MAX) at++;
    else break;
  }
  throw new TypeError(
    `${name()} is not well-formed UTF-16: a lone surrogate (0x${s.charCodeAt(at).toString(16)}) at index ${at} has no UTF-8 form`,
  );
}

/** A short description of a bad argument for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  if (typeof value === "function") return "a function";
  return String(value);
}

/** Byte length of a checked key/value/header value, or -1 for null. */
function bytesLength(value: BytesInput): number {
  if (value === null) return NULL_LENGTH;
  if (typeof value === "string") return utf8Length(value);
  return typedArrayLength.call(value) as number;
}

function checkTimestamp(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value))
    throw new TypeError(`${name} must be a safe integer (ms since the epoch), got ${describeValue(value)}`);
  return value;
}

/** `Map`, `Set`, `Date`…: the built-in kind of an object that is not a plain one or an array. */
function objectKind(value: object): string | undefined {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  if (tag !== "Object") return tag;
  // An iterable that says it is a plain Object (a generator, a custom collection): not read by keys either.
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function" ? "iterable" : undefined;
}

/** The headers of every record that has none: one frozen array, not one per record (small records are the common case). */
const NO_HEADERS: RecordSnapshot["headers"] = Object.freeze([]);

function snapshotHeaders(headers: unknown, index: number, own: boolean): RecordSnapshot["headers"] {
  if (headers === undefined || headers === null) return NO_HEADERS;
  if (typeof headers !== "object")
    throw new TypeError(`records[${index}].headers must be an object or an array, got ${describeValue(headers)}`);
  if (!Array.isArray(headers)) {
    // Read by own keys, a Map or a Set would give no headers at all: refused, not dropped.
    const kind = objectKind(headers);
    if (kind !== undefined)
      throw new TypeError(
        `records[${index}].headers must be a plain object or an array of { key, value }, got ${kind === "iterable" ? "an iterable" : `a ${kind}`} (Array.from or Object.fromEntries makes one)`,
      );
  }
  const out: Array<{ key: string; value: BytesInput }> = [];
  if (Array.isArray(headers)) {
    const list = headers as readonly unknown[];
    const length = list.length;
    for (let h = 0; h < length; h++) {
      const header = list[h];
      if (typeof header !== "object" || header === null)
        throw new TypeError(`records[${index}].headers[${h}] must be an object, got ${describeValue(header)}`);
      const { key, value } = header as { key: unknown; value: unknown };
      if (typeof key !== "string")
        throw new TypeError(`records[${index}].headers[${h}].key must be a string, got ${describeValue(key)}`);
      checkWellFormed(key, () => `records[${index}].headers[${h}].key`);
      out.push({ key, value: checkBytes(value, () => `records[${index}].headers[${h}].value`, own) });
    }
    return out;
  }
  // Own enumerable string keys, in property order (what `for…in` with a hasOwn check visits).
  const map = headers as Record<string, unknown>;
  for (const key of Object.keys(map)) {
    checkWellFormed(key, () => `records[${index}].headers key ${JSON.stringify(key)}`);
    out.push({ key, value: checkBytes(map[key], () => `records[${index}].headers[${JSON.stringify(key)}]`, own) });
  }
  return out;
}

/**
 * Validates `records` and reads each of their fields exactly once into plain snapshots. With
 * `own`, every Uint8Array is copied (the log encodes later: later changes must not matter).
 * @throws TypeError naming the bad argument; RangeError for an empty array.
 */
export function snapshotRecords(records: unknown, own = false): RecordSnapshot[] {
  if (!Array.isArray(records)) throw new TypeError(`records must be an array, got ${describeValue(records)}`);
  const list = records as readonly unknown[];
  const length = list.length;
  if (length === 0) throw new RangeError("records must not be empty");
  const out: RecordSnapshot[] = new Array(length);
  for (let i = 0; i < length; i++) {
    const record = list[i];
    if (typeof record !== "object" || record === null || Array.isArray(record))
      throw new TypeError(`records[${i}] must be an object, got ${describeValue(record)}`);
    const { key, value, headers, timestamp } = record as Record<string, unknown>;
    if (value === undefined)
      throw new TypeError(`records[${i}].value must be a Uint8Array, a string or null, got undefined`);
    out[i] = {
      key: key === undefined ? null : checkBytes(key, () => `records[${i}].key`, own),
      value: checkBytes(value, () => `records[${i}].value`, own),
      headers: snapshotHeaders(headers, i, own),
      timestamp: checkTimestamp(timestamp, `records[${i}].timestamp`),
    };
  }
  return out;
}

/** Size of a length-prefixed field: varint length + the bytes. */
function fieldSize(length: number): number {
  return varintSize(length) + (length > 0 ? length : 0);
}

/** Writes a length-prefixed field whose length was computed by `bytesLength`. */
function writeField(bytes: Uint8Array, position: number, value: BytesInput, length: number): number {
  position = writeVarint32(bytes, position, length);
  if (value === null) return position;
  if (typeof value !== "string") {
    bytes.set(value, position);
    return position + length;
  }
  if (length === value.length && length <= SHORT_STRING) {
    for (let i = 0; i < length; i++) bytes[position + i] = value.charCodeAt(i);
    return position + length;
  }
  encoder.encodeInto(value, bytes.subarray(position, position + length));
  return position + length;
}

/** Bytes of the headers section (count varint included). */
function headersSize(headers: RecordSnapshot["headers"]): number {
  let size = varintSize(headers.length);
  for (const { key, value } of headers) size += fieldSize(utf8Length(key)) + fieldSize(bytesLength(value));
  return size;
}

function writeHeaders(bytes: Uint8Array, position: number, headers: RecordSnapshot["headers"]): number {
  position = writeVarint32(bytes, position, headers.length);
  for (const { key, value } of headers) {
    position = writeField(bytes, position, key, utf8Length(key));
    position = writeField(bytes, position, value, bytesLength(value));
  }
  return position;
}

/** Int32s per record in the `sizes` that {@link sizeRecords} fills: body size, key length, value length. */
export const SIZES_PER_RECORD = 3;

/** The one header count byte of a record without headers (the usual case: no loop, no call). */
const NO_HEADERS_SIZE = 1;

/**
 * Sizes every record into `sizes` (`SIZES_PER_RECORD` each: the body alone, for the Length field,
 * then the key's and the value's lengths, so that {@link writeRecords} measures nothing again)
 * and returns the records section's total size (each record's Length varint included). The
 * records were checked by {@link snapshotRecords}; this checks the timestamp deltas.
 */
export function sizeRecords(
  records: readonly RecordSnapshot[],
  baseTimestamp: number,
  defaultTimestamp: number,
  sizes: Int32Array,
): number {
  let total = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const delta = (record.timestamp ?? defaultTimestamp) - baseTimestamp;
    if (!Number.isSafeInteger(delta))
      throw new RangeError(`records[${i}].timestamp is too far from the batch's base timestamp`);
    const keyLength = bytesLength(record.key);
    const valueLength = bytesLength(record.value);
    const headers = record.headers;
    const body =
      RECORD_ATTRIBUTES_SIZE +
      varlongSize(delta) +
      varintSize(i) +
      fieldSize(keyLength) +
      fieldSize(valueLength) +
      (headers.length === 0 ? NO_HEADERS_SIZE : headersSize(headers));
    const at = i * SIZES_PER_RECORD;
    sizes[at] = body;
    sizes[at + 1] = keyLength;
    sizes[at + 2] = valueLength;
    total += varintSize(body) + body;
  }
  return total;
}

/**
 * Writes the records sized by {@link sizeRecords} (with the `sizes` it filled, in the same
 * synchronous step: nothing can change a length in between) at `position`; returns the
 * position after them.
 */
export function writeRecords(
  bytes: Uint8Array,
  position: number,
  records: readonly RecordSnapshot[],
  baseTimestamp: number,
  defaultTimestamp: number,
  sizes: Int32Array,
): number {
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const at = i * SIZES_PER_RECORD;
    position = writeVarint32(bytes, position, sizes[at]!);
    bytes[position++] = RECORD_ATTRIBUTES;
    position = writeVarlong(bytes, position, (record.timestamp ?? defaultTimestamp) - baseTimestamp);
    position = writeVarint32(bytes, position, i);
    position = writeField(bytes, position, record.key, sizes[at + 1]!);
    position = writeField(bytes, position, record.value, sizes[at + 2]!);
    const headers = record.headers;
    if (headers.length === 0)
      bytes[position++] = 0; // the zigzag varint of a count of 0
    else position = writeHeaders(bytes, position, headers);
  }
  return position;
}

/** What the record reader needs from the batch header. */
interface RecordContext {
  baseOffset: number;
  baseTimestamp: number;
  maxTimestamp: number;
  isLogAppendTime: boolean;
  recordsCount: number;
  /** Offsets of the batch's records lie in `baseOffset + [0, lastOffsetDelta]`. */
  lastOffsetDelta: number;
}

/** Reads a varint length-prefixed field; `null` for -1. */
function readBytesField(cursor: ByteCursor, what: string): Uint8Array | null {
  const length = readVarint(cursor);
  if (length === NULL_LENGTH) return null;
  if (length < 0) throw corrupt(`${what} has negative length ${length} at byte ${cursor.pos}`);
  const start = cursor.pos;
  if (length > cursor.end - start) throw corrupt(`${what} of ${length} bytes at byte ${start} runs past its record`);
  cursor.pos = start + length;
  const bytes = cursor.bytes;
  // A view made directly costs about half a subarray() (no species lookup): one per key and
  // value read. Only for a plain Uint8Array: a subclass's (a Buffer's) views keep its class.
  if (bytes.constructor === Uint8Array) return new Uint8Array(bytes.buffer, bytes.byteOffset + start, length);
  return bytes.subarray(start, start + length);
}

function decodeHeaderKey(bytes: Uint8Array, record: number, header: number): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw corrupt(`record ${record} header ${header} key is not UTF-8`);
  }
}

/**
 * Reads exactly `context.recordsCount` records from `bytes[start, end)`. Strict, as Kafka's
 * `DefaultRecord.readFrom` and the batch iterator are: each record must end exactly where its
 * Length says, and the records must end exactly at `end`.
 *
 * @throws PagelogError `PAGELOG_CORRUPT` on any inconsistency.
 */
export function readRecords(bytes: Uint8Array, start: number, end: number, context: RecordContext): DecodedRecord[] {
  const { baseOffset, baseTimestamp, maxTimestamp, isLogAppendTime, recordsCount, lastOffsetDelta } = context;
  if (recordsCount < 0) throw corrupt(`batch declares a negative record count ${recordsCount}`);
  // Each record takes at least MIN_RECORD_SIZE bytes: reject an impossible count before looping.
  if (recordsCount > (end - start) / MIN_RECORD_SIZE) {
    throw corrupt(`batch declares ${recordsCount} records but holds only ${end - start} bytes of records`);
  }
  const records: DecodedRecord[] = [];
  const cursor: ByteCursor = { bytes, pos: start, end };
  let previousDelta = -1;
  for (let i = 0; i < recordsCount; i++) {
    cursor.end = end;
    const recordStart = cursor.pos;
    const length = readVarint(cursor);
    if (length < MIN_RECORD_BODY_SIZE)
      throw corrupt(
        `record ${i} at byte ${recordStart} has length ${length}, below the minimum ${MIN_RECORD_BODY_SIZE}`,
      );
    const recordEnd = cursor.pos + length;
    if (recordEnd > end) throw corrupt(`record ${i} at byte ${recordStart} (${length} bytes) runs past the batch`);
    // Every field of this record must lie inside its declared length.
    cursor.end = recordEnd;
    cursor.pos++; // attributes: unused by Kafka, ignored on read
    const timestampDelta = readVarlong(cursor);
    const offsetDelta = readVarint(cursor);
    // A record labelled with an offset its batch does not cover, or out of order, would be read
    // as a record that was never appended at that offset.
    if (offsetDelta <= previousDelta || offsetDelta > lastOffsetDelta) {
      throw corrupt(
        `record ${i} has offsetDelta ${offsetDelta}: deltas must increase within 0..${lastOffsetDelta} (previous ${previousDelta})`,
      );
    }
    previousDelta = offsetDelta;
    const key = readBytesField(cursor, `record ${i} key`);
    const value = readBytesField(cursor, `record ${i} value`);
    const headerCount = readVarint(cursor);
    if (headerCount < 0) throw corrupt(`record ${i} has a negative header count ${headerCount}`);
    const headers: DecodedHeader[] = [];
    for (let h = 0; h < headerCount; h++) {
      const keyBytes = readBytesField(cursor, `record ${i} header ${h} key`);
      if (keyBytes === null) throw corrupt(`record ${i} header ${h} has a null key`);
      headers.push({
        key: decodeHeaderKey(keyBytes, i, h),
        value: readBytesField(cursor, `record ${i} header ${h} value`),
      });
    }
    if (cursor.pos !== recordEnd) {
      throw corrupt(
        `record ${i} at byte ${recordStart} declares ${length} bytes but its fields take ${cursor.pos - (recordEnd - length)}`,
      );
    }
    const timestamp = isLogAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    if (!Number.isSafeInteger(timestamp)) throw corrupt(`record ${i} timestamp is beyond Number.MAX_SAFE_INTEGER`);
    const offset = baseOffset + offsetDelta;
    if (!Number.isSafeInteger(offset)) throw corrupt(`record ${i} offset is beyond Number.MAX_SAFE_INTEGER`);
    records.push({ offset, timestamp, key, value, headers });
  }
  if (cursor.pos !== end) {
    throw corrupt(`batch has ${end - cursor.pos} bytes after its ${recordsCount} declared records`);
  }
  // Timestamp lookups pick the batches to decode by the header's maxTimestamp: a header that
  // disagrees with its records would make them answer wrong, so it is damage.
  if (!isLogAppendTime && records.length > 0) {
    let largest = records[0]!.timestamp;
    for (const r of records) if (r.timestamp > largest) largest = r.timestamp;
    if (largest !== maxTimestamp)
      throw corrupt(`batch maxTimestamp ${maxTimestamp} is not its records' largest timestamp ${largest}`);
  }
  return records;
}
