/**
 * Reading and validating the fixed 61-byte header of a record batch v2 (layout in
 * `batch-layout.ts`), without touching the records.
 */
import { corruptError as corrupt } from "../errors.js";
import { optionKeys } from "../options.js";
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_HEADER_SIZE,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_COVERED_START,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  HEADER_SIZE_UP_TO_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  MIN_BATCH_LENGTH,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from "./batch-layout.js";
import { crc32c as defaultCrc32c } from "./crc32c.js";
import type { Crc32c } from "./crc32c.js";

/** 2^32, to join the halves of an int64. */
const TWO_POW_32 = 4294967296;
/** Bytes of one int32 half of an int64. */
const INT32_SIZE = 4;

/** Every field of a batch header, plus a few values derived from them. */
export interface BatchHeader {
  /** Offset of the first record (int64, within `Number.MAX_SAFE_INTEGER`). */
  baseOffset: number;
  /** The Length field: bytes after it. */
  length: number;
  /** Whole batch size on disk: `LOG_OVERHEAD + length`. */
  sizeInBytes: number;
  /** PartitionLeaderEpoch: the leader epoch it was written in (-1 unknown). */
  partitionLeaderEpoch: number;
  /** Magic: the format version, always 2 here. */
  magic: number;
  /** Stored CRC-32C, unsigned. */
  crc: number;
  /** Raw attributes int16. */
  attributes: number;
  /** Compression codec id (attribute bits 0-2), see `CompressionCodec`. */
  compression: number;
  /** Attribute bit 3: every record's timestamp is `maxTimestamp`. */
  isLogAppendTime: boolean;
  /** Attribute bit 4. */
  isTransactional: boolean;
  /** Attribute bit 5. */
  isControl: boolean;
  /** Attribute bit 6: `baseTimestamp` holds the delete horizon. */
  hasDeleteHorizon: boolean;
  /** LastOffsetDelta: the last record's offset minus `baseOffset`. */
  lastOffsetDelta: number;
  /** `baseOffset + lastOffsetDelta`: the offset the next batch starts after. */
  lastOffset: number;
  /** BaseTimestamp: the first record's timestamp (ms since the epoch). */
  baseTimestamp: number;
  /** MaxTimestamp: the largest record timestamp (or the LogAppendTime). */
  maxTimestamp: number;
  /** ProducerId (-1: no idempotent producer). */
  producerId: number;
  /** ProducerEpoch (-1 when none). */
  producerEpoch: number;
  /** BaseSequence: the first record's sequence number (-1 when none). */
  baseSequence: number;
  /** RecordsCount: how many records the batch holds. */
  recordsCount: number;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Reads a big-endian int64 as a number; `PAGELOG_CORRUPT` if it is not a safe integer. */
export function readInt64(view: DataView, offset: number, field: string): number {
  const value = view.getInt32(offset) * TWO_POW_32 + view.getUint32(offset + INT32_SIZE);
  if (!Number.isSafeInteger(value)) {
    throw corrupt(`batch ${field} at byte ${offset} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return value;
}

/** Writes a safe integer as a big-endian int64. */
export function writeInt64(view: DataView, offset: number, value: number): void {
  const hi = Math.floor(value / TWO_POW_32);
  view.setInt32(offset, hi);
  view.setUint32(offset + INT32_SIZE, value - hi * TWO_POW_32);
}

/**
 * Reads the header of the batch starting at `position`. Checks only what is needed for the
 * fields to mean anything: 61 bytes present, magic 2, Length at least a header's worth, int64
 * fields within `Number.MAX_SAFE_INTEGER`. It does not check the CRC: see {@link validateBatch}.
 *
 * @throws PagelogError `PAGELOG_CORRUPT` when any of those checks fails.
 */
export function readBatchHeader(bytes: Uint8Array, position = 0): BatchHeader {
  checkPosition(position);
  if (bytes.length - position < BATCH_HEADER_SIZE) {
    throw corrupt(
      `batch header at byte ${position} is short: ${Math.max(0, bytes.length - position)} of ${BATCH_HEADER_SIZE} bytes`,
    );
  }
  const view = viewOf(bytes);
  const p = position;
  const magic = view.getInt8(p + MAGIC_OFFSET);
  if (magic !== MAGIC_V2) throw corrupt(`batch at byte ${position} has magic ${magic}, expected ${MAGIC_V2}`);
  const length = view.getInt32(p + LENGTH_OFFSET);
  if (length < MIN_BATCH_LENGTH) {
    throw corrupt(`batch at byte ${position} has length ${length}, smaller than a header (${MIN_BATCH_LENGTH})`);
  }
  const baseOffset = readInt64(view, p + BASE_OFFSET_OFFSET, "baseOffset");
  const attributes = view.getInt16(p + ATTRIBUTES_OFFSET);
  const lastOffsetDelta = view.getInt32(p + LAST_OFFSET_DELTA_OFFSET);
  const lastOffset = baseOffset + lastOffsetDelta;
  if (!Number.isSafeInteger(lastOffset))
    throw corrupt(`batch at byte ${position}: last offset beyond Number.MAX_SAFE_INTEGER`);
  return {
    baseOffset,
    length,
    sizeInBytes: LOG_OVERHEAD + length,
    partitionLeaderEpoch: view.getInt32(p + PARTITION_LEADER_EPOCH_OFFSET),
    magic,
    crc: view.getUint32(p + CRC_OFFSET),
    attributes,
    compression: attributes & COMPRESSION_CODEC_MASK,
    isLogAppendTime: (attributes & TIMESTAMP_TYPE_MASK) !== 0,
    isTransactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: (attributes & DELETE_HORIZON_FLAG_MASK) !== 0,
    lastOffsetDelta,
    lastOffset,
    baseTimestamp: readInt64(view, p + BASE_TIMESTAMP_OFFSET, "baseTimestamp"),
    maxTimestamp: readInt64(view, p + MAX_TIMESTAMP_OFFSET, "maxTimestamp"),
    producerId: readInt64(view, p + PRODUCER_ID_OFFSET, "producerId"),
    producerEpoch: view.getInt16(p + PRODUCER_EPOCH_OFFSET),
    baseSequence: view.getInt32(p + BASE_SEQUENCE_OFFSET),
    recordsCount: view.getInt32(p + RECORDS_COUNT_OFFSET),
  };
}

/**
 * Why {@link validateBatch} rejected a batch.
 *
 * - `short-header`: fewer than 17 bytes (up to and including magic) are available: a torn tail.
 * - `too-small`: Length is smaller than a batch header (includes a negative Length).
 * - `too-large`: the batch (12 + Length) is larger than `maxBatchBytes`.
 * - `short`: the batch extends past the bytes available: a torn tail.
 * - `bad-magic`: magic is not 2.
 * - `bad-crc`: the stored CRC-32C does not match bytes [21, 12 + Length).
 */
export type InvalidBatchReason = "short-header" | "too-small" | "too-large" | "short" | "bad-magic" | "bad-crc";

/** The result of {@link validateBatch}; `size` is the whole batch size (12 + Length). */
export type BatchValidation = { ok: true; size: number } | { ok: false; reason: InvalidBatchReason; detail: string };

/** Options of `validateBatch`: the size limit (required) and the CRC-32C. */
export interface ValidateBatchOptions {
  /**
   * Largest acceptable whole batch, 12-byte log overhead included (Kafka's
   * `max.message.bytes`, whose default is 1048588).
   */
  maxBatchBytes: number;
  /** CRC-32C implementation. @defaultValue the bundled pure-JS one */
  crc32c?: Crc32c;
}

/** @internal The keys `validateBatch` (checked/batch-functions.ts) knows. */
export const VALIDATE_OPTIONS = /* @__PURE__ */ optionKeys<ValidateBatchOptions>({ maxBatchBytes: true, crc32c: true });

function invalid(reason: InvalidBatchReason, detail: string): BatchValidation {
  return { ok: false, reason, detail };
}

function checkPosition(position: number): void {
  if (!Number.isInteger(position) || position < 0) {
    throw new RangeError(`position must be a non-negative integer, got ${position}`);
  }
}

/**
 * `validateBatch` trusting `options.crc32c` to be CRC-32C: for the segment's batch scanner, whose
 * function is either a checked one or its stand-in that skips the CRC (`verifyCrc: false`).
 */
export function validateBatchTrusting(
  bytes: Uint8Array,
  position: number,
  available: number,
  options: ValidateBatchOptions,
): BatchValidation {
  checkPosition(position);
  const { maxBatchBytes } = options;
  if (typeof maxBatchBytes !== "number" || !(maxBatchBytes >= 0)) {
    throw new TypeError(`options.maxBatchBytes must be a non-negative number, got ${String(maxBatchBytes)}`);
  }
  const avail = Math.max(0, Math.min(available, bytes.length - position));
  if (avail < HEADER_SIZE_UP_TO_MAGIC) {
    return invalid(
      "short-header",
      `${avail} bytes available at ${position}, a batch header needs ${HEADER_SIZE_UP_TO_MAGIC} to reach magic`,
    );
  }
  const view = viewOf(bytes);
  const length = view.getInt32(position + LENGTH_OFFSET);
  if (length < MIN_BATCH_LENGTH) {
    return invalid(
      "too-small",
      `batch at ${position} has length ${length}, smaller than a header (${MIN_BATCH_LENGTH})`,
    );
  }
  const size = LOG_OVERHEAD + length;
  if (size > maxBatchBytes) {
    return invalid("too-large", `batch at ${position} is ${size} bytes, more than maxBatchBytes ${maxBatchBytes}`);
  }
  if (size > avail) {
    return invalid("short", `batch at ${position} is ${size} bytes, only ${avail} available`);
  }
  const magic = view.getInt8(position + MAGIC_OFFSET);
  if (magic !== MAGIC_V2) {
    return invalid("bad-magic", `batch at ${position} has magic ${magic}, expected ${MAGIC_V2}`);
  }
  const stored = view.getUint32(position + CRC_OFFSET);
  const computed =
    (options.crc32c ?? defaultCrc32c)(bytes.subarray(position + CRC_COVERED_START, position + size)) >>> 0;
  if (stored !== computed) {
    return invalid("bad-crc", `batch at ${position} has CRC ${hex32(stored)}, computed ${hex32(computed)}`);
  }
  return { ok: true, size };
}

function hex32(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}
