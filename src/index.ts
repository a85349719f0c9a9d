/**
 * pagelog: an append-only, segmented log in Kafka's on-disk format that comes back from a power
 * cut as a valid prefix of what was written.
 */
export { ErrorCode, PagelogError, isPagelogError } from "./errors.js";
export type { ErrorCode as ErrorCodeValue, PagelogErrorOptions } from "./errors.js";
export type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage/storage.js";
export { normalizePath } from "./storage/paths.js";
export { FsStorage } from "./storage/fs-storage.js";
export { HandlePool, DEFAULT_MAX_OPEN_FILES } from "./storage/handle-pool.js";
export type { HandlePoolOptions, HandlePoolStats } from "./storage/handle-pool.js";
export { SimStorage, keepEverything, keepNothing, randomChooser } from "./storage/sim-storage.js";
export type {
  ByteRange,
  CrashChooser,
  FaultSpec,
  FileMap,
  PageFate,
  PendingState,
  SimOp,
  SimStorageOptions,
  TraceEvent,
} from "./storage/sim-storage.js";

// The log.
export { LogDir, parsePartitionName } from "./log/log-dir.js";
export type { LogDirOptions, LogDirRecovery } from "./log/log-dir.js";
export { Log } from "./log/log.js";
export type { LogHost, LogRecord, LogRecovery, LogStatus, ReadOptions, RecordsOptions } from "./log/log.js";
export type { Clock, LogOptions } from "./log/log-options.js";
export { segmentsToDelete } from "./log/retention.js";
export type { RetentionLimits, SegmentSummary } from "./log/retention.js";

// Segments and the on-disk format, for tools that read Kafka files directly.
export { Segment } from "./segment/segment.js";
export type { SegmentOptions, SegmentRead, SegmentRecovery } from "./segment/segment.js";
export { OffsetIndex } from "./segment/offset-index.js";
export { TimeIndex } from "./segment/time-index.js";
export { offsetName, parseSegmentFileName } from "./segment/segment-names.js";
export {
  crc32c,
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  encodeBatchAsync,
  readBatchHeader,
  validateBatch,
  writeVarint,
} from "./format/index.js";
export type { BatchHeader, BatchValidation, Crc32c, DecodedBatch, DecodedRecord, RecordInput } from "./format/index.js";
export { decodeCheckpoint, encodeCheckpoint } from "./format/checkpoint.js";
export type { CheckpointEntry } from "./format/checkpoint.js";
