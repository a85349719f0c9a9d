/**
 * A log directory, as a Kafka broker keeps one: a `.lock`, the clean-shutdown marker, the two
 * offset checkpoints, and one directory per partition (`<topic>-<partition>`).
 *
 * Opening takes the lock (`PAGELOG_LOCKED` for a second opener), reads the clean-shutdown marker
 * and deletes it durably before anything is written (so a crash from now on is seen as one),
 * reads the checkpoints (a malformed one counts as absent: recovery scans from 0) and the consumer
 * positions (a malformed file is not read as empty), removes the temp files a crash can leave of its
 * own atomic writes (`<file>.tmp` of each root file), and nothing else. Logs are opened, and recovered, on first use.
 */
import { ErrorCode, expensiveChecks, PagelogError } from "../errors.js";
import type { CheckpointEntry } from "../format/checkpoint.js";
import { resolveOptions } from "../options.js";
import { HandlePool } from "../storage/handle-pool.js";
import type { Storage, StorageLock } from "../storage/storage.js";
import { closeInProgress, loadWriteChecks, type Log, logEverFailed, type LogRecovery, openLog } from "./log.js";
import { openPathStorage } from "./options/path-storage.js";
import type { LogOptions } from "./options/log-options.js";
import { rareOptionsFor, resolveLoadedLogOptions } from "./options/log-option-resolvers.js";
import { asyncDispose } from "./util/async-dispose.js";
import { writeFileAtomically } from "./checkpoints/checkpoint-files.js";
import { CleanerCheckpoint } from "./checkpoints/cleaner-checkpoint.js";
import { type OpenedConsumers, readRoot } from "./checkpoints/root-reads.js";
import { CLEAN_SHUTDOWN_CONTENT, CLEAN_SHUTDOWN_FILE, LOCK_FILE } from "./checkpoints/root-files.js";
import { OffsetCheckpoints } from "./checkpoints/offset-checkpoints.js";
import { MAX_DIR_NAME_LENGTH, MAX_TOPIC_LENGTH, parsePartitionName } from "./checkpoints/partition-names.js";
import type { ProgressListener } from "./options/recovery-progress.js";
import { DIR_RESOLVERS, type LogDirOptions, type LogDirRecovery } from "./options/log-dir-options.js";
import type { Consumer } from "./consumers/consumer.js";
import { DirConsumers } from "./consumers/dir-consumers.js";
import type { DirTopics, TopicOptions } from "./topic/dir-topics.js";
import { loadTopics } from "./topic/lazy-topics.js";
import { loadReadOnlyMode } from "./read-only/lazy-read-only.js";
import type { Topic } from "./topic/topic.js";

export type { RecoveryProgress } from "./options/recovery-progress.js";
export type { LogDirOptions, LogDirRecovery } from "./options/log-dir-options.js";

export { MAX_DIR_NAME_LENGTH, MAX_TOPIC_LENGTH, parsePartitionName } from "./checkpoints/partition-names.js";
export { maxCheckpointBytes } from "./checkpoints/checkpoint-files.js";

export { CLEAN_SHUTDOWN_CONTENT, CLEAN_SHUTDOWN_FILE, LOCK_FILE } from "./checkpoints/root-files.js";
export { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "./checkpoints/root-files.js";

/**
 * A Kafka log directory (`log.dirs`): one subdirectory per partition (`<topic>-<partition>`), the offset checkpoint
 * files, a lock, and the clean-shutdown marker that decides whether opening a log recovers it. Open one with
 * `LogDir.open(storage)` (or, in Node, `LogDir.open(path)`), get each partition with `log(name)`, and `close()` it (or
 * `await using`).
 */
export class LogDir {
  /**
   * Every file of the directory goes through this: the storage it was opened on (or the
   * `FsStorage` made for its path) behind a `HandlePool` that bounds its descriptors.
   */
  readonly storage: HandlePool;
  readonly #ownsStorage: boolean;
  /** Read-only (LogDirOptions.readOnly): no lock (a stand-in), nothing written, ever. */
  readonly #readOnly: { readonly pollMs: number } | undefined;
  readonly #lock: StorageLock;
  readonly #clean: boolean;
  readonly #defaults: LogOptions;
  /**
   * Every partition-like name in the root at open, whatever it is (a directory, a file, …): not
   * stat-ed at open, so opening a directory of many partitions costs its listing. After a crash
   * each that is a directory must be opened (recovered) before a clean marker (see #close).
   */
  readonly #namesAtOpen: ReadonlySet<string>;
  /** The recovery-point and log-start checkpoints, and when they are written (checkpoints/offset-checkpoints.ts). */
  readonly #offsets: OffsetCheckpoints;
  /** Kafka's cleaner-offset-checkpoint: each compacted log's clean point (compaction/). */
  readonly #cleaner: CleanerCheckpoint;
  readonly #logs = new Map<string, Promise<Log>>();
  readonly #opened = new Map<string, Log>();
  readonly #onProgress: ProgressListener | undefined;
  readonly #consumers: DirConsumers;
  /** The topics opened so far (topic/), loaded by the first `topic()`: a directory of plain logs never loads them. */
  #topics: Promise<DirTopics> | undefined;
  #status: "open" | "closing" | "closed" = "open";
  /** The first close()'s promise: every later call returns it. */
  #closing: Promise<void> | undefined;

  private constructor(fields: {
    storage: HandlePool;
    ownsStorage: boolean;
    lock: StorageLock;
    clean: boolean;
    defaults: LogOptions;
    namesAtOpen: Set<string>;
    recoveryPoints: Map<string, number>;
    startOffsets: Map<string, number>;
    cleanPoints: Map<string, number>;
    checkpointIntervalMs: number;
    onProgress: ProgressListener | undefined;
    consumers: OpenedConsumers | undefined;
    readOnly: { readonly pollMs: number } | undefined;
    checkEncoded: ((file: string, text: string, entries: readonly CheckpointEntry[]) => void) | undefined;
  }) {
    this.storage = fields.storage;
    this.#readOnly = fields.readOnly;
    this.#ownsStorage = fields.ownsStorage;
    this.#lock = fields.lock;
    this.#clean = fields.clean;
    this.#defaults = fields.defaults;
    this.#namesAtOpen = fields.namesAtOpen;
    const kept = (name: string): boolean => this.#namesAtOpen.has(name) || this.#opened.has(name);
    this.#cleaner = new CleanerCheckpoint(fields.storage, fields.cleanPoints, kept);
    this.#offsets = new OffsetCheckpoints({
      storage: fields.storage,
      recoveryPoints: fields.recoveryPoints,
      startOffsets: fields.startOffsets,
      intervalMs: fields.checkpointIntervalMs,
      clock: fields.defaults.clock,
      timed: fields.readOnly === undefined,
      opened: this.#opened,
      kept,
      status: () => this.#status,
      checkEncoded: fields.checkEncoded,
    });
    this.#onProgress = fields.onProgress;
    this.#consumers = new DirConsumers(fields.storage, fields.consumers, () => this.#checkOpen());
  }

  /**
   * Opens a log directory: a path (an `FsStorage` rooted there, created if missing; in Node only,
   * see docs/entry-points.md) or any `Storage` (for example `new SimStorage({ seed: 1 })`).
   */
  static async open(where: string | Storage, options: LogDirOptions = {}): Promise<LogDir> {
    // The `log` option's defaults may give an option a plain log is never given: its resolver
    // loads first (a lazy part: log-option-resolvers.ts).
    const rare = rareOptionsFor((options as Partial<LogDirOptions> | null)?.log);
    if (rare !== undefined) await rare;
    const { log, checkpointIntervalMs, maxOpenFiles, onProgress, readOnly, pollMs } = resolveOptions(
      options,
      "LogDir.open options",
      DIR_RESOLVERS,
    );
    const ownsStorage = typeof where === "string";
    if (!ownsStorage && typeof where?.open !== "function")
      throw new TypeError("LogDir.open takes a directory path or a Storage");
    // With PAGELOG_CHECKS=all, the checkpoint writer's read-back (write/write-checks.ts), loaded
    // before anything is opened: a chunk that fails to load fails this open and leaves nothing.
    const checks = expensiveChecks ? await loadWriteChecks() : undefined;
    // A path opens FsStorage through the Node entry's opener: the log layer imports no file system.
    const raw = typeof where === "string" ? await openPathStorage(where, { readOnly }) : where;
    // Every file of the directory goes through a bounded pool of descriptors.
    const storage = new HandlePool(raw, { maxOpenFiles });
    // Read-only takes no lock: the writer holds it, and a reader must not keep it from opening.
    const lock = readOnly ? { path: LOCK_FILE, release: async () => undefined } : await storage.lock(LOCK_FILE);
    try {
      // Everything is read before anything is changed: an open that fails changes no file.
      const read = await readRoot(storage, readOnly);
      const { clean, ownTmpFiles } = read;
      // The temp files go first: they are garbage (each atomic write truncates its temp file
      // before it writes), so a removal that fails rejects the open before the marker is touched,
      // and the next open still sees a clean shutdown.
      for (const name of ownTmpFiles) await storage.remove(name);
      // The marker is deleted durably before anything else is written: from here on a crash
      // must look like one, whatever this session does. (One syncDir makes both changes durable.)
      // Read-only: nothing is written, so the marker stays the writer's.
      if (clean && !readOnly) await storage.remove(CLEAN_SHUTDOWN_FILE);
      if ((clean && !readOnly) || ownTmpFiles.length > 0) await storage.syncDir("");
      return new LogDir({
        storage,
        ownsStorage,
        lock,
        ...read,
        defaults: log,
        checkpointIntervalMs,
        onProgress,
        readOnly: readOnly ? { pollMs } : undefined,
        checkEncoded: checks?.checkEncodedCheckpoint,
      });
    } catch (err) {
      await lock.release().catch(() => undefined);
      if (ownsStorage) await storage.close().catch(() => undefined);
      throw err;
    }
  }

  /** Opened with `{ readOnly: true }`: no lock, and every write is `PAGELOG_READ_ONLY`. */
  get readOnly(): boolean {
    return this.#readOnly !== undefined;
  }

  /** True if the last shutdown of this directory was clean. */
  get clean(): boolean {
    return this.#clean;
  }

  /**
   * Opens (creating if needed, recovering as needed) the log of partition directory `name`,
   * `<topic>-<partition>`. The same name gives the same Log while it is open.
   */
  async log(name: string, options: LogOptions = {}): Promise<Log> {
    if (typeof name !== "string" || parsePartitionName(name) === undefined) {
      throw new TypeError(
        `log name must be <topic>-<partition>: a topic of [a-zA-Z0-9._-] (at most ${MAX_TOPIC_LENGTH} characters, not "." or ".."), a partition in [0, 2147483647], at most ${MAX_DIR_NAME_LENGTH} characters in all; got ${typeof name === "string" ? JSON.stringify(name.length > 300 ? `${name.slice(0, 300)}…` : name) : typeof name}`,
      );
    }
    // The resolvers of options a plain log is never given (a clock, a policy, a CRC-32C) load
    // first when these give one (a lazy part: log-option-resolvers.ts); then this call goes on.
    const rare = rareOptionsFor(options, this.#defaults);
    if (rare !== undefined) return rare.then(() => this.log(name, options));
    resolveLoadedLogOptions(options, "log options"); // names a bad option of this call, before it is merged
    this.#checkOpen();
    const resolved = resolveLoadedLogOptions({ ...this.#defaults, ...options });
    let opening = this.#logs.get(name);
    const previous = this.#opened.get(name);
    const closing = previous === undefined ? undefined : closeInProgress(previous);
    if (closing !== undefined) {
      // log.close() was called and has not finished: wait for it, then open the log again, rather
      // than hand back a Log whose every call is about to fail PAGELOG_CLOSED.
      return closing.then(
        () => this.log(name, options),
        () => this.log(name, options),
      );
    }
    if (previous?.status === "closed") {
      // Closed by log.close() (or asyncDispose): open it again rather than hand back a closed Log.
      // Not after a failure: a failed fsync's pages may read back fine from the page cache while
      // the disk lacks them, so only a restart can tell what survived.
      if (logEverFailed(previous)) {
        return Promise.reject(
          new PagelogError(
            `log ${name} failed and was closed; reopen the directory after a restart`,
            ErrorCode.FAILED,
            { path: name },
          ),
        );
      }
      // Its close flushed everything: its own values are the newest, and durable.
      this.#offsets.reopened(name, previous);
      this.#opened.delete(name); // so a concurrent log(name) waits for this reopen instead of starting another
      opening = undefined;
    }
    if (opening === undefined) {
      opening = this.#openLog(name, resolved);
      this.#logs.set(name, opening);
      opening.catch(() => this.#logs.delete(name));
    }
    return opening;
  }

  async #openLog(name: string, options: ReturnType<typeof resolveLoadedLogOptions>): Promise<Log> {
    const existing = await this.storage.stat(name);
    if (this.#readOnly !== undefined) {
      // read-only/read-only-open.ts: a missing partition is not created, a refresh re-reads the
      // checkpoints. Loaded here, on demand: a writable directory never loads the read-only room.
      const { openReadOnlyLog } = await loadReadOnlyMode();
      const log = await openReadOnlyLog(name, options, existing, {
        storage: this.storage,
        clean: this.#clean,
        pollMs: this.#readOnly.pollMs,
        recoveryPoint: this.#offsets.recoveryPoint(name),
        logStartOffset: this.#offsets.startOffset(name),
        cleanPoint: this.#cleaner.get(name),
        checkpoint: () => this.checkpoint(),
      });
      this.#opened.set(name, log);
      this.#consumers.logOpened(name, log.endOffset);
      return log;
    }
    if (existing === null) {
      // The partition directory must be durable before anything in it can be.
      await this.storage.mkdir(name);
      await this.storage.syncDir("");
    } else if (existing.kind !== "dir") {
      throw new PagelogError(`${name} exists and is not a directory`, ErrorCode.IO, { path: name });
    }
    // A partition directory that is not there was deleted on purpose (its creation is made durable
    // before anything in it): a new log, whatever stale checkpoint entries still name it. Otherwise
    // the loader would take those for flushed records that went missing.
    const fresh = existing === null;
    const log = await openLog(
      name,
      {
        storage: this.storage,
        checkpoint: () => this.checkpoint(),
        flushed: () => this.#offsets.afterFlush(),
        cleaned: (offset) => this.#cleaner.set(name, offset),
      },
      options,
      {
        clean: this.#clean,
        recoveryPoint: fresh ? undefined : this.#offsets.recoveryPoint(name),
        logStartOffset: fresh ? undefined : this.#offsets.startOffset(name),
        cleanPoint: fresh ? undefined : this.#cleaner.get(name),
        onProgress: this.#onProgress,
      },
    );
    this.#opened.set(name, log);
    this.#consumers.logOpened(name, log.endOffset);
    return log;
  }

  /**
   * The consumer `name` (`[a-zA-Z0-9._-]`, at most 249 characters): its committed offsets, one per partition
   * (docs/consumers.md). `PAGELOG_CORRUPT` if its positions file read at open is not one: never a silent reset.
   * Read-only too: a consumer commits from any opener (its lock makes one opener its writer at a time), and
   * `consumer.refresh()` reads what other openers committed.
   */
  consumer(name: string): Consumer {
    return this.#consumers.get(name);
  }

  /**
   * The topic `name` over its partition logs `<name>-0` … (docs/topics.md): reopened with its recorded partition
   * count or more (partitions are added), never fewer (`PAGELOG_PARTITION_COUNT`). Records typed by `serde`.
   */
  async topic<K = Uint8Array, V = Uint8Array>(name: string, options?: TopicOptions<K, V>): Promise<Topic<K, V>> {
    this.#checkOpen();
    this.#topics ??= loadTopics().then(
      ({ DirTopics }) => new DirTopics(this.storage, this.readOnly, this.log.bind(this), this.consumer.bind(this)),
      (err: unknown) => {
        this.#topics = undefined; // a chunk that failed to load (a network error) is tried again next time
        throw err;
      },
    );
    return (await this.#topics).open(name, options);
  }

  /** Names of the partition directories in this log directory, sorted. */
  async logs(): Promise<string[]> {
    this.#checkOpen();
    const out: string[] = [];
    for (const name of await this.storage.list("")) {
      if (parsePartitionName(name) !== undefined && (await this.storage.stat(name))?.kind === "dir") out.push(name);
    }
    return out;
  }

  /** What opening the logs cost so far, summed. */
  get recovery(): LogDirRecovery {
    const sum = (f: (r: LogRecovery) => number) => [...this.#opened.values()].reduce((n, l) => n + f(l.recovery), 0);
    return {
      clean: this.#clean,
      logsOpened: this.#opened.size,
      segmentsScanned: sum((r) => r.segmentsScanned),
      bytesScanned: sum((r) => r.bytesScanned),
      bytesTruncated: sum((r) => r.bytesTruncated),
      segmentsDeleted: sum((r) => r.segmentsDeleted),
      indexesRebuilt: sum((r) => r.indexesRebuilt),
      durationMs: sum((r) => r.durationMs),
    };
  }

  /**
   * Writes both checkpoints durably: each to `<name>.tmp`, fsynced, renamed over the old one,
   * then the directory fsynced, so a crash leaves the old checkpoint or the new one, whole.
   * Logs record only recovery points whose data is durable, so a checkpoint never claims more.
   */
  checkpoint(): Promise<void> {
    if (this.#readOnly !== undefined)
      return Promise.reject(
        new PagelogError("the log directory was opened read-only (checkpoint)", ErrorCode.READ_ONLY),
      );
    return this.#offsets.write();
  }

  /**
   * Clean shutdown: closes every log (flush, final index entries), writes the checkpoints, then
   * the clean-shutdown marker, fsynced, and releases the lock. The marker is written only if
   * every log closed cleanly and every partition that needed recovery was opened this session;
   * otherwise the next open recovers from the checkpoints, which is always safe.
   */
  close(): Promise<void> {
    // Every call gets the first call's promise: a second close() must not resolve while the
    // first is still writing the marker and holding the lock.
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#status = "closing";
    this.#offsets.stop();
    let failure: unknown;
    try {
      const results = await Promise.allSettled([...this.#logs.values()].map(async (p) => (await p).close()));
      failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected")?.reason;
      await this.#consumers.close(); // commits made before close() are written before the locks go
      // Read-only: writes nothing (no checkpoint, no marker); the finally closes the storage.
      if (this.#readOnly === undefined) await this.#closeWrites(failure);
    } catch (err) {
      failure ??= err;
    } finally {
      // A lock file that could not be removed is reported: the close did not finish its job.
      // (The file left behind is stale to every later opener, this process included.)
      await this.#lock.release().catch((err: unknown) => {
        failure ??= err;
      });
      if (this.#ownsStorage) await this.storage.close().catch(() => undefined);
      this.#status = "closed";
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value unchanged
    if (failure !== undefined) throw failure;
  }

  /** Close's writes: the checkpoints, then the marker if every log closed cleanly and was recovered. */
  async #closeWrites(failure: unknown): Promise<void> {
    await this.checkpoint();
    const everyLogRecovered = this.#clean || (await this.#everyPartitionOpened());
    const anyFailed = [...this.#opened.values()].some((l) => logEverFailed(l));
    if (failure === undefined && !anyFailed && everyLogRecovered) {
      await writeFileAtomically(this.storage, CLEAN_SHUTDOWN_FILE, new TextEncoder().encode(CLEAN_SHUTDOWN_CONTENT));
      await this.storage.syncDir("");
    }
  }

  /** After a crash: whether every partition directory there at open was opened (so recovered). */
  async #everyPartitionOpened(): Promise<boolean> {
    for (const name of this.#namesAtOpen) {
      if (!this.#opened.has(name) && (await this.storage.stat(name))?.kind === "dir") return false;
    }
    return true;
  }

  /** `await using dir = await LogDir.open(…)` (`Symbol.asyncDispose`): the same promise as `close()`. */
  [asyncDispose](): Promise<void> {
    return this.close();
  }

  #checkOpen(): void {
    if (this.#status !== "open") throw new PagelogError(`log directory is ${this.#status}`, ErrorCode.CLOSED);
  }
}
