/**
 * The pool proper of a `HandlePool` (../handle-pool.ts), loaded through door-handle-pool.ts when the
 * HandlePool's calls are about to hold `maxOpenFiles` descriptors: a `Storage` that keeps at
 * most `maxOpenFiles` descriptors of the storage beneath it open, however many files its callers
 * hold open. It starts with what the HandlePool holds (its counts, and every file it opened, each
 * taken over with its descriptor: `adopt`), and the HandlePool passes every later call to it.
 *
 * `open()` returns a virtual `StorageFile`. Its descriptor underneath is opened at once (so
 * `open` fails exactly as the contract says: `PAGELOG_NOT_FOUND`, `create`, a directory…), and
 * from then on the pool may close it whenever it is idle and another file needs a descriptor:
 * least recently used first. The next call on an evicted file opens it again (never with
 * `create`), transparently. A log directory with thousands of segments therefore holds
 * descriptors only for the files it is using now.
 *
 * The rules that keep this invisible to durability:
 *
 * - **An eviction never drops unsynced writes on the floor.** A descriptor with writes or
 *   truncations behind it that no successful `sync()` covered is synced before it is closed.
 *   Closing it unsynced would be harmless to the data (the page cache keeps it), but not to the
 *   error: Linux reports a failed writeback only to descriptors that were open when it happened
 *   (errseq), so a later `sync()` on a freshly opened descriptor could succeed while the writes
 *   were lost. Guarantee 8 (no flush reports data durable that is not) would break silently.
 * - **A failed eviction sync is never forgotten.** The error is kept on every open virtual handle
 *   of that file, and each of them fails its next `sync()`, `write()` and `truncate()` with it
 *   (the same code, the original as `cause`) until it is closed. A Log that meets it goes
 *   `failed`, as with any failed fsync. Reads and `size()` keep working on what the cache holds.
 * - **Names are tracked.** `remove()` and `rename()` through the pool first *pin* every virtual
 *   handle on the affected path: its descriptor is opened if it was evicted and never closed
 *   again until the handle is, so it keeps working on the unlinked (or renamed) file as the
 *   contract promises, and is never reopened at a path that now names another file, or nothing.
 *   Pinned descriptors are outside the bound (pagelog closes a segment before deleting it, so in
 *   practice there are none).
 * - **Power cuts and closed storages stay visible.** A pool wraps one storage object; reopening
 *   goes through that object, so after a `SimStorage` power cut an evicted handle fails with
 *   `PAGELOG_POWER_CUT` like every other handle of that boot (the rebooted storage is another
 *   object, which this pool never sees). After `close()` everything fails with `PAGELOG_CLOSED`.
 *
 * The bound also covers the descriptors the storage beneath opens for a moment: `list()`,
 * `syncDir()` and `lock()` each hold a slot while they run (FsStorage opens the directory, or
 * the lock file). Calls that find every slot busy wait for one (first come, first served); no
 * call ever holds one slot while waiting for another, so any bound of 1 or more makes progress.
 *
 * This file holds the pool and its slots; the virtual file is `PooledFile` in pooled-file.ts.
 * Internal (the package exports `HandlePool`). No `node:` imports: the pool runs in a browser too.
 */
import { checkOpenOptions } from "../open-options.js";
import { ErrorCode, PagelogError } from "../../errors.js";
import { isAtOrUnder, normalizePath } from "../paths.js";
import { type PoolSide, PooledFile } from "./pooled-file.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../storage.js";
import type { UnpooledFile } from "./unpooled-file.js";

/** What a HandlePool held before its pool loaded, which the pool starts from. */
export interface PoolStart {
  /** Bounded slots taken: descriptors open (or opening, or closing) whose name did not change, transient calls. */
  readonly inUse: number;
  /** Descriptors whose file was removed or renamed. */
  readonly pinned: number;
  readonly peak: number;
  readonly opens: number;
}

/**
 * A `Storage` that keeps at most `maxOpenFiles` descriptors of the storage beneath it open, however many files its
 * callers hold open: idle ones are closed least recently used first (synced first if they hold unsynced writes) and
 * reopened on their next use. A `HandlePool` loads one when it needs it.
 */
export class PoolCore implements Storage {
  /** The storage whose descriptors this pool bounds. */
  readonly inner: Storage;
  /** The bound on open descriptors (`HandlePoolOptions.maxOpenFiles`, checked by the HandlePool). */
  readonly maxOpenFiles: number;
  /** Bounded slots taken: open (or opening) unpinned descriptors plus transient calls. */
  #inUse = 0;
  #pinned = 0;
  #peak = 0;
  #opens = 0;
  #evictions = 0;
  #evictionSyncs = 0;
  #evictionFailures = 0;
  /** Open, idle, unpinned files: the eviction candidates, least recently used first. */
  readonly #idle = new Set<PooledFile>();
  /**
   * Idle files whose holder said it read what it needed (`evictFirst`: an index read whole into
   * memory): evicted before any of `#idle`, so loading a segment does not push the descriptors of
   * the segments being read out of the pool. Any later use puts a file back in `#idle`.
   */
  readonly #idleFirst = new Set<PooledFile>();
  /** Virtual files not yet closed. */
  readonly #files = new Set<PooledFile>();
  /** Calls waiting for a slot, woken one at a time when a slot or an idle file turns up. */
  readonly #waiters: Array<() => void> = [];
  #closing: Promise<void> | undefined;
  /** What a PooledFile may call on its pool: the slot bookkeeping, kept out of the public type. */
  readonly #side: PoolSide = {
    inner: () => this.inner,
    closing: () => this.closing,
    takeSlot: () => this.#takeSlot(),
    freeSlot: () => this.#freeSlot(),
    idle: (file) => this.#markIdle(file),
    spent: (file) => this.#markSpent(file),
    busy: (file) => this.#busy(file),
    pinned: (file) => this.#markPinned(file),
    unpinned: () => this.#unpinned(),
    reopened: () => this.#reopened(),
    forget: (file) => this.#forget(file),
    evictionSyncing: () => this.#evictionSyncing(),
    evictionFailed: (file, err) => this.#evictionFailed(file, err),
  };

  /** A pool over `inner` that keeps at most `maxOpenFiles` of its descriptors open, starting from `start`. */
  constructor(inner: Storage, maxOpenFiles: number, start: PoolStart) {
    this.inner = inner;
    this.maxOpenFiles = maxOpenFiles;
    ({ inUse: this.#inUse, pinned: this.#pinned, peak: this.#peak, opens: this.#opens } = start);
  }

  /** Counts of what the pool did so far (see `HandlePoolStats`). */
  get stats() {
    return {
      open: this.#inUse + this.#pinned,
      peakOpen: this.#peak,
      files: this.#files.size,
      opens: this.#opens,
      evictions: this.#evictions,
      evictionSyncs: this.#evictionSyncs,
      evictionFailures: this.#evictionFailures,
      pinned: this.#pinned,
    };
  }

  // ---- Storage --------------------------------------------------------------------------

  /** `Storage.open`: opens (with `create`, creates) the file at `path`. */
  async open(path: string, options: OpenOptions = {}): Promise<StorageFile> {
    const p = normalizePath(path);
    this.#checkOpen("open");
    checkOpenOptions(options);
    const file = new PooledFile(this.#side, p, options.readOnly === true);
    await this.#takeSlot();
    let real: StorageFile;
    try {
      real = await this.inner.open(p, options);
    } catch (err) {
      this.#freeSlot();
      throw err;
    }
    this.#opens++;
    if (this.#closing !== undefined) {
      // close() ran while the open was in flight: do not leak the descriptor.
      this.#freeSlot();
      await real.close().catch(() => undefined);
      this.#checkOpen("open");
    }
    this.#files.add(file);
    file._attach(real);
    return file;
  }

  /** `Storage.stat`: the entry's kind and cached size, or null. */
  async stat(path: string): Promise<StorageStat | null> {
    this.#checkOpen("stat");
    return this.inner.stat(path);
  }

  /** `Storage.list`: the names in directory `dir`, sorted. */
  async list(dir: string): Promise<string[]> {
    this.#checkOpen("list");
    return this.#transient(() => this.inner.list(dir));
  }

  /** `Storage.mkdir`: creates directory `dir` (durable after `syncDir` of its parent). */
  async mkdir(dir: string): Promise<void> {
    this.#checkOpen("mkdir");
    return this.inner.mkdir(dir);
  }

  /** `Storage.remove`: removes the file or empty directory at `path`. */
  async remove(path: string): Promise<void> {
    const p = normalizePath(path);
    this.#checkOpen("remove");
    await this.#pinAll(p);
    await this.inner.remove(p);
    this.#afterNameChange(p);
  }

  /** `Storage.rename`: renames `from` to `to`, replacing a file there. */
  async rename(from: string, to: string): Promise<void> {
    const f = normalizePath(from);
    const t = normalizePath(to);
    this.#checkOpen("rename");
    if (f !== t) {
      await this.#pinAll(f);
      await this.#pinAll(t);
    }
    await this.inner.rename(f, t);
    if (f !== t) {
      this.#afterNameChange(f);
      this.#afterNameChange(t);
    }
  }

  /** `Storage.syncDir`: makes the entries of directory `dir` durable. */
  async syncDir(dir: string): Promise<void> {
    this.#checkOpen("syncDir");
    return this.#transient(() => this.inner.syncDir(dir));
  }

  /** `Storage.lock`: an exclusive lock on `path`, refused with `PAGELOG_LOCKED` while another holder has it. */
  async lock(path: string): Promise<StorageLock> {
    this.#checkOpen("lock");
    return this.#transient(() => this.inner.lock(path));
  }

  /** Closes every virtual file, then the storage beneath. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      // Anyone waiting for a slot wakes up to PAGELOG_CLOSED (a file's close may wait for them).
      await Promise.resolve();
      for (const wake of this.#waiters.splice(0)) wake();
      const results = await Promise.allSettled([...this.#files].map((f) => f.close()));
      results.push(...(await Promise.allSettled([this.inner.close()])));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    })();
    return this.#closing;
  }

  // ---- taking over from the HandlePool -----------------------------------------------------

  /**
   * A file on a descriptor the HandlePool opened before this pool loaded, whose slot (or pin) is
   * already counted in the start: `from`'s, or (without `from`) that of an open in flight then.
   */
  adopt(path: string, readOnly: boolean, real: StorageFile, from?: UnpooledFile): PooledFile {
    const file = new PooledFile(this.#side, path, readOnly);
    if (from === undefined) this.#opens++;
    this.#files.add(file);
    file._attach(real, from);
    return file;
  }

  /** A descriptor the HandlePool opened (or a transient call it began) before this pool loaded is done with. */
  free(moved: boolean): void {
    if (moved) this.#unpinned();
    else this.#freeSlot();
  }

  /** A remove or rename the HandlePool began before this pool loaded is done: see `#afterNameChange`. */
  renamed(path: string): void {
    this.#afterNameChange(path);
  }

  // ---- slots (private; PooledFile reaches them through #side) ----------------------------

  /**
   * Takes one bounded slot: a free one, else the least recently used idle file's (evicting it,
   * which syncs it first if it has unsynced writes), else waits.
   */
  async #takeSlot(): Promise<void> {
    for (;;) {
      this.#checkOpen("open");
      if (this.#inUse < this.maxOpenFiles) {
        this.#inUse++;
        this.#peak = Math.max(this.#peak, this.#inUse + this.#pinned);
        return;
      }
      const victim = this.#idleFirst.values().next().value ?? this.#idle.values().next().value;
      if (victim !== undefined) {
        this.#idleFirst.delete(victim);
        this.#idle.delete(victim);
        this.#evictions++;
        // The victim's slot passes straight to this caller: #inUse does not change.
        await victim._evict();
        return;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Gives a slot back (a descriptor closed, a transient call done). */
  #freeSlot(): void {
    this.#inUse--;
    this.#wakeOne();
  }

  /** A file's descriptor is open and unused: it may be evicted, least recently used first. */
  #markIdle(file: PooledFile): void {
    this.#idleFirst.delete(file);
    this.#idle.delete(file);
    this.#idle.add(file);
    this.#wakeOne();
  }

  /** An idle file its holder will not need again soon: the first to evict. */
  #markSpent(file: PooledFile): void {
    if (this.#idle.delete(file)) this.#idleFirst.add(file);
  }

  /** A file's descriptor is in use (or gone): not an eviction candidate. */
  #busy(file: PooledFile): void {
    this.#idleFirst.delete(file);
    this.#idle.delete(file);
  }

  /** A file's descriptor leaves the bound: its file was removed or renamed. */
  #markPinned(file: PooledFile): void {
    this.#idleFirst.delete(file);
    this.#idle.delete(file);
    this.#pinned++;
    this.#freeSlot();
  }

  /** A pinned descriptor was closed. */
  #unpinned(): void {
    this.#pinned--;
  }

  #reopened(): void {
    this.#opens++;
  }

  #forget(file: PooledFile): void {
    this.#files.delete(file);
    this.#idleFirst.delete(file);
    this.#idle.delete(file);
  }

  #evictionSyncing(): void {
    this.#evictionSyncs++;
  }

  /**
   * An eviction's sync (or close) failed: every open virtual handle of that file keeps the error
   * for its next sync, as every descriptor open at the time would have seen it from the kernel.
   */
  #evictionFailed(file: PooledFile, err: unknown): void {
    this.#evictionFailures++;
    const where = file._where;
    for (const f of this.#files) if (f === file || (where !== undefined && f._where === where)) f._fail(err);
    file._fail(err);
  }

  /** Whether `close()` was called. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  #wakeOne(): void {
    this.#waiters.shift()?.();
  }

  async #transient<T>(task: () => Promise<T>): Promise<T> {
    await this.#takeSlot();
    try {
      return await task();
    } finally {
      this.#freeSlot();
    }
  }

  /** Pins every virtual file at `path` or inside it, before its name changes. */
  async #pinAll(path: string): Promise<void> {
    const affected = [...this.#files].filter((f) => f._where !== undefined && isAtOrUnder(f._where, path));
    for (const f of affected) await f._pin();
  }

  /**
   * After a name changed: a file opened at that path while the change was in flight is pinned
   * if its descriptor is open (it holds an inode, whichever), or can never be reopened safely.
   */
  #afterNameChange(path: string): void {
    for (const f of this.#files) if (f._where !== undefined && isAtOrUnder(f._where, path)) f._detach();
  }

  #checkOpen(op: string): void {
    if (this.#closing !== undefined) throw new PagelogError(`${op}: the storage is closed`, ErrorCode.CLOSED);
  }
}
