/**
 * A Log's options: a public, all-optional type with Kafka's name for each setting, resolved once
 * into a fully-specified internal type (forgetting a default is a compile error there).
 */
import type { Crc32c } from "../../format/crc32c.js";
import type { Clock } from "./log-clock.js";
import type { CoursePolicies } from "../../policies/policy-types.js";
import type { CleanupPolicy, CleanupPolicyInput } from "./cleanup-policy.js";

export type { CleanupPolicy, CleanupPolicyInput } from "./cleanup-policy.js";

// Clock is part of the options' type: importers of LogOptions find it here too.
export type { Clock } from "./log-clock.js";

/**
 * How one partition's log behaves, each option with Kafka's topic-config name where it has one. Every option is
 * optional; an unknown key is a `TypeError` naming it and the known ones. `LogDirOptions.log` sets defaults for every
 * log of a directory; `LogDir.log(name, options)` overrides them.
 */
export interface LogOptions {
  /**
   * Roll to a new segment when the active one would grow past this many bytes
   * (Kafka: `segment.bytes`). At least one batch always goes into a new segment.
   * @defaultValue 1 GiB (1073741824)
   */
  segmentBytes?: number;
  /**
   * Roll when the active segment is older than this (Kafka: `segment.ms`), measured from when it
   * was created or, after a restart, reopened. Elapsed time, as `flushMs`: a wall clock set
   * back does not hold a roll off.
   * @defaultValue 7 days (604800000)
   */
  segmentMs?: number;
  /**
   * Bytes between sparse index entries (Kafka: `index.interval.bytes`).
   * @defaultValue 4096
   */
  indexIntervalBytes?: number;
  /**
   * Largest index file; the log rolls when an index is full (Kafka: `segment.index.bytes`).
   * @defaultValue 10 MiB (10485760)
   */
  maxIndexBytes?: number;
  /**
   * Largest batch including its 12-byte log overhead (Kafka: `max.message.bytes`). A larger
   * append fails with `PAGELOG_RECORD_TOO_LARGE` and appends nothing. At least 68: the smallest
   * batch (its 61-byte header and one empty record).
   * @defaultValue 1048588
   */
  maxBatchBytes?: number;
  /**
   * Bytes of old segments' index entries kept in memory after reads, least recently used first
   * (the active segment's are always in memory). Random lookups over a log of many small
   * segments find their indexes here; a large log costs memory only for what is read.
   * @defaultValue 8 MiB (8388608)
   */
  indexCacheBytes?: number;
  /**
   * Flush after this many records were appended since the last flush (Kafka:
   * `flush.messages`). `-1` is off: durability is left to the page cache, as Kafka's default.
   * @defaultValue -1
   */
  flushMessages?: number;
  /**
   * Flush when this many milliseconds passed since the last flush (Kafka: `flush.ms`), checked
   * at every append and by a timer that re-arms only after its flush finished (so a slow disk
   * never builds a queue of flushes). `0` flushes at every append, with no timer. `-1` is off.
   * Elapsed time, not the wall clock: setting the system clock back (or an injected clock
   * going back) does not hold flushes off.
   * @defaultValue -1
   */
  flushMs?: number;
  /**
   * Delete the oldest whole segments while the log is larger than this (Kafka:
   * `retention.bytes`). `-1` is off. Never the active segment.
   * @defaultValue -1
   */
  retentionBytes?: number;
  /**
   * Delete the oldest whole segments whose newest record is older than this (Kafka:
   * `retention.ms`, whose default is 7 days). `-1` is off: an embedded log is often the only
   * copy of its data, so pagelog deletes nothing unless asked. Never the active segment.
   * @defaultValue -1
   */
  retentionMs?: number;
  /**
   * How often retention (`retentionBytes`, `retentionMs`) and the background cleaner's due check
   * run without a roll (Kafka: `log.retention.check.interval.ms`, the broker's setting, here per
   * log), in elapsed milliseconds since retention last ran (a wall clock set back does not hold
   * it off). A timer on the system clock only, unref'd, stopped at close, and only for a log it has
   * work for (retention on, or a policy that compacts); with an injected clock retention runs at
   * each roll and on `applyRetention()` alone. `-1` is off. At most
   * 2147483647 (setTimeout's limit).
   * @defaultValue 5 minutes (300000)
   */
  retentionCheckIntervalMs?: number;
  /**
   * What happens to old segments (Kafka: `cleanup.policy`): `"delete"` (retention by
   * `retentionBytes` / `retentionMs`), `"compact"` (the log cleaner keeps the latest record of
   * every key: docs/compaction.md), or both, written `"compact,delete"` (any order) or
   * `["compact", "delete"]`. A compacted log refuses a record without a key. Retention applies only
   * with `"delete"` in the policy, as in Kafka.
   * @defaultValue "delete"
   */
  cleanupPolicy?: CleanupPolicyInput;
  /**
   * Clean only when the dirty part (the records after the clean point) is at least this fraction
   * of the cleanable log (Kafka: `min.cleanable.dirty.ratio`), in [0, 1]. `compact()` cleans
   * whatever the ratio; the background cleaning after a roll waits for it.
   * @defaultValue 0.5
   */
  minCleanableDirtyRatio?: number;
  /**
   * How long a tombstone (a record with a null value) outlives the cleaning that first reached it
   * (Kafka: `delete.retention.ms`): a consumer reading from the start within that time sees the
   * delete. See docs/compaction.md for the clock pagelog measures it by.
   * @defaultValue 1 day (86400000)
   */
  deleteRetentionMs?: number;
  /**
   * A record stays uncompacted for at least this long after its timestamp (Kafka:
   * `min.compaction.lag.ms`): the cleaner stops before the first segment holding a younger record.
   * @defaultValue 0
   */
  minCompactionLagMs?: number;
  /**
   * A dirty segment whose oldest record is older than this is cleaned in the background whatever
   * the dirty ratio (Kafka: `max.compaction.lag.ms`), checked at each roll or flush and, with the
   * system clock, by a timer. `-1` is off. At least `minCompactionLagMs`.
   * @defaultValue -1
   */
  maxCompactionLagMs?: number;
  /**
   * The most memory the cleaner's key → latest offset map may take, in bytes, each key counted
   * as its length plus 48 (Kafka: `log.cleaner.dedupe.buffer.size`). When it fills, a cleaning
   * stops at the batch where it filled and the next one goes on from there (the clean point
   * moves part of the way). A single batch is always taken, so a cleaning always progresses.
   * @defaultValue 128 MiB (134217728)
   */
  cleanerDedupeBufferBytes?: number;
  /**
   * Whether a compacted log cleans itself in the background when `minCleanableDirtyRatio` or
   * `maxCompactionLagMs` says so (Kafka: `log.cleaner.enable`). `false` leaves cleaning to
   * `compact()` alone.
   * @defaultValue true
   */
  backgroundCleaning?: boolean;
  /**
   * A faster CRC-32C (for example a native one): a synchronous function returning the checksum
   * as a number. Checked when the options are resolved against known vectors (the CRC-32C of
   * `"123456789"` is `0xE3069283`): anything else, plain CRC-32 included, is a `TypeError`,
   * because every batch would be written with it.
   * @defaultValue the bundled pure-JS one
   */
  crc32c?: Crc32c;
  /**
   * The time source, for tests. With an injected clock, `flushMs` is checked at each append
   * only (no background timer), so real time never decides what a test sees. A `now()` that
   * throws, or returns anything but a safe integer, fails that call with a `TypeError` (the
   * log stays open).
   * @defaultValue Date.now
   */
  clock?: Clock;
  /**
   * The course's four storage exercises ("Build your own Kafka"; `pagelog/course`), a reader's
   * versions in place of pagelog's: `writeVarint` in appends, `lookup` in every index lookup,
   * `segmentsToDelete` in retention, `recover` in crash recovery. Their answers are checked, and
   * one the log cannot use safely fails the call with `PAGELOG_POLICY` naming the function
   * (docs/homework.md). For learning and fuzzing: the default paths are faster.
   * @defaultValue none: pagelog's own
   */
  policies?: Partial<CoursePolicies>;
}

/**
 * `LogOptions` after resolution (`Log.options`): every option with its value, a default filled in where none was
 * given. See `LogOptions` for what each one means.
 */
export interface ResolvedLogOptions {
  /** `LogOptions.segmentBytes` (Kafka's `segment.bytes`). */
  segmentBytes: number;
  /** `LogOptions.segmentMs` (Kafka's `segment.ms`). */
  segmentMs: number;
  /** `LogOptions.indexIntervalBytes` (Kafka's `index.interval.bytes`). */
  indexIntervalBytes: number;
  /** `LogOptions.maxIndexBytes` (Kafka's `segment.index.bytes`). */
  maxIndexBytes: number;
  /** `LogOptions.maxBatchBytes` (Kafka's `max.message.bytes`). */
  maxBatchBytes: number;
  /** `LogOptions.indexCacheBytes`. */
  indexCacheBytes: number;
  /** `LogOptions.flushMessages` (Kafka's `flush.messages`); -1 is off. */
  flushMessages: number;
  /** `LogOptions.flushMs` (Kafka's `flush.ms`); -1 is off. */
  flushMs: number;
  /** `LogOptions.retentionBytes` (Kafka's `retention.bytes`); -1 is off. */
  retentionBytes: number;
  /** `LogOptions.retentionMs` (Kafka's `retention.ms`); -1 is off. */
  retentionMs: number;
  /** `LogOptions.retentionCheckIntervalMs` (Kafka's `log.retention.check.interval.ms`); -1 is off. */
  retentionCheckIntervalMs: number;
  /** `LogOptions.cleanupPolicy` (Kafka's `cleanup.policy`), normalized. */
  cleanupPolicy: CleanupPolicy;
  /** `LogOptions.minCleanableDirtyRatio` (Kafka's `min.cleanable.dirty.ratio`). */
  minCleanableDirtyRatio: number;
  /** `LogOptions.deleteRetentionMs` (Kafka's `delete.retention.ms`). */
  deleteRetentionMs: number;
  /** `LogOptions.minCompactionLagMs` (Kafka's `min.compaction.lag.ms`). */
  minCompactionLagMs: number;
  /** `LogOptions.maxCompactionLagMs` (Kafka's `max.compaction.lag.ms`); -1 is off. */
  maxCompactionLagMs: number;
  /** `LogOptions.cleanerDedupeBufferBytes` (Kafka's `log.cleaner.dedupe.buffer.size`). */
  cleanerDedupeBufferBytes: number;
  /** `LogOptions.backgroundCleaning`. */
  backgroundCleaning: boolean;
  /** `LogOptions.crc32c`: the CRC-32C given, or undefined for the bundled one. */
  crc32c: Crc32c | undefined;
  /** `LogOptions.clock`: the clock given, or the system's. */
  clock: Clock;
  /** Undefined unless at least one policy function was given. */
  policies: Readonly<Partial<CoursePolicies>> | undefined;
}
