/**
 * pagelog: an append-only, segmented log in Kafka's on-disk format that comes back from a power
 * cut as a valid prefix of what was written.
 */
export { ErrorCode, PagelogError, isPagelogError } from "./errors.js";
export type { ErrorCode as ErrorCodeValue, PagelogErrorOptions } from "./errors.js";
export type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage/storage.js";
export { normalizePath } from "./storage/paths.js";
export { FsStorage } from "./storage/fs-storage.js";
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
