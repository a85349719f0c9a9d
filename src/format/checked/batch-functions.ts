/*
 * The public batch functions of pagelog/format (and the root), each checking its arguments,
 * including a `crc32c` option's known answers (check-crc32c.ts), before the codec
 * (record-batch.ts, batch-header.ts) runs. They live apart from the codec so that the modules
 * every log loads do not import the known-answer check: a bundler that splits keeps each module a
 * loaded module imports statically loaded too, whether its code runs or not, so the check would
 * load with every log. pagelog's own parts that call these (the loader, the cleaner, truncation,
 * the lookups by time, the transaction walk, the follower) are lazy parts themselves; a log's
 * appends and reads call the codec directly, its options checked once at its open.
 */
import { checkKnownKeys } from "../../options.js";
import {
  type BatchValidation,
  VALIDATE_OPTIONS,
  type ValidateBatchOptions,
  validateBatchTrusting,
} from "../batch-header.js";
import {
  type Crc32cCheck,
  type DecodeBatchOptions,
  type DecodedBatch,
  decodeBatchSyncWith,
  decodeBatchWith,
  type EncodeBatchAsyncOptions,
  type EncodeBatchOptions,
  encodeBatchAsyncWith,
  encodeBatchWith,
} from "../record-batch.js";
import type { RecordInput } from "../record-codec.js";
import { checkCrc32c } from "./check-crc32c.js";

/** What the codec runs on a `crc32c` option: here, the known-answer check. */
const CHECK: Crc32cCheck = checkCrc32c;

/**
 * Encodes `records` into one uncompressed record batch v2, ready to append to a `.log` file.
 * The batch's baseTimestamp is the first record's timestamp and maxTimestamp the largest
 * (as Kafka's producer writes them), so timestamp deltas may be negative.
 *
 * @throws TypeError/RangeError for bad arguments (empty `records`, non-integer offsets, …);
 *   PagelogError `PAGELOG_RECORD_TOO_LARGE` past `maxBatchBytes` or the int32 Length.
 */
export function encodeBatch(records: readonly RecordInput[], options: EncodeBatchOptions): Uint8Array {
  return encodeBatchWith(CHECK, records, options);
}

/**
 * {@link encodeBatch}, optionally gzip-compressed: the records section (everything after the
 * 61-byte header) is compressed as one gzip stream, as Kafka does.
 */
export function encodeBatchAsync(
  records: readonly RecordInput[],
  options: EncodeBatchAsyncOptions,
): Promise<Uint8Array> {
  return encodeBatchAsyncWith(CHECK, records, options);
}

/**
 * Decodes the uncompressed batch at the start of `bytes` (bytes after the batch are ignored).
 *
 * @throws PagelogError `PAGELOG_CORRUPT` (short, bad CRC, inconsistent records),
 *   `PAGELOG_UNSUPPORTED_COMPRESSION` for any compressed batch (use {@link decodeBatch} for gzip).
 */
export function decodeBatchSync(bytes: Uint8Array, options?: DecodeBatchOptions): DecodedBatch {
  return decodeBatchSyncWith(CHECK, bytes, options);
}

/**
 * Decodes the batch at the start of `bytes` (bytes after the batch are ignored): uncompressed or
 * gzip. Under LogAppendTime every record's timestamp is the batch's maxTimestamp.
 *
 * @throws PagelogError `PAGELOG_CORRUPT`, `PAGELOG_UNSUPPORTED_COMPRESSION` (snappy, lz4, zstd),
 *   `PAGELOG_RECORD_TOO_LARGE` (decompressed records beyond `maxDecompressedBytes`).
 */
export function decodeBatch(bytes: Uint8Array, options?: DecodeBatchOptions): Promise<DecodedBatch> {
  return decodeBatchWith(CHECK, bytes, options);
}

/**
 * Checks that a whole, intact batch starts at `position`, as Kafka's log reader and
 * `DefaultRecordBatch.ensureValid` do: enough bytes for the header up to magic, Length at least a
 * header, the batch within `maxBatchBytes` and within the `available` bytes, magic 2, CRC-32C.
 * Never throws for bad bytes and never allocates from the Length field (a huge Length is
 * rejected by arithmetic), so recovery can call it at every step of a walk.
 *
 * @param available - bytes from `position` that belong to the log (for example the segment's
 *   size minus `position`); clamped to what `bytes` holds.
 */
export function validateBatch(
  bytes: Uint8Array,
  position: number,
  available: number,
  options: ValidateBatchOptions,
): BatchValidation {
  checkKnownKeys(options, "validateBatch options", VALIDATE_OPTIONS);
  CHECK(options.crc32c, "options.crc32c");
  return validateBatchTrusting(bytes, position, available, options);
}
