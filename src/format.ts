/**
 * pagelog/format: Kafka's on-disk format, for tools that read or write Kafka files directly
 * (a dump, a verifier, a converter) rather than through a `Log`: record batch v2 (encode, decode,
 * validate, CRC-32C), segment files with their offset and time indexes, segment file names and
 * the offset checkpoint files. Browser-safe (no `node:` import). docs/entry-points.md lists each
 * export; docs/format.md describes the bytes.
 */

// Record batches.
export { decodeBatch, decodeBatchSync, encodeBatch, encodeBatchAsync } from "./format/api.js";
export type { DecodeBatchOptions, DecodedBatch, EncodeBatchAsyncOptions, EncodeBatchOptions } from "./format/api.js";
export type { BytesInput, DecodedHeader, DecodedRecord, HeadersInput, RecordInput } from "./format/api.js";
export { readBatchHeader, validateBatch } from "./format/api.js";
export type { BatchHeader, BatchValidation, InvalidBatchReason, ValidateBatchOptions } from "./format/api.js";
export { crc32c, crc32cInUse } from "./format/api.js";
export type { Crc32c, Crc32cInUse } from "./format/api.js";
// Moves to `pagelog/course` with the varint exercise (a later issue).
export { writeVarint } from "./format/api.js";

// Segments: a `.log` file with its `.index` and `.timeindex`, and their names.
export { Segment } from "./segment/segment.js";
export type { RecoverOptions, SegmentOptions, SegmentRead, SegmentRecovery } from "./segment/segment.js";
export type { IndexFile } from "./segment/index-file.js";
export { OffsetIndex } from "./segment/offset-index.js";
export type { OffsetPosition } from "./segment/offset-index.js";
export { TimeIndex } from "./segment/time-index.js";
export type { TimestampOffset } from "./segment/time-index.js";
export type { ScanStop, ScanStopReason } from "./segment/batch-scanner.js";
// SegmentOptions.policies and OffsetIndex.open take them (pagelog/course exports them too).
export type { CoursePolicies, IndexEntry } from "./policies/policy-types.js";
export { offsetName, parseSegmentFileName } from "./segment/segment-names.js";

// The offset checkpoint files of a log directory (`recovery-point-offset-checkpoint`, …).
export { decodeCheckpoint, encodeCheckpoint } from "./format/checkpoint.js";
export type { CheckpointEntry } from "./format/checkpoint.js";
// The consumer positions file (`consumer-offset-checkpoint`).
export { decodeConsumerOffsets, encodeConsumerOffsets } from "./format/consumer-offsets.js";
export type { ConsumerOffsetEntry } from "./format/consumer-offsets.js";
