/*
 * The options of `LogDir.open` and what it reports of the opens: their types, and one resolver
 * per option (src/options.ts), so an unknown key or a bad value is a `TypeError` naming it.
 */
import { type OptionResolvers } from "../../options.js";
import { checkMaxOpenFiles, DEFAULT_MAX_OPEN_FILES } from "../../storage/handle-pool.js";
import type { LogOptions } from "./log-options.js";
import { MAX_TIMER_MS, resolveLoadedLogOptions } from "./log-option-resolvers.js";
import { checkProgressListener, type ProgressListener, type RecoveryProgress } from "./recovery-progress.js";

/**
 * Options of `LogDir.open`: defaults for its logs, how often it checkpoints, how many files it keeps open. An unknown
 * key is a `TypeError` naming it and the known ones.
 */
export interface LogDirOptions {
  /** Defaults for every log opened from this directory; `log(name, options)` overrides them. */
  log?: LogOptions;
  /**
   * Write the recovery-point and log-start checkpoints at most this often, after a flush
   * (Kafka's `log.flush.offset.checkpoint.interval.ms`), and at close. A checkpoint only ever
   * names durable data, so a longer interval makes recovery after a crash scan more, never less.
   * A timer also checkpoints logs that flushed and went quiet; it re-arms only after its
   * checkpoint finished, so a slow disk never builds a queue of checkpoints.
   * `0`: after every flush, and no timer. `-1`: only at close and on `checkpoint()`.
   * At most 2147483647 (setTimeout's limit, about 24.8 days).
   * @defaultValue 60000
   */
  checkpointIntervalMs?: number;
  /**
   * Most file descriptors the directory keeps open at once. Segment files are opened on first
   * use and closed again, least recently used first, when this many are open; a file with
   * unsynced writes is synced before its descriptor is closed. Set it below the process's
   * `ulimit -n`, minus what the rest of the process needs (docs/file-descriptors.md).
   * @defaultValue 128
   */
  maxOpenFiles?: number;
  /**
   * Told how far the recovery of a log after a crash got: before its walk starts and after each
   * segment walked (bytes walked of the bytes to walk, segments left), as Kafka's KIP-831
   * metrics report it. Called from `dir.log(name)`, which opens (and recovers) a log; a clean
   * open walks nothing and reports nothing. A listener that throws does not fail the recovery.
   * `dir.recovery` keeps the totals.
   */
  onProgress?: (progress: RecoveryProgress) => void;
  /**
   * Open for reading only, while another process may be writing the directory: no lock is
   * taken and no file is created, written, deleted or renamed (it works on a read-only mount;
   * a path is not created either). Each log reads the valid prefix its writer left (a torn or
   * half-written tail is the end for now, never cut); `log.refresh()` (and a waiting follower,
   * every `pollMs`) re-reads the files. Every write to a log is `PAGELOG_READ_ONLY`; consumer
   * commits work (`consumers/<name>/`, under the consumer's lock); `close()` writes nothing
   * else. See docs/consumers.md, "Reading from another process".
   * @defaultValue false
   */
  readOnly?: boolean;
  /**
   * Read-only only: how often, in milliseconds, a follower waiting for records re-reads the
   * files (one listing, a few stats and small reads per poll): the latency a follower in
   * another process sees, at most this plus the read. At least 1, at most 2147483647.
   * @defaultValue 100
   */
  pollMs?: number;
}

/** What opening the directory and its logs cost, summed over the logs opened so far. */
export interface LogDirRecovery {
  /** The last shutdown was clean (the marker was there). */
  readonly clean: boolean;
  /** Logs opened (each recovered or loaded) so far. */
  readonly logsOpened: number;
  /** Segments whose batches were walked and validated. */
  readonly segmentsScanned: number;
  /** Bytes of `.log` walked. */
  readonly bytesScanned: number;
  /** Bytes cut off at the first invalid batch of a log. */
  readonly bytesTruncated: number;
  /** Segments deleted because they came after a truncation or a gap. */
  readonly segmentsDeleted: number;
  /** Segments whose `.index` and `.timeindex` were rebuilt from the log. */
  readonly indexesRebuilt: number;
  /** Milliseconds spent opening the directory and its logs. */
  readonly durationMs: number;
}

/** `LogDirOptions.pollMs`'s default. */
const DEFAULT_POLL_MS = 100;

/** One resolver per LogDir.open option: the keys here are every option it takes. */
type ResolvedDirOptions = Omit<Required<LogDirOptions>, "onProgress"> & {
  onProgress: ProgressListener | undefined;
};
export const DIR_RESOLVERS: OptionResolvers<LogDirOptions, ResolvedDirOptions> = {
  log: (value) => {
    if (value === undefined) return {};
    resolveLoadedLogOptions(value as LogOptions, "option log"); // fail on bad defaults now, not on first use
    return value as LogOptions;
  },
  checkpointIntervalMs: (value) => {
    const ms = value === undefined ? 60_000 : value;
    if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms > MAX_TIMER_MS || (ms < 0 && ms !== -1)) {
      throw new TypeError(
        `option checkpointIntervalMs must be an integer in [0, ${MAX_TIMER_MS}] or -1 (off), got ${String(ms)}`,
      );
    }
    return ms;
  },
  maxOpenFiles: (value) => checkMaxOpenFiles(value === undefined ? DEFAULT_MAX_OPEN_FILES : value),
  onProgress: checkProgressListener,
  readOnly: (value) => {
    if (value !== undefined && typeof value !== "boolean")
      throw new TypeError(`option readOnly must be a boolean, got ${typeof value}`);
    return value === true;
  },
  pollMs: (value) => {
    const ms = value === undefined ? DEFAULT_POLL_MS : value;
    if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMER_MS)
      throw new TypeError(`option pollMs must be an integer in [1, ${MAX_TIMER_MS}], got ${String(ms)}`);
    return ms;
  },
};
