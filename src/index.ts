/**
 * pagelog: an append-only, segmented log in Kafka's on-disk format that comes back from a power
 * cut as a valid prefix of what was written.
 *
 * The root entry: what a user of the log needs, with no `node:` import, so it bundles for a
 * browser. In Node the package root is `src/node.ts` instead (the `node` export condition):
 * this plus `FsStorage` and `LogDir.open(path)`. Codecs and segment files for tools are in
 * `pagelog/format` (`src/format.ts`). docs/entry-points.md lists every export of every entry.
 */

// Errors.
export { ErrorCode, PagelogError, isPagelogError } from "./errors.js";
export type { PagelogErrorOptions, PolicyFault } from "./errors.js";

// The log.
export { LogDir, parsePartitionName } from "./log/log-dir.js";
export type { LogDirOptions, LogDirRecovery, RecoveryProgress } from "./log/log-dir.js";
export { Consumer } from "./log/consumers/consumer.js";
export type { ConsumerPosition, ConsumerPositionState } from "./log/consumers/consumer.js";
export { Log } from "./log/log.js";
export { Topic } from "./log/topic/topic.js";
export type { TopicRecord, TopicRecordInput, TopicRecordMetadata, TopicRecordsOptions } from "./log/topic/topic.js";
export type { TopicOptions } from "./log/topic/dir-topics.js";
export { TopicConsumer } from "./log/topic/topic-consumer.js";
export { TypedLog, typedLog } from "./log/topic/typed-log.js";
export type { TypedRecord, TypedRecordInput } from "./log/topic/typed-records.js";
export type { FieldInput, RecordSerde, Serde, SerdeSpec } from "./log/topic/serde.js";
export { murmur2, partitionForKey } from "./log/topic/murmur2.js";
export type {
  CompactionResult,
  Isolation,
  LogRecord,
  LogRecovery,
  LogStatus,
  NothingCleanedReason,
  ReadBatchesOptions,
  ReadOptions,
  RecordsOptions,
  WaitOptions,
} from "./log/log.js";
export type {
  CleanupPolicy,
  CleanupPolicyInput,
  Clock,
  LogOptions,
  ResolvedLogOptions,
} from "./log/options/log-options.js";
export { crc32cInUse } from "./format/index.js";
export type {
  BytesInput,
  Crc32c,
  Crc32cInUse,
  DecodedHeader,
  DecodedRecord,
  HeadersInput,
  RecordInput,
} from "./format/index.js";
// LogOptions.policies takes them; pagelog/course exports them too, with the course's helpers.
export type {
  CoursePolicies,
  IndexEntry,
  RecoverHelpers,
  RetentionConfig,
  RetentionSegment,
} from "./policies/policy-types.js";
// Moves to `pagelog/course` with the retention exercise (a later issue).
export { retentionDeleteCount } from "./log/policies/retention.js";
/**
 * The earlier name of {@link retentionDeleteCount}, kept so code written against it still runs.
 *
 * @deprecated Use `retentionDeleteCount`; the course's exercise of this name is
 * `kafkaPolicies.segmentsToDelete` in `pagelog/course`, with the course's shape.
 */
export { retentionDeleteCount as segmentsToDelete } from "./log/policies/retention.js";
export type { RetentionLimits, SegmentSummary } from "./log/policies/retention.js";

// Storage: the interface, the pool every LogDir reads and writes through, and the simulator.
export type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage/storage.js";
export { normalizePath } from "./storage/paths.js";
export { HandlePool, DEFAULT_MAX_OPEN_FILES } from "./storage/handle-pool.js";
export type { HandlePoolOptions, HandlePoolStats } from "./storage/handle-pool.js";
export { SimStorage, keepEverything, keepNothing, randomChooser } from "./storage/sim-storage.js";
export type {
  ByteRange,
  CrashChooser,
  CrashReport,
  FaultSpec,
  FileMap,
  PageFate,
  PendingState,
  RandomSource,
  SimOp,
  SimStorageOptions,
  ResolvedSimStorageOptions,
  TraceEvent,
} from "./storage/sim-storage.js";
