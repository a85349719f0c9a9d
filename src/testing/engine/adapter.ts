/**
 * What the crash engine asks of a log under test. The four required methods are all a log needs
 * to be fuzzed (values in, values back); every optional one the log implements — records with
 * keys, headers and timestamps, truncation, start-offset moves, checkpoints, its own durability
 * claims and self-checks — widens what the workloads do and what is checked. pagelog's own `Log`
 * (`pagelogAdapter`) implements them all: it is the richest adapter.
 */
import type { CoursePolicies } from "../../policies/policy-types.js";
import type { Storage } from "../../storage/storage.js";

/** A record as the engine appends it and expects it back (`appendRecords` / `readRecords`). */
export interface CrashRecord {
  /** The record's key, or null. */
  readonly key: Uint8Array | null;
  /** The record's value; null only in compaction workloads (a tombstone: the key's deletion). */
  readonly value: Uint8Array | null;
  /** The record's headers, in order. */
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Uint8Array | null }>;
  /** Milliseconds. Absent on append: the log stamps the record with its clock's time. */
  readonly timestamp?: number;
}

/** A record as `readRecords` gives it back. */
export interface CrashRecordRead extends CrashRecord {
  /** Its offset, if the log numbers records: checked to be `start + i`. */
  readonly offset?: number;
  /** The record's timestamp (milliseconds since the epoch). */
  readonly timestamp: number;
}

/** A moment at which the engine asks the log to check itself (`selfCheck`). */
export type SelfCheckMoment =
  /** `flush()` resolved. */
  | { readonly kind: "flushed" }
  /** The log was reopened after a power cut (or a failure) and its contents checked. */
  | { readonly kind: "recovered" }
  /** The log was reopened after a clean close and its contents checked. */
  | { readonly kind: "reopened" }
  /** `compact()` resolved and the cleaned log's contents were checked. */
  | { readonly kind: "compacted" }
  /** A call met an injected I/O fault and rejected with `error`; `call` names it. */
  | { readonly kind: "callFailed"; readonly call: FailedCall; readonly error: unknown };

/** The call that met an injected fault (`reopen`: a close and open, or the open after a crash). */
export type FailedCall = "append" | "flush" | "truncate" | "deleteBefore" | "checkpoint" | "compact" | "reopen";

/** A log under test, as the adapter opened it over one `Storage`. */
export interface AdapterLog {
  /** Appends one batch of values, in order. Resolved: the values are in the log (not yet durable). */
  append(values: Uint8Array[]): Promise<void>;
  /** Makes every value appended before it durable. */
  flush(): Promise<void>;
  /** Clean shutdown: everything appended is durable once it resolves. */
  close(): Promise<void>;
  /** Every value in the log, oldest first. */
  readAll(): Promise<Uint8Array[]>;

  /**
   * Optional, with `readRecords`: appends whole records (keys, headers, timestamps) instead of
   * values, and may resolve with the first record's offset (checked against the model).
   */
  appendRecords?(records: readonly CrashRecord[]): Promise<{ readonly baseOffset: number } | void>;
  /**
   * Optional, with `appendRecords`: the log's first offset and every record from it, oldest first,
   * and its end (the offset the next append gets), which a compacted log's gaps leave past its
   * last record. Without `end`, the end is taken to be `start` plus the records' count.
   */
  readRecords?(): Promise<{
    readonly start: number;
    readonly records: readonly CrashRecordRead[];
    readonly end?: number;
  }>;
  /** Optional (needs `readRecords`): drops every record at `offset` and after. */
  truncateTo?(offset: number): Promise<void>;
  /** Optional (needs `readRecords`): moves the log's start up to `offset` (records below go). */
  deleteBefore?(offset: number): Promise<void>;
  /**
   * Optional (needs `readRecords`): runs the log cleaner now, as Kafka's `cleanup.policy=compact`:
   * for every key the latest record stays, and tombstones go once `deleteRetentionMs` is over.
   * Durable when it resolves.
   */
  compact?(): Promise<void>;
  /** Optional: writes whatever the log checkpoints (it changes no contents). */
  checkpoint?(): Promise<void>;
  /**
   * Optional: the end of the prefix the log itself claims durable right now (a flush policy, a
   * recovery point). The engine holds the log to it after every resolved call.
   */
  durableEnd?(): number;
  /**
   * Optional: what opening this log decided (a tail cut, segments deleted, an index rebuilt, …),
   * as decision name → count, with every decision it can make present (0 when it did not). The
   * engine adds these up over every reopen of a run: the run's reach (`CrashTestSummary.reach`),
   * which shows whether the workloads reach each recovery path. Read it without storage calls.
   */
  recoveryDecisions?(): Readonly<Record<string, number>>;
  /**
   * Optional: the files a reopen after a crash has made durable, by their paths in the storage
   * `open` was given: every file the log will count on from now on without checking it again
   * (pagelog's: every segment file, since its recovery fsyncs each cut and rebuilt index before
   * the log opens). Asked right after each recovery, before any other call, without storage
   * calls. On a `SimStorage` the engine checks that a power cut now would leave each one exactly
   * as it reads (its size and every byte on the disk); a listed file that does not exist is
   * skipped. It catches a recovery whose repairs stay in the page cache even when no later cut
   * happens to undo them.
   */
  recoveredFiles?(): readonly string[];
  /** Optional: the log's own checks at `moment` (index truth, status, counters); throws to report. */
  selfCheck?(moment: SelfCheckMoment): Promise<void>;
}

/** Settings a schedule drew for a Kafka-style log, for adapters that let each schedule vary them. */
export interface LogTuning {
  /** `LogOptions.segmentBytes` (Kafka's `segment.bytes`). */
  readonly segmentBytes: number;
  /** `LogOptions.indexIntervalBytes` (Kafka's `index.interval.bytes`). */
  readonly indexIntervalBytes: number;
  /** `LogOptions.maxIndexBytes` (Kafka's `segment.index.bytes`). */
  readonly maxIndexBytes: number;
  /** -1: no flush by count. */
  readonly flushMessages: number;
  /** -1: no flush by time. */
  readonly flushMs: number;
  /** `LogOptions.segmentMs` (Kafka's `segment.ms`). */
  readonly segmentMs: number;
  /** -1: checkpoint only when asked and at close. */
  readonly checkpointIntervalMs: number;
  /** `LogOptions.cleanupPolicy`: set only by the compaction workload (absent: the log's default, "delete"). */
  readonly cleanupPolicy?: "compact" | "compact,delete";
  /** `LogOptions.deleteRetentionMs` (Kafka's `delete.retention.ms`): set with `cleanupPolicy`. */
  readonly deleteRetentionMs?: number;
}

/** What the engine hands `open` besides the storage. */
export interface CrashTestContext {
  /** The schedule's clock: it moves only when the workload says (a `clock` step). Use it for all time. */
  readonly clock: { now(): number };
  /** The settings this schedule drew; an adapter may use them or keep its own. */
  readonly tuning: LogTuning;
  /**
   * A reader's course policies given to `crashTest(…, { policies })` or `pagelog fuzz --policies`:
   * pagelog's adapters run the Log on them (`LogOptions.policies`); another log may use them too.
   */
  readonly policies?: Partial<CoursePolicies>;
}

/** Steps beyond append, flush, reopen, write-back, crash and clock that a workload may take. */
export type ExtraStep =
  /** Several appends issued at once, not awaited one by one (the log must take them concurrently). */
  | "concurrentAppends"
  /** `truncateTo` (the log implements it). */
  | "truncate"
  /** `deleteBefore` (the log implements it). */
  | "deleteBefore"
  /** `checkpoint` (the log implements it). */
  | "checkpoint"
  /** `compact` (the log implements it; only the compaction workload draws it). */
  | "compact"
  /** Injected `EIO` / `ENOSPC` on a sync, write or directory sync: the call that meets it must reject. */
  | "faults";

/** How the engine opens the log under test. */
export interface CrashTestAdapter {
  /** Shown in reports. */
  readonly name: string;
  /**
   * Opens (creating if empty, recovering after a crash) the log stored in `storage`. Use only
   * `storage` for I/O, and let its errors (`PAGELOG_POWER_CUT` above all) propagate.
   */
  open(storage: Storage, context: CrashTestContext): Promise<AdapterLog>;
  /** Extra steps the workloads may take; each needs the matching method. @defaultValue none */
  readonly extraSteps?: readonly ExtraStep[];
}
