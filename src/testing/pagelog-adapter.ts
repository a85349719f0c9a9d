/**
 * pagelog's own `Log` as a crash-engine adapter: the richest one (records with keys, headers and
 * timestamps, truncation, start moves, checkpoints, concurrent appends, injected faults, its
 * recovery point as a durability claim, and its own self-checks), the reference every other log
 * is measured against, and a complete example of writing an adapter.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { LogDir, type LogDirOptions } from "../log/log-dir.js";
import type { Log, LogRecovery } from "../log/log.js";
import { backgroundCleanerOf } from "../log/compaction/background-cleaner.js";
import { compacts } from "../log/options/cleanup-policy.js";
import type { LogOptions } from "../log/options/log-options.js";
import { resolveLogOptions } from "../log/options/resolve-log-options.js";
import { type Present, resolveOptions } from "../options.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../segment/segment-names.js";
import { checkMaxOpenFiles } from "../storage/handle-pool.js";
import type { Storage } from "../storage/storage.js";
import type {
  AdapterLog,
  CrashRecordRead,
  CrashTestAdapter,
  CrashTestContext,
  ExtraStep,
  SelfCheckMoment,
} from "./engine/adapter.js";

/** The partition the adapter writes. */
const PARTITION = "crash-0";

/** pagelog takes every extra step. */
const ALL_STEPS: readonly ExtraStep[] = [
  "concurrentAppends",
  "truncate",
  "deleteBefore",
  "checkpoint",
  "compact",
  "faults",
];

/** The files of one segment. */
const SEGMENT_SUFFIXES = [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX] as const;

/** Codes a call may fail with when an injected fault hits it. */
const LOUD_CODES = new Set<string>([ErrorCode.IO, ErrorCode.NO_SPACE, ErrorCode.FAILED]);

/** What each recovery decision pagelog's adapter reports means (`AdapterLog.recoveryDecisions`). */
export const LOG_DECISIONS: Readonly<Record<string, string>> = {
  "clean-open": "opened after a clean shutdown: files trusted, indexes sanity-checked",
  "crash-recovery": "opened after a crash: segments walked from the recovery point",
  "tail-cut": "a torn tail cut in the last segment",
  "mid-log-cut": "a cut mid-log, every later segment deleted",
  "gap-deleted": "segments deleted after an offset gap",
  "truncation-finished": "an interrupted truncateTo finished (an overlapping replacement)",
  "tmp-removed": "a leftover .tmp removed (a replacement batch never renamed in)",
  "orphan-index-removed": "an orphaned index removed (a segment deletion cut short)",
  "started-over": "the log started over, empty, at its checkpointed start",
  "swap-completed": "an interrupted compaction's swap finished (a compacted log only)",
};

/**
 * The decisions one open made, from the log's own recovery report (`compacted`: the log's policy
 * compacts, so a swap is a decision it can make). Not among them: an index
 * below the recovery point that fails its sanity check and is rebuilt. No power cut makes one
 * (those indexes were fsynced before the recovery point passed them), so the crash workloads
 * never reach it; the corruption sweep (test/integration/corruption-sweep.test.ts) does.
 */
function recoveryDecisions(r: LogRecovery, compacted = false): Record<string, number> {
  const removed = (suffix: RegExp): number => r.leftoversRemoved.filter((name) => suffix.test(name)).length;
  return {
    "clean-open": r.clean ? 1 : 0,
    "crash-recovery": r.clean ? 0 : 1,
    "tail-cut": r.tailCut === "last-segment" ? 1 : 0,
    "mid-log-cut": r.tailCut === "mid-log" ? 1 : 0,
    "gap-deleted": r.segmentsDeletedAfterGap,
    "truncation-finished": r.truncationsFinished,
    "tmp-removed": removed(/\.tmp$/),
    "orphan-index-removed": removed(/\.(index|timeindex)$/),
    "started-over": r.startedOver ? 1 : 0,
    ...(compacted ? { "swap-completed": r.swapsCompleted } : {}),
  };
}

/** What one open goes through besides `LogDir.open`: how a broken log (src/testing/broken) hooks in. */
interface OpenSession {
  /** What `LogDir.open` gets instead of the storage itself. */
  readonly storage: Storage;
  /** The directory and its log are open (recovery is over). */
  opened(): Promise<void>;
  /** A call on the log resolved: run what the log would have done before it returned. */
  settle(): Promise<void>;
}

interface PagelogAdapterSetup {
  readonly name: string;
  /** The directory's options for this schedule (`log.clock` is set to the schedule's clock). */
  dirOptions(context: CrashTestContext): LogDirOptions;
  /** Wraps each open (a broken variant); none for the real log. */
  session?(storage: Storage): OpenSession;
}

/**
 * The adapter for pagelog's `Log` with the given options (by default small segments, so that
 * workloads roll; the flush policy off, so only `flush()`, `close()` and recovery make data
 * durable). The schedule's clock is the log's clock. `dirOptions` sets the directory's
 * `maxOpenFiles` (a small bound makes every schedule evict and reopen files).
 */
export function pagelogAdapter(
  options: LogOptions = {},
  dirOptions: Pick<LogDirOptions, "maxOpenFiles"> = {},
): CrashTestAdapter {
  resolveLogOptions(options, "pagelogAdapter options"); // a typo fails here, not in the first schedule
  const logOptions: LogOptions = { segmentBytes: 1024, indexIntervalBytes: 128, ...options };
  const bound = adapterDirOptions(dirOptions);
  return adapterFor({
    name: `pagelog(${JSON.stringify(options)}${bound === undefined ? "" : `, maxOpenFiles ${bound}`})`,
    dirOptions: (context) => ({
      // The compaction workload's policy, unless the options say otherwise.
      log: { clock: context.clock, ...compactionOf(context.tuning), ...logOptions },
      ...(bound === undefined ? {} : { maxOpenFiles: bound }),
    }),
  });
}

/**
 * pagelog's `Log` with the settings each schedule drew (segment size, index interval, flush
 * policy, segment age, checkpoint interval): what `pagelog fuzz` and the crash properties run.
 */
export function tunedPagelogAdapter(dirOptions: Pick<LogDirOptions, "maxOpenFiles"> = {}): CrashTestAdapter {
  const bound = adapterDirOptions(dirOptions);
  return adapterFor({
    name: `pagelog (the schedule's settings${bound === undefined ? "" : `, maxOpenFiles ${bound}`})`,
    dirOptions: tunedDirOptions(bound),
  });
}

/** The adapters' directory options: only `maxOpenFiles` (undefined: LogDir.open's default). */
function adapterDirOptions(dirOptions: Pick<LogDirOptions, "maxOpenFiles">): number | undefined {
  return resolveOptions<Pick<LogDirOptions, "maxOpenFiles">, Present<Pick<LogDirOptions, "maxOpenFiles">>>(
    dirOptions,
    "pagelogAdapter directory options",
    { maxOpenFiles: (value) => (value === undefined ? undefined : checkMaxOpenFiles(value)) },
  ).maxOpenFiles;
}

/** The directory options a schedule's tuning stands for. */
export function tunedDirOptions(maxOpenFiles?: number): (context: CrashTestContext) => LogDirOptions {
  return ({ clock, tuning }) => {
    const { checkpointIntervalMs, ...log } = tuning;
    return {
      log: { ...log, clock },
      checkpointIntervalMs,
      ...(maxOpenFiles === undefined ? {} : { maxOpenFiles }),
    };
  };
}

/** The compaction workload's log options, if the schedule drew them. */
function compactionOf(tuning: CrashTestContext["tuning"]): LogOptions {
  const { cleanupPolicy, deleteRetentionMs } = tuning;
  return cleanupPolicy === undefined
    ? {}
    : { cleanupPolicy, ...(deleteRetentionMs === undefined ? {} : { deleteRetentionMs }) };
}

/** The adapter for one setup: every optional method of `AdapterLog`. */
export function adapterFor(setup: PagelogAdapterSetup): CrashTestAdapter {
  return {
    name: setup.name,
    extraSteps: ALL_STEPS,
    async open(storage, context) {
      const session = setup.session?.(storage);
      // A failed open is left as it is: the engine reboots the storage (or reports the error).
      const dir = await LogDir.open(session?.storage ?? storage, setup.dirOptions(context));
      const log = await dir.log(PARTITION, context.policies === undefined ? {} : { policies: context.policies });
      await session?.opened();
      return openedLog(dir, log, session);
    },
  };
}

function openedLog(dir: LogDir, log: Log, session: OpenSession | undefined): AdapterLog {
  /** Waits for a call, and for what a broken log did before returning from it. */
  const call = async <T>(promise: Promise<T>): Promise<T> => {
    const result = await promise;
    await session?.settle();
    return result;
  };
  const compacted = compacts(log.options.cleanupPolicy);
  const readRecords = async (): Promise<{ start: number; records: CrashRecordRead[]; end: number }> => {
    const start = log.startOffset;
    const records: CrashRecordRead[] = [];
    for await (const r of log.records({ from: start })) {
      records.push({ offset: r.offset, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp });
    }
    // Only a compacted log may have gaps (the engine checks that each was the cleaner's).
    if (!compacted && records.length !== log.endOffset - start)
      throw new Error(`read ${records.length} records but [start, end) is [${start}, ${log.endOffset})`);
    return { start, records, end: log.endOffset };
  };
  return {
    append: async (values) => void (await call(log.append(values.map((value) => ({ value }))))),
    appendRecords: async (records) =>
      call(
        log.append(
          records.map((r) => ({
            key: r.key,
            value: r.value,
            headers: r.headers,
            ...(r.timestamp === undefined ? {} : { timestamp: r.timestamp }),
          })),
        ),
      ),
    flush: () => call(log.flush()),
    close: () => dir.close(),
    readAll: async () => (await readRecords()).records.map((r) => r.value ?? new Uint8Array(0)),
    readRecords,
    truncateTo: async (offset) => {
      await call(log.truncateTo(offset));
      if (log.endOffset !== offset) throw new Error(`truncateTo(${offset}) left end ${log.endOffset}`);
    },
    deleteBefore: async (offset) => void (await call(log.deleteRecordsBefore(offset))),
    checkpoint: () => call(dir.checkpoint()),
    compact: async () => void (await call(log.compact())),
    durableEnd: () => log.recoveryPoint,
    recoveryDecisions: () => recoveryDecisions(log.recovery, compacted),
    recoveredFiles: () => segmentFiles(log),
    selfCheck: (moment) => selfCheck(log, moment),
  };
}

/**
 * Every file of every segment: after a recovery all of them are durable (docs/recovery.md,
 * Open (Log), 7: each cut and rebuild is fsynced before the log opens, and the rest was durable
 * already), and the log trusts them until the next crash moves its recovery point back.
 */
function segmentFiles(log: Log): string[] {
  return log.segmentBaseOffsets.flatMap((base) =>
    SEGMENT_SUFFIXES.map((suffix) => segmentFilePath(log.name, base, suffix)),
  );
}

/** pagelog's own claims at each moment the engine names. */
async function selfCheck(log: Log, moment: SelfCheckMoment): Promise<void> {
  switch (moment.kind) {
    case "compacted":
      return checkIndexTruth(log);
    case "flushed":
      if (log.recoveryPoint !== log.endOffset)
        throw new Error(`flush resolved but recoveryPoint ${log.recoveryPoint} != end ${log.endOffset}`);
      return;
    case "recovered":
      // The recovered log is the new truth: everything in it is durable now.
      if (log.recoveryPoint !== log.endOffset)
        throw new Error(`after recovery recoveryPoint ${log.recoveryPoint} != end ${log.endOffset}`);
      return checkIndexTruth(log);
    case "reopened": {
      const r = log.recovery;
      if (!r.clean || r.bytesTruncated !== 0 || r.segmentsScanned !== 0)
        throw new Error(`reopen after a clean close was not clean: ${JSON.stringify(r)}`);
      return;
    }
    case "callFailed": {
      // An injected I/O fault fails the call loudly, with an I/O code, and a failed write fails the log.
      const { error, call } = moment;
      if (!(error instanceof PagelogError) || !LOUD_CODES.has(error.code))
        throw new Error(`${call} met an injected fault and failed with ${String(error)}, not an I/O error`);
      // Moving the start is the one write that may meet a full disk and stay open: its checkpoint
      // found no room (nothing failed on disk, and what could be freed was), so the log is as
      // consistent as before (docs/recovery.md, Retention and DeleteRecords).
      const noRoom = call === "deleteBefore" && error.code === ErrorCode.NO_SPACE && log.status === "open";
      if (call !== "checkpoint" && call !== "reopen" && !noRoom && log.status !== "failed")
        throw new Error(`${call} failed with ${error.code} but the log is ${log.status}, not failed`);
      return;
    }
  }
}

/** Every offset lookup and a spread of timestamp lookups agree with a linear scan. */
async function checkIndexTruth(log: Log): Promise<void> {
  // A background cleaning between the scan and the lookups would drop what the scan saw.
  await backgroundCleanerOf(log)?.idle();
  const all: Array<{ offset: number; timestamp: number }> = [];
  for await (const r of log.records()) all.push({ offset: r.offset, timestamp: r.timestamp });
  for (const r of all) {
    const [hit] = await log.read(r.offset, { maxRecords: 1, maxBytes: 1 });
    if (hit?.offset !== r.offset) throw new Error(`index truth: read(${r.offset}) returned offset ${hit?.offset}`);
  }
  const stamps = new Set<number>();
  for (const r of all)
    stamps
      .add(r.timestamp)
      .add(r.timestamp + 1)
      .add(r.timestamp - 1);
  for (const ts of stamps) {
    const want = all.find((r) => r.timestamp >= ts)?.offset ?? null;
    const got = await log.offsetForTimestamp(ts);
    if (got !== want) throw new Error(`index truth: offsetForTimestamp(${ts}) = ${got}, linear scan says ${want}`);
  }
}
