/**
 * Encoding and decoding whole record batches v2 (layout drawn in `batch-layout.ts`). The public
 * functions named below are in checked/batch-functions.ts, which adds the `crc32c` option's
 * known-answer check; here they are `encodeBatchWith`, `decodeBatchWith`… taking that check.
 *
 * - `encodeBatch`: synchronous, uncompressed; sizes everything first, then writes the header and
 *   every record into one buffer and fills in the CRC-32C last.
 * - `encodeBatchAsync`: the same, optionally gzip-compressed (compression is a stream, so async).
 * - `decodeBatchSync`: uncompressed batches; a compressed one is `PAGELOG_UNSUPPORTED_COMPRESSION`.
 * - `decodeBatch`: uncompressed and gzip. snappy, lz4 and zstd are
 *   `PAGELOG_UNSUPPORTED_COMPRESSION`; codec ids 5-7 (undefined by Kafka) are `PAGELOG_CORRUPT`.
 * - `decodeLogBatch`: the log's reads' `decodeBatch`, minus the public checks; compressed
 *   batches (decode-compressed.ts) load behind a door of their own.
 */
import { corruptError as corrupt, ErrorCode, PagelogError, pagelogBug } from "../errors.js";
import { checkKnownKeys, optionKeys } from "../options.js";
import { readBatchHeader, writeInt64 } from "./batch-header.js";
import type { BatchHeader } from "./batch-header.js";
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_HEADER_SIZE,
  CompressionCodec,
  CONTROL_FLAG_MASK,
  CRC_COVERED_START,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_BATCH_LENGTH,
  MAX_TIMESTAMP_OFFSET,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from "./batch-layout.js";
import { loadGzip, unsupported } from "./compressed/codecs.js";
import { loadCompressed } from "./compressed/door-compressed.js";
import { crc32c as defaultCrc32c } from "./crc32c.js";
import type { Crc32c } from "./crc32c.js";
import { readRecords, SIZES_PER_RECORD, sizeRecords, snapshotRecords, writeRecords } from "./record-codec.js";
import type { DecodedRecord, RecordInput, RecordSnapshot } from "./record-codec.js";

/**
 * The check a `crc32c` option gets: the public functions (checked/batch-functions.ts) pass the
 * known-answer check, `checkCrc32c`. Passed in rather than imported so that this module, which
 * every log loads, does not import the check: a log's bundle loads it only where some caller
 * gives a `crc32c` of its own (a bundler that splits keeps every module statically imported by a
 * loaded one loaded, whether its code runs or not).
 */
export type Crc32cCheck = (crc: unknown, name: string) => unknown;

const INT16_MIN = -0x8000;
const INT16_MAX = 0x7fff;

/** Options of `encodeBatch`. Only `baseOffset` is required. */
export interface EncodeBatchOptions {
  /** Offset of the first record; record `i` gets `baseOffset + i`. */
  baseOffset: number;
  /** The leader epoch the batch was written in (header field PartitionLeaderEpoch). @defaultValue -1 (unknown) */
  partitionLeaderEpoch?: number;
  /** The idempotent producer's id (ProducerId). @defaultValue -1 (no idempotent producer) */
  producerId?: number;
  /** The producer's epoch (ProducerEpoch). @defaultValue -1 */
  producerEpoch?: number;
  /** The first record's sequence number (BaseSequence). @defaultValue -1 */
  baseSequence?: number;
  /** Attribute bit 4. @defaultValue false */
  isTransactional?: boolean;
  /** Attribute bit 5. @defaultValue false */
  isControl?: boolean;
  /**
   * When set, the batch is LogAppendTime (attribute bit 3) and `maxTimestamp` is this value,
   * which readers then report as every record's timestamp. @defaultValue undefined (CreateTime)
   */
  logAppendTime?: number;
  /** Timestamp of records that have none, in ms since the epoch. @defaultValue `Date.now()` */
  timestamp?: number;
  /**
   * Largest whole batch to produce (Kafka's `max.message.bytes`); a larger one is
   * `PAGELOG_RECORD_TOO_LARGE`, checked before the buffer is allocated.
   * @defaultValue no limit beyond the int32 Length field
   */
  maxBatchBytes?: number;
  /** CRC-32C implementation. @defaultValue the bundled pure-JS one */
  crc32c?: Crc32c;
}

/** Options of `encodeBatchAsync`. */
export interface EncodeBatchAsyncOptions extends EncodeBatchOptions {
  /** Compress the records section as one gzip stream (codec 1), as Kafka does. @defaultValue "none" */
  compression?: "none" | "gzip";
}

/** Options of `decodeBatch` and `decodeBatchSync`. */
export interface DecodeBatchOptions {
  /** Check the CRC-32C before decoding. @defaultValue true */
  verifyCrc?: boolean;
  /** CRC-32C implementation. @defaultValue the bundled pure-JS one */
  crc32c?: Crc32c;
  /**
   * Cap on a compressed batch's decompressed records section; beyond it decoding fails with
   * `PAGELOG_RECORD_TOO_LARGE`. @defaultValue 64 MiB (`DEFAULT_MAX_DECOMPRESSED_BYTES`)
   */
  maxDecompressedBytes?: number;
}

/** A decoded batch: every header field and the records. */
export interface DecodedBatch extends BatchHeader {
  /** The batch's records, in offset order. */
  records: DecodedRecord[];
}

/** Every key each options object may hold (the codec reads its few fields in place: hot paths). */
const ENCODE_OPTIONS = /* @__PURE__ */ optionKeys<EncodeBatchOptions>({
  baseOffset: true,
  partitionLeaderEpoch: true,
  producerId: true,
  producerEpoch: true,
  baseSequence: true,
  isTransactional: true,
  isControl: true,
  logAppendTime: true,
  timestamp: true,
  maxBatchBytes: true,
  crc32c: true,
});
const DECODE_OPTIONS = /* @__PURE__ */ optionKeys<DecodeBatchOptions>({
  verifyCrc: true,
  crc32c: true,
  maxDecompressedBytes: true,
});

function checkInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`options.${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

function optionalInteger(value: number | undefined, name: string, min: number, max: number, fallback: number): number {
  return value === undefined ? fallback : checkInteger(value, name, min, max);
}

function tooLarge(size: number, max: number): PagelogError {
  return new PagelogError(`batch of ${size} bytes exceeds maxBatchBytes ${max}`, ErrorCode.RECORD_TOO_LARGE);
}

/** `encodeBatch` (checked/batch-functions.ts), its `crc32c` option checked by `check`. */
export function encodeBatchWith(
  check: Crc32cCheck,
  records: readonly RecordInput[],
  options: EncodeBatchOptions,
): Uint8Array {
  return encodeSnapshots(snapshotRecords(records), options, CompressionCodec.NONE, check);
}

/** `encodeBatch` (and the gzip encoder's uncompressed pass) of records already read by `snapshotRecords`. */
function encodeSnapshots(
  records: readonly RecordSnapshot[],
  options: EncodeBatchOptions,
  codec: number,
  check: Crc32cCheck,
): Uint8Array {
  return encodeChecked(records, checkedOptions(options, records.length, check), codec, freshBytes).bytes;
}

/** A batch just encoded, and its header as written (built from what the encoder wrote, never parsed back). */
export interface EncodedBatch {
  readonly bytes: Uint8Array;
  readonly header: BatchHeader;
}

/**
 * The log's append encoder (log/write/log-append.ts): `encodeBatch` of records already read by
 * `snapshotRecords` (the log takes the snapshot when `append` is called), uncompressed,
 * at `baseOffset` with `timestamp` for records without one, minus the public option checks: the
 * log checked its own `maxBatchBytes` and `crc32c` once, when it opened (resolveLogOptions), and
 * the offset and time are its own (its end offset, its checked clock). Hands back the header as
 * written, so the append never parses back what it just encoded. `allocate` gives the batch's
 * memory: the log's reuses memory between writes (write-memory.ts); it must not call the encoder
 * again (the sizes scratch below is in use while it runs).
 */
export function encodeAppendBatch(
  records: readonly RecordSnapshot[],
  baseOffset: number,
  timestamp: number,
  log: { readonly maxBatchBytes: number; readonly crc32c: Crc32c | undefined },
  allocate: (size: number) => Uint8Array,
): EncodedBatch {
  if (!(records.length > 0 && Number.isSafeInteger(baseOffset) && baseOffset >= 0 && Number.isSafeInteger(timestamp)))
    throw pagelogBug(`append batch of ${records.length} records at offset ${baseOffset}, time ${timestamp}`);
  if (baseOffset + records.length - 1 > Number.MAX_SAFE_INTEGER)
    throw new RangeError(`baseOffset must be at most ${Number.MAX_SAFE_INTEGER - (records.length - 1)}`);
  // Built as checkedOptions builds its result (same fields, same order): encodeChecked sees one shape.
  const checked: CheckedOptions = {
    crc32c: log.crc32c,
    isTransactional: false,
    isControl: false,
    baseOffset,
    partitionLeaderEpoch: NO_PARTITION_LEADER_EPOCH,
    producerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
    baseSequence: NO_SEQUENCE,
    defaultTimestamp: timestamp,
    maxBatchBytes: log.maxBatchBytes,
    logAppendTime: undefined,
  };
  return encodeChecked(records, checked, CompressionCodec.NONE, allocate);
}

/** Options as `checkedOptions` leaves them: every value checked and defaulted. */
type CheckedOptions = ReturnType<typeof checkedOptions>;

/** Encodes `records` with options already checked: sizes first, then every byte, then the CRC. */
function encodeChecked(
  records: readonly RecordSnapshot[],
  checked: CheckedOptions,
  codec: number,
  allocate: (size: number) => Uint8Array,
): EncodedBatch {
  const { defaultTimestamp, maxBatchBytes } = checked;

  // Timestamps: base = first record's, max = largest (each checked by snapshotRecords).
  const baseTimestamp = records[0]!.timestamp ?? defaultTimestamp;
  let maxTimestamp = baseTimestamp;
  for (let i = 1; i < records.length; i++) {
    const t = records[i]!.timestamp ?? defaultTimestamp;
    if (t > maxTimestamp) maxTimestamp = t;
  }

  // Pass 1: sizes (and every argument check), so pass 2 cannot fail half-way.
  const sizes = scratchSizes(SIZES_PER_RECORD * records.length);
  const recordsSize = sizeRecords(records, baseTimestamp, defaultTimestamp, sizes);
  const size = BATCH_HEADER_SIZE + recordsSize;
  if (size > maxBatchBytes) throw tooLarge(size, maxBatchBytes);
  if (size - LOG_OVERHEAD > MAX_BATCH_LENGTH) throw tooLarge(size, LOG_OVERHEAD + MAX_BATCH_LENGTH);

  // Pass 2: bytes. Every byte of the batch is written below, so `allocate` may hand out used memory.
  const bytes = allocate(size);
  if (bytes.length !== size) throw pagelogBug(`asked for ${size} bytes, got ${bytes.length}`);
  const header = headerOf(checked, codec, size, records.length, baseTimestamp, maxTimestamp);
  writeHeader(bytes, header);
  const end = writeRecords(bytes, RECORDS_OFFSET, records, baseTimestamp, defaultTimestamp, sizes);
  if (end !== size) throw pagelogBug(`batch sized ${size} bytes but wrote ${end}`);
  header.crc = writeCrc(bytes, checked.crc32c);
  return { bytes, header };
}

/** The header of the batch being encoded (its CRC still 0): what `writeHeader` writes, and the encoder hands over. */
function headerOf(
  checked: CheckedOptions,
  codec: number,
  size: number,
  count: number,
  baseTimestamp: number,
  maxTimestamp: number,
): BatchHeader {
  const { baseOffset, logAppendTime, isTransactional, isControl } = checked;
  let attributes = codec;
  if (logAppendTime !== undefined) attributes |= TIMESTAMP_TYPE_MASK;
  if (isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
  if (isControl) attributes |= CONTROL_FLAG_MASK;
  return {
    baseOffset,
    length: size - LOG_OVERHEAD,
    sizeInBytes: size,
    partitionLeaderEpoch: checked.partitionLeaderEpoch,
    magic: MAGIC_V2,
    crc: 0,
    attributes,
    compression: codec,
    isLogAppendTime: logAppendTime !== undefined,
    isTransactional,
    isControl,
    hasDeleteHorizon: false,
    lastOffsetDelta: count - 1,
    lastOffset: baseOffset + count - 1,
    baseTimestamp,
    maxTimestamp: logAppendTime ?? maxTimestamp,
    producerId: checked.producerId,
    producerEpoch: checked.producerEpoch,
    baseSequence: checked.baseSequence,
    recordsCount: count,
  };
}

/** Writes `header`'s fields (but the CRC, computed last) at the start of `bytes`. */
function writeHeader(bytes: Uint8Array, h: BatchHeader): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, h.sizeInBytes);
  writeInt64(view, BASE_OFFSET_OFFSET, h.baseOffset);
  view.setInt32(LENGTH_OFFSET, h.length);
  view.setInt32(PARTITION_LEADER_EPOCH_OFFSET, h.partitionLeaderEpoch);
  view.setInt8(MAGIC_OFFSET, h.magic);
  view.setInt16(ATTRIBUTES_OFFSET, h.attributes);
  view.setInt32(LAST_OFFSET_DELTA_OFFSET, h.lastOffsetDelta);
  writeInt64(view, BASE_TIMESTAMP_OFFSET, h.baseTimestamp);
  writeInt64(view, MAX_TIMESTAMP_OFFSET, h.maxTimestamp);
  writeInt64(view, PRODUCER_ID_OFFSET, h.producerId);
  view.setInt16(PRODUCER_EPOCH_OFFSET, h.producerEpoch);
  view.setInt32(BASE_SEQUENCE_OFFSET, h.baseSequence);
  view.setInt32(RECORDS_COUNT_OFFSET, h.recordsCount);
}

/** encodeSnapshots' options, each checked (a TypeError or RangeError naming it) and defaulted. */
function checkedOptions(options: EncodeBatchOptions, count: number, check: Crc32cCheck) {
  checkKnownKeys(options, "encodeBatch options (an object with baseOffset)", ENCODE_OPTIONS);
  check(options.crc32c, "options.crc32c");
  return {
    crc32c: options.crc32c,
    isTransactional: options.isTransactional === true,
    isControl: options.isControl === true,
    baseOffset: checkInteger(options.baseOffset, "baseOffset", 0, Number.MAX_SAFE_INTEGER - (count - 1)),
    partitionLeaderEpoch: optionalInteger(
      options.partitionLeaderEpoch,
      "partitionLeaderEpoch",
      -0x80000000,
      0x7fffffff,
      NO_PARTITION_LEADER_EPOCH,
    ),
    producerId: optionalInteger(
      options.producerId,
      "producerId",
      Number.MIN_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
      NO_PRODUCER_ID,
    ),
    producerEpoch: optionalInteger(options.producerEpoch, "producerEpoch", INT16_MIN, INT16_MAX, NO_PRODUCER_EPOCH),
    baseSequence: optionalInteger(options.baseSequence, "baseSequence", -0x80000000, 0x7fffffff, NO_SEQUENCE),
    defaultTimestamp:
      options.timestamp === undefined
        ? Date.now()
        : checkInteger(options.timestamp, "timestamp", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    maxBatchBytes: optionalInteger(
      options.maxBatchBytes,
      "maxBatchBytes",
      1,
      Number.MAX_SAFE_INTEGER,
      Number.POSITIVE_INFINITY,
    ),
    logAppendTime:
      options.logAppendTime === undefined
        ? undefined
        : checkInteger(options.logAppendTime, "logAppendTime", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  };
}

function freshBytes(size: number): Uint8Array {
  return new Uint8Array(size);
}

/**
 * The sizes array of the encode in progress, reused: a fresh Int32Array of 300 costs 2.4 µs
 * (measured), a tenth of encoding 100 small records. Safe to share: it lives only between
 * `sizeRecords` and `writeRecords`, one synchronous step that calls no code of the caller's.
 */
let sizesScratch = new Int32Array(SIZES_PER_RECORD * 1024);
/** Records of a batch above which its sizes get an array of their own (not kept). */
const SCRATCH_MAX = SIZES_PER_RECORD * 65_536;

function scratchSizes(length: number): Int32Array {
  if (length <= sizesScratch.length) return sizesScratch;
  if (length > SCRATCH_MAX) return new Int32Array(length);
  sizesScratch = new Int32Array(Math.min(SCRATCH_MAX, 2 * length));
  return sizesScratch;
}

/** Computes the CRC-32C of [21, end), stores it at 17 and returns it. */
function writeCrc(bytes: Uint8Array, crc32c: Crc32c | undefined): number {
  const crc = (crc32c ?? defaultCrc32c)(bytes.subarray(CRC_COVERED_START)) >>> 0;
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(CRC_OFFSET, crc);
  return crc;
}

/** `encodeBatchAsync` (checked/batch-functions.ts), its `crc32c` option checked by `check`. */
export async function encodeBatchAsyncWith(
  check: Crc32cCheck,
  records: readonly RecordInput[],
  options: EncodeBatchAsyncOptions,
): Promise<Uint8Array> {
  checkKnownKeys(options, "encodeBatchAsync options (an object with baseOffset)", [...ENCODE_OPTIONS, "compression"]);
  // encodeBatch takes every option but this one.
  const { compression = "none", ...rest } = options;
  if (compression === "none") return encodeBatchWith(check, records, rest);
  if (compression !== "gzip")
    throw new TypeError(`options.compression must be "none" or "gzip", got ${String(compression)}`);
  // The limit applies to the compressed batch (below), not to the plain one.
  const { maxBatchBytes: _limit, ...unlimited } = rest;
  const plain = encodeSnapshots(snapshotRecords(records), unlimited, CompressionCodec.GZIP, check);
  const compressed = await (await loadGzip()).gzip(plain.subarray(RECORDS_OFFSET));
  const size = BATCH_HEADER_SIZE + compressed.length;
  const maxBatchBytes = optionalInteger(
    options.maxBatchBytes,
    "maxBatchBytes",
    1,
    Number.MAX_SAFE_INTEGER,
    Number.POSITIVE_INFINITY,
  );
  if (size > maxBatchBytes) throw tooLarge(size, maxBatchBytes);
  const bytes = new Uint8Array(size);
  bytes.set(plain.subarray(0, RECORDS_OFFSET));
  bytes.set(compressed, RECORDS_OFFSET);
  new DataView(bytes.buffer).setInt32(LENGTH_OFFSET, size - LOG_OVERHEAD);
  writeCrc(bytes, options.crc32c);
  return bytes;
}

/** Header, whole-batch presence and CRC checks shared by both decoders. */
function checkedHeader(bytes: Uint8Array, options: DecodeBatchOptions | undefined, check: Crc32cCheck): BatchHeader {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
  if (options !== undefined) checkKnownKeys(options, "decodeBatch options", DECODE_OPTIONS);
  check(options?.crc32c, "options.crc32c");
  const header = readBatchHeader(bytes, 0);
  if (bytes.length < header.sizeInBytes) {
    throw corrupt(`batch is short: ${bytes.length} of ${header.sizeInBytes} bytes`);
  }
  if (options?.verifyCrc !== false) {
    const computed = (options?.crc32c ?? defaultCrc32c)(bytes.subarray(CRC_COVERED_START, header.sizeInBytes)) >>> 0;
    if (computed !== header.crc) {
      throw corrupt(
        `batch at offset ${header.baseOffset} has CRC 0x${header.crc.toString(16)}, computed 0x${computed.toString(16)}`,
      );
    }
  }
  if (header.compression > CompressionCodec.ZSTD) {
    throw corrupt(`batch at offset ${header.baseOffset} has unknown compression codec ${header.compression}`);
  }
  return header;
}

/** `decodeBatchSync` (checked/batch-functions.ts), its `crc32c` option checked by `check`. */
export function decodeBatchSyncWith(check: Crc32cCheck, bytes: Uint8Array, options?: DecodeBatchOptions): DecodedBatch {
  const header = checkedHeader(bytes, options, check);
  if (header.compression !== CompressionCodec.NONE) {
    throw unsupported(header, header.compression === CompressionCodec.GZIP ? "; decodeBatch (async) reads gzip" : "");
  }
  return { ...header, records: readRecords(bytes, RECORDS_OFFSET, header.sizeInBytes, header) };
}

/** `decodeBatch` (checked/batch-functions.ts), its `crc32c` option checked by `check`. */
export async function decodeBatchWith(
  check: Crc32cCheck,
  bytes: Uint8Array,
  options?: DecodeBatchOptions,
): Promise<DecodedBatch> {
  const header = checkedHeader(bytes, options, check);
  if (header.compression === CompressionCodec.NONE) {
    return { ...header, records: readRecords(bytes, RECORDS_OFFSET, header.sizeInBytes, header) };
  }
  if (header.compression !== CompressionCodec.GZIP) throw unsupported(header, "");
  return (await loadCompressed()).decodeCompressed(bytes, header, options?.maxDecompressedBytes);
}

/**
 * The log's reads' decoder (log/read/log-read.ts): `decodeBatch` of a batch a segment handed out,
 * whose CRC it checked (`verifyCrc: false`), minus the public argument and option checks (the
 * bytes are the log's own, the options none). A compressed batch (a log copied from Kafka's
 * holds them; pagelog's own appends write none) goes through the door to the compressed batches'
 * part, which fails it as `decodeBatch` does (an unknown codec, snappy, lz4 or zstd) or gunzips
 * it: a synchronous result for the uncompressed batches every plain log reads.
 */
export function decodeLogBatch(bytes: Uint8Array): DecodedBatch | Promise<DecodedBatch> {
  const header = readBatchHeader(bytes, 0);
  if (bytes.length < header.sizeInBytes)
    throw corrupt(`batch is short: ${bytes.length} of ${header.sizeInBytes} bytes`);
  if (header.compression !== CompressionCodec.NONE)
    return loadCompressed().then((part) => part.decodeCompressed(bytes, header, undefined));
  return { ...header, records: readRecords(bytes, RECORDS_OFFSET, header.sizeInBytes, header) };
}
