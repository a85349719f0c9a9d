/**
 * One partition's log: segments that roll, a flush policy that is off by default, a recovery
 * point that only moves after the bytes below it are durable, truncation, retention and reads.
 * Created by `LogDir.log()`, which owns the lock, the checkpoints and the clean-shutdown marker.
 *
 * Every call goes through one queue: calls that overlap in time are applied in call order and
 * never interleave bytes. Any storage failure while writing (above all a failed fsync) puts the
 * log in the `failed` state: it refuses writes until reopened, because after a failed fsync
 * nothing can say which bytes reached the disk.
 */
// This file is the class shell (state, queue, argument checks, timers, lifecycle); the work is in
// plain functions over `LogState`: log-append.ts (group commit, roll, roll-flush.ts), log-truncate.ts, log-read.ts, …
import { type RecordInput } from "../format/index.js";
import { type RecordSnapshot, describeValue, snapshotRecords } from "../format/record-codec.js";
import { checkOffset, outOfRange } from "./options/log-arguments.js";
import { asyncDispose } from "./util/async-dispose.js";
import { writeGroup } from "./write/log-append.js";
import type { LoadedLog, LogRecovery } from "./load/log-loader.js";
import { openLogFiles } from "./load/open-log-files.js";
import type { LoadInput } from "./load/log-load-input.js";
import { type Stopwatch, stopwatchFor } from "./options/log-clock.js";
import type { ResolvedLogOptions } from "./options/log-options.js";
import {
  type LogRecord,
  resolveReadBatchesOptions,
  resolveReadOptions,
  readRawBatches,
  type ReadBatchesOptions,
  readFewRecords,
  type ReadOptions,
} from "./read/log-read.js";
import { iterateRecords, type RecordsOptions, waitForOffset, type WaitOptions } from "./read/records-iterator.js";
import { wake } from "./state/log-waiters.js";
import { loadRetention } from "./write/door-retention.js";
import { loadTimeLookup } from "./read/door-time-lookup.js";
import { loadDurableReads } from "./durable/door-durable.js";
import { retainNow, timersOf } from "./write/retain-now.js";
import { loadTimers } from "./write/door-timers.js";
import { loadPolicyHooks } from "../segment/policies/door-policies.js";
import { loadWriteChecks } from "./write/door-write-checks.js";
import { expensiveChecks } from "../errors.js";
import { rollFlushSettled } from "./write/roll-flush.js";
import {
  activeSegment,
  checkReadable,
  checkWritable,
  endOffsetOf,
  fail,
  failedError,
  flushLog,
  guard,
  type LogHost,
  type LogState,
  type LogStatus,
  type PendingAppend,
  stopTimer,
} from "./state/log-state.js";
import { loadTruncation } from "./write/lazy-truncate.js";
import { compacts } from "./options/cleanup-policy.js";
import type { CompactionResult } from "./compaction/compaction-result.js";
import type { BackgroundCleaner } from "./compaction/background-cleaner.js";
import { loadCleaner } from "./compaction/lazy-cleaner.js";
import { SerialQueue } from "./util/serial-queue.js";
import type { ProgressListener } from "./options/recovery-progress.js";
import type { LogMode } from "./state/log-mode.js";
import type { ReadOnlyState } from "./state/read-only-state.js";
import { WRITABLE } from "./state/writable-mode.js";
import { type LogSegmentOptions, segmentOptionsOf } from "./options/segment-options-of.js";

export type { CompactionResult, NothingCleanedReason } from "./compaction/compaction-result.js";
export type { LogRecovery } from "./load/log-loader.js";
export type { Isolation, LogRecord, ReadBatchesOptions, ReadOptions } from "./read/log-read.js";
export type { RecordsOptions, WaitOptions } from "./read/records-iterator.js";
export type { LogHost, LogStatus } from "./state/log-state.js";
// The write paths' expensive checks, which LogDir.open loads too (its offset checkpoints' read-back).
export { loadWriteChecks } from "./write/door-write-checks.js";

/**
 * A load's result as the Log takes it. A read-only open (read-only/read-only-open.ts) adds its
 * mode and the state following the writer needs; without them the log is writable.
 */
type LoadedState = LoadedLog & {
  readonly readOnly?: {
    /** Below the writer's checkpointed recovery point: what a durable read may return. */
    readonly recoveryPoint: number;
    readonly state: ReadOnlyState;
    readonly mode: LogMode<LogState>;
  };
};
/** How `openLog` loads the segments: the writer's load (load/log-loader.ts) unless the open passes its own. */
type LogLoad = (input: LoadInput) => Promise<LoadedState>;
/** The clock as read before the log was loaded: its stopwatch and that first reading. */
interface OpenedAt {
  readonly stopwatch: Stopwatch;
  readonly at: number;
}
/** What the Log uses of its background cleaner (compaction/background-cleaner.ts). */
type Cleaner = Pick<BackgroundCleaner, "poke" | "recheck" | "stop" | "compact" | "error" | "refuseKeyless">;
/** The class, loaded by `openLog` only for a log whose policy compacts. */
type CleanerClass = typeof BackgroundCleaner;
/** The timers' part (write/retention-timer.ts), loaded by `openLog` only for a log that arms one. */
type Timers = typeof import("./write/retention-timer.js");
/** The course's hooks (segment/policies/policy-hooks.ts), loaded by `openLog` only for a log with a reader's function. */
type PolicyHooks = typeof import("../segment/policies/policy-hooks.js");
/** The write paths' expensive checks (write/write-checks.ts), loaded by `openLog` only with `PAGELOG_CHECKS=all`. */
type WriteChecks = typeof import("./write/write-checks.js");
/** What `openLog` loaded for this log before opening its files. */
interface LoadedParts {
  readonly Cleaner: CleanerClass | undefined;
  readonly timers: Timers | undefined;
  readonly hooks: PolicyHooks | undefined;
  readonly writeChecks: WriteChecks | undefined;
}
/**
 * The cleaner of a log whose policy does not compact (its policy is then "delete"): never due, any
 * record may go without a key, and `compact()` is refused at the call, before it is queued (a
 * TypeError: the caller's mistake).
 */
const NO_CLEANER: Cleaner = {
  error: undefined,
  poke: () => undefined,
  recheck: () => undefined,
  stop: () => Promise.resolve(),
  compact: () =>
    Promise.reject(new TypeError(`compact() needs cleanupPolicy "compact" or "compact,delete", this log has "delete"`)),
  refuseKeyless: () => undefined,
};
/** Set by Log's static block: what `openLog` and `logEverFailed` need, kept out of Log's type. */
let construct: (
  name: string,
  host: LogHost,
  options: ResolvedLogOptions,
  segmentOptions: LogSegmentOptions,
  loaded: LoadedState,
  opened: OpenedAt & LoadedParts,
) => Log;
let failureOf: (log: Log) => unknown;
let closingOf: (log: Log) => Promise<void> | undefined;

/**
 * One partition's append-only log: segments of Kafka record batches, appended to, read by offset or timestamp,
 * truncated, retained and flushed. Get one from `LogDir.log(name)`; an offset is durable once below `recoveryPoint`.
 */
export class Log {
  /** The partition directory's name, `<topic>-<partition>`. */
  readonly name: string;
  /** The options this log runs with, defaults filled in. */
  readonly options: Readonly<ResolvedLogOptions>;
  readonly #recovery: LogRecovery;
  /** Everything that changes as the log runs (see log-state.ts). */
  readonly #s: LogState;
  readonly #queue = new SerialQueue();
  /** Background cleaning of a compacted log, one step per queue turn (compaction/background-cleaner.ts). */
  readonly #cleaner: Cleaner;
  /** The first close()'s promise: every later call returns it. */
  #closing: Promise<void> | undefined;

  static {
    construct = (name, host, options, segmentOptions, loaded, opened) =>
      new Log(name, host, options, segmentOptions, loaded, opened);
    failureOf = (log) => log.#s.failure;
    closingOf = (log) => log.#closing;
  }

  private constructor(
    name: string,
    host: LogHost,
    options: ResolvedLogOptions,
    segmentOptions: LogSegmentOptions,
    loaded: LoadedState,
    opened: OpenedAt & LoadedParts,
  ) {
    this.name = name;
    this.options = options;
    this.#recovery = loaded.recovery;
    const now = opened.at;
    this.#s = {
      name,
      host,
      options,
      segmentOptions,
      checkBatch: undefined,
      slotContext: loaded.slotContext,
      segments: loaded.segments,
      segmentsVersion: 0,
      timestampTree: undefined,
      startOffset: loaded.startOffset,
      // Loading left everything durable (read-only: what the writer's checkpoint says).
      recoveryPoint: loaded.readOnly?.recoveryPoint ?? loaded.segments[loaded.segments.length - 1]!.nextOffset,
      status: "open",
      failure: undefined,
      unflushedRecords: 0,
      stopwatch: opened.stopwatch,
      lastFlushAt: now,
      flushes: 0,
      activeCreatedAt: now,
      dirDirty: false,
      dirtySegments: new Set(),
      flushTimer: undefined,
      warm: new Map(),
      warmBytes: 0,
      openGroup: undefined,
      appendGroups: 0,
      writtenTail: undefined,
      cursors: new Set(),
      readOnly: loaded.readOnly?.state,
      mode: loaded.readOnly?.mode ?? WRITABLE,
      waiters: new Set(),
      offsetGaps: segmentOptions.offsetGaps,
      rollFlush: { running: undefined, pending: undefined, completed: 0, moved: () => undefined },
      lastRetentionAt: now,
      retentionTimer: undefined,
    };
    this.#s.checkBatch = batchChecks(this.#s, opened);
    if (loaded.readOnly) loaded.readOnly.state.refresh = () => this.refresh(); // a waiting follower's poll
    const { Cleaner } = opened;
    this.#cleaner = Cleaner === undefined ? NO_CLEANER : new Cleaner(this, this.#s, (task) => this.#queue.run(task));
    this.#s.rollFlush.moved = this.#cleaner.poke; // a roll flush moved the recovery point
    this.#cleaner.poke(); // at open too: a reopened log may be due already
    // The flush timer covers a log that went quiet, the retention check one that does not roll.
    opened.timers?.armTimers(this.#s, {
      flush: () => this.flush(),
      run: (task) => this.#run(task),
      recheckCleaning: this.#cleaner.recheck,
    });
  }

  // ---- state ----------------------------------------------------------------------------

  /**
   * What opening this log had to do, with the index rebuilds that the first uses of its old
   * segments have done since (a clean open checks old segments on first use).
   */
  get recovery(): LogRecovery {
    const later = this.#s.slotContext.firstUses.indexesRebuilt;
    return later === 0 ? this.#recovery : { ...this.#recovery, indexesRebuilt: this.#recovery.indexesRebuilt + later };
  }

  /** The first offset that can be read (moves forward with deleteRecordsBefore and retention). */
  get startOffset(): number {
    return this.#s.startOffset;
  }

  /** The offset the next appended record gets (Kafka's log end offset). */
  get endOffset(): number {
    return endOffsetOf(this.#s);
  }

  /** Every offset below this is durable: it survives any power cut. */
  get recoveryPoint(): number {
    return this.#s.recoveryPoint;
  }

  /**
   * Bytes in the `.log` files of the segments sized so far: every segment after a recovery, and
   * after a clean open the active one and every old one used since (a clean open reads nothing
   * of the old segments: see docs/recovery.md, "Lazy segments"). Retention by bytes sizes them all.
   */
  get size(): number {
    return this.#s.segments.reduce((sum, s) => sum + (s.knownSize ?? 0), 0);
  }

  /** How many segments the log has (the active one included). */
  get segmentCount(): number {
    return this.#s.segments.length;
  }

  /** `open`; `closing` once `close()` was called; `closed`; or `failed` after a storage error (see `LogStatus`). */
  get status(): LogStatus {
    return this.#s.status;
  }

  /** Base offsets of the segments, oldest first. */
  get segmentBaseOffsets(): number[] {
    return this.#s.segments.map((s) => s.baseOffset);
  }

  /**
   * The error that stopped background cleaning (a damaged segment, a clock that threw), if one
   * did; cleared, and background cleaning resumed, by the next `compact()` that succeeds. A
   * storage error fails the log instead (see docs/compaction.md).
   */
  get cleaningError(): unknown {
    return this.#cleaner.error;
  }

  /** Queues a call that is not an append: it closes the open append group, so call order holds. */
  #run<T>(task: () => Promise<T>): Promise<T> {
    this.#s.openGroup = undefined;
    const done = this.#queue.run(task);
    done.then(this.#cleaner.poke, this.#cleaner.poke); // it may have made a cleaning due
    return done;
  }

  /** Queues a write that is not an append: checked, after the roll flush in flight (write/roll-flush.ts). */
  #write<T>(op: string, task: () => Promise<T>): Promise<T> {
    return this.#run(async () => (await rollFlushSettled(this.#s), checkWritable(this.#s, op), task()));
  }

  /** Queues a read, as the log's mode runs it (read-only: one that meets a file the writer replaced retries). */
  #read<T>(task: () => Promise<T>): Promise<T> {
    const s = this.#s;
    return this.#run(async () => (checkReadable(s), s.mode.read(s, task)));
  }

  // ---- writing --------------------------------------------------------------------------

  /**
   * Appends the records as one batch and returns their offsets. Goes to the page cache: durable
   * once a `flush()` (or the flush policy) that started after it resolves. Bad records are
   * TypeErrors and a batch over `maxBatchBytes` is `PAGELOG_RECORD_TOO_LARGE`, both before
   * anything is written, and only that call fails.
   *
   * A record is what was passed at the call: its bytes are copied before `append()` returns, so
   * you may reuse its buffers at once. A Uint8Array on a detached buffer is a TypeError naming it.
   *
   * Group commit: appends that arrive while a write is in flight go out together, in call order,
   * in one write, and the flush policy then costs one fsync for the whole group.
   */
  append(records: readonly RecordInput[]): Promise<{ baseOffset: number; lastOffset: number }> {
    // Every field is read once, now, and every Uint8Array copied: the batch is encoded when its
    // group runs, and nothing the caller does meanwhile (getters, buffers reused) may change it.
    let snapshot: RecordSnapshot[];
    try {
      snapshot = snapshotRecords(records, true);
      this.#cleaner.refuseKeyless(snapshot); // a compacted log's records need keys
    } catch (err) {
      return Promise.reject(err);
    }
    const s = this.#s;
    return new Promise((resolve, reject) => {
      let group = s.openGroup;
      if (group === undefined) {
        const fresh: PendingAppend[] = [];
        group = s.openGroup = fresh;
        s.appendGroups++; // until writeGroup answers the group
        // writeGroup never rejects: it settles every append of its group itself.
        void this.#queue.run(() => writeGroup(s, fresh)).then(this.#cleaner.poke); // a roll may make a cleaning due
      }
      group.push({ records: snapshot, resolve, reject });
    });
  }

  /**
   * Makes every record appended so far durable, then advances the recovery point to the end.
   * Fails (and fails the log) if any fsync fails: a flush never reports data durable that is not.
   */
  flush(): Promise<void> {
    return this.#write("flush", () => guard(this.#s, () => flushLog(this.#s)));
  }

  /**
   * Drops every record at or after `offset`. Durable when it resolves: no crash after that can
   * bring a dropped record back. `offset` below the start offset is `PAGELOG_OFFSET_OUT_OF_RANGE`.
   */
  truncateTo(offset: number): Promise<void> {
    return this.#write("truncateTo", async () => {
      const s = this.#s;
      checkOffset(offset, "offset");
      if (offset < s.startOffset) throw outOfRange(offset, s.startOffset, this.endOffset);
      if (offset >= this.endOffset) return;
      // Loaded outside `guard`: a chunk that fails to load fails this call, never the log.
      const { truncateLog } = await loadTruncation();
      await guard(s, () => truncateLog(s, offset));
    });
  }

  /**
   * Moves the log start offset to `offset` (Kafka's DeleteRecords) and deletes every whole
   * segment below it, never the active one. Durable when it resolves.
   */
  deleteRecordsBefore(offset: number): Promise<void> {
    return this.#write("deleteRecordsBefore", async () => {
      const s = this.#s;
      checkOffset(offset, "offset");
      if (offset > this.endOffset) throw outOfRange(offset, s.startOffset, this.endOffset);
      if (offset <= s.startOffset) return;
      // Loaded outside `guard`: a chunk that fails to load fails this call, never the log.
      const { moveStart } = await loadRetention();
      await guard(s, () => moveStart(s, offset, (segment) => segment.nextOffset <= offset));
    });
  }

  /** Applies `retentionBytes` / `retentionMs` now (it also runs after every roll and every `retentionCheckIntervalMs`). */
  applyRetention(): Promise<void> {
    return this.#write("applyRetention", () => retainNow(this.#s));
  }

  /**
   * Runs the log cleaner now (docs/compaction.md): the latest record of every key stays, below the
   * active segment and the recovery point; a background cleaning in progress is taken over. Durable
   * when it resolves; a log whose `cleanupPolicy` lacks `"compact"` is a TypeError.
   */
  compact(): Promise<CompactionResult> {
    const cleaner = this.#cleaner;
    return cleaner === NO_CLEANER ? cleaner.compact() : this.#write("compact", () => cleaner.compact());
  }

  // ---- reading --------------------------------------------------------------------------

  /**
   * Records at offsets from `offset` on, from the segment holding it: at least one whole batch if
   * one exists there. `offset` equal to the end gives []; outside [start, end] is
   * `PAGELOG_OFFSET_OUT_OF_RANGE`. A bad CRC is `PAGELOG_CORRUPT`, never garbage. `durable`: below
   * the recovery point only (at or above it: []). `isolation`: what of a broker's transactions.
   */
  read(offset: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    let o: ReturnType<typeof resolveReadOptions>;
    try {
      checkOffset(offset, "offset");
      o = resolveReadOptions(options);
    } catch (err) {
      return Promise.reject(err);
    }
    const s = this.#s;
    // Durable reads are a part loaded on first use (durable/door-durable.ts).
    return this.#read(
      o.durable
        ? async () => (await loadDurableReads()).readDurableRecords(s, offset, o)
        : () => readFewRecords(s, offset, o),
    );
  }

  /**
   * Whole raw batches starting with the one holding `offset`, as a Kafka Fetch response carries
   * them: bytes that can go to a socket or a file without decoding. The first batch may start
   * below `offset` (and below the start offset); consumers skip those records, as Kafka's do.
   * With `durable`, only whole batches whose last offset is below the recovery point.
   */
  readBatches(offset: number, options: ReadBatchesOptions = {}): Promise<Uint8Array> {
    let maxBytes: number, durable: boolean;
    try {
      checkOffset(offset, "offset");
      ({ maxBytes, durable } = resolveReadBatchesOptions(options));
    } catch (err) {
      return Promise.reject(err);
    }
    const s = this.#s;
    return this.#read(
      durable
        ? async () => (await loadDurableReads()).readDurableBatches(s, offset, maxBytes)
        : () => readRawBatches(s, offset, maxBytes),
    );
  }

  /**
   * Every record from `from` (inclusive) to `to` (exclusive), read in batches as it goes. One
   * history or an error: a truncation below where it got to is `PAGELOG_TRUNCATED`, the start
   * offset moved past it `PAGELOG_OFFSET_OUT_OF_RANGE`, a close `PAGELOG_CLOSED`.
   *
   * `follow: true` waits at the end, woken by the append itself (no polling), and goes on in
   * offset order holding at most one read ahead, until `to`, an abort (its next step throws the
   * signal's reason, even while waiting), a close (`PAGELOG_CLOSED`) or a failure
   * (`PAGELOG_FAILED`). A truncation below what it yielded, or the start moved past it, is
   * `PAGELOG_OFFSET_OUT_OF_RANGE` for a follower. `durable: true` yields only records below the
   * recovery point. See docs/consumers.md.
   */
  records(options: RecordsOptions = {}): AsyncGenerator<LogRecord, void, undefined> {
    // A generator's body runs at the first next(): the options are checked (and each read once)
    // then, as before.
    const s = this.#s;
    return iterateRecords(s, options, (task) => this.#run(() => s.mode.read(s, task)));
  }

  /**
   * Resolves with the end offset once `endOffset > offset` (the log holds that record; `durable`:
   * with the recovery point once `recoveryPoint > offset`), woken by the append (or flush) that
   * moves it, outside the queue. Rejects with the signal's reason on an abort, `PAGELOG_CLOSED` on
   * a close, `PAGELOG_FAILED` if the log fails first. A truncation does not end it: the log can grow back.
   */
  waitFor(offset: number, options: WaitOptions = {}): Promise<number> {
    return waitForOffset(this.#s, offset, options);
  }

  /**
   * The first offset whose record timestamp is at or after `timestamp` (Kafka's ListOffsets), or
   * null if there is none. Exact: the same answer as a linear scan.
   */
  offsetForTimestamp(timestamp: number): Promise<number | null> {
    if (typeof timestamp !== "number" || !Number.isSafeInteger(timestamp))
      return Promise.reject(new TypeError(`timestamp must be a safe integer, got ${describeValue(timestamp)}`));
    return this.#read(async () => (await loadTimeLookup()).findOffsetForTimestamp(this.#s, timestamp));
  }

  /**
   * Read-only: re-reads the files another process writes; resolves with the new end offset
   * (log-refresh.ts, docs/consumers.md). A writable log sees its own end: it resolves at once.
   */
  refresh(): Promise<number> {
    const s = this.#s;
    return this.#run(async () => (checkReadable(s), await s.mode.refresh(s), endOffsetOf(s)));
  }

  // ---- lifecycle ------------------------------------------------------------------------

  /**
   * Flushes everything, adds each active segment's final time-index entry, and closes the files.
   * A crash anywhere in here still recovers correctly: nothing is removed or rewritten.
   * `LogDir.close()` calls it for every open log, then writes the checkpoints and the clean-shutdown marker.
   */
  close(): Promise<void> {
    // Every call gets the first call's promise (LogDir.close() calls it too).
    this.#closing ??= this.#run(async () => {
      const s = this.#s;
      await rollFlushSettled(s); // its fsyncs end before the files close; the flush below covers the rest
      stopTimer(s);
      await this.#cleaner.stop(); // a pass in progress ends here, leaving no file behind
      if (s.mode.close !== undefined) return s.mode.close(s); // read-only: writes nothing
      if (s.status === "failed") {
        await Promise.allSettled(s.segments.map((slot) => slot.close()));
        s.status = "closed";
        wake(s.waiters);
        throw failedError(s, "close");
      }
      s.status = "closing";
      wake(s.waiters); // a waiting follower ends now with PAGELOG_CLOSED, never hangs
      try {
        s.dirtySegments.add(activeSegment(s));
        await activeSegment(s).seal();
        // No clock read: a clock that throws must not keep a log from closing.
        await flushLog(s, { indexes: true, at: s.lastFlushAt });
        for (const slot of s.segments) await slot.close();
        s.status = "closed";
      } catch (err) {
        fail(s, err);
        throw err;
      }
    });
    return this.#closing;
  }

  /** `await using` (`Symbol.asyncDispose`): the same promise as `close()`. */
  [asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Opens (loading, and recovering as needed) one partition's log: what `LogDir.log()` does after
 * taking care of the directory. `load` reads the segments: the writer's load and recovery, unless
 * a read-only open passes its own (and with it the read-only mode). Not part of the package's API.
 */
export async function openLog(
  name: string,
  host: LogHost,
  options: ResolvedLogOptions,
  state: {
    clean: boolean;
    recoveryPoint: number | undefined;
    logStartOffset: number | undefined;
    cleanPoint?: number | undefined;
    onProgress?: ProgressListener | undefined;
  },
  load: LogLoad = openLogFiles,
): Promise<Log> {
  // The clean point as checkpointed: below it gaps are a cleaning's, legal (compaction/).
  const segmentOptions = segmentOptionsOf(options, state.cleanPoint ?? 0);
  // The clock before anything is opened: one that throws fails this open and leaves no handle behind.
  const stopwatch = stopwatchFor(options.clock);
  const opened = { stopwatch, at: stopwatch.now() };
  // The cleaner only for a log whose policy compacts (a policy is fixed for the log's life): a
  // bundle splits compaction out of every other log's path. Loaded before anything is opened.
  const Cleaner = compacts(options.cleanupPolicy) ? (await loadCleaner()).BackgroundCleaner : undefined;
  // The timers likewise, only for a log that arms one (write/retain-now.ts).
  const { flush, retention } = timersOf(options);
  const timers = flush || retention ? await loadTimers() : undefined;
  // And the course's hooks, for a log with a reader's writeVarint or lookup (its rolls then open
  // segments, inside the log's failure guard, without waiting for a chunk).
  const { writeVarint, lookup } = options.policies ?? {};
  const hooks = writeVarint !== undefined || lookup !== undefined ? await loadPolicyHooks() : undefined;
  const writeChecks = expensiveChecks ? await loadWriteChecks() : undefined;
  const loaded = await load({ storage: host.storage, dir: name, segmentOptions, ...state });
  return construct(name, host, options, segmentOptions, loaded, { ...opened, Cleaner, timers, hooks, writeChecks });
}

/**
 * The checks of each appended batch beyond the cheap ones (log-append.ts): the encoder's pair
 * (PAGELOG_CHECKS=all), then a reader's writeVarint; undefined when the log runs neither.
 */
function batchChecks(s: LogState, { hooks, writeChecks }: LoadedParts): LogState["checkBatch"] {
  const writeVarint = s.options.policies?.writeVarint;
  const varints = writeVarint === undefined || hooks === undefined ? undefined : hooks.checkVarints;
  if (writeChecks === undefined && varints === undefined) return undefined;
  return (encoded, records) => {
    writeChecks?.checkEncodedBatch(s, encoded, records);
    varints?.(writeVarint!, encoded.bytes);
  };
}

/**
 * The promise of the log's first `close()` if one was called and has not finished, else
 * undefined: its status still says "open" until the close's turn in the queue comes.
 */
export function closeInProgress(log: Log): Promise<void> | undefined {
  return log.status === "closed" ? undefined : closingOf(log);
}

/** True if the log ever failed (its LogDir then writes no clean-shutdown marker). */
export function logEverFailed(log: Log): boolean {
  return failureOf(log) !== undefined;
}
