/**
 * HandlePool: a `Storage` that keeps at most `maxOpenFiles` descriptors of the storage beneath it
 * open, however many files its callers hold open. Every `LogDir` goes through one.
 *
 * Most directories never come near the bound, so the pool proper (pool/pool-core.ts: least recently
 * used eviction, syncing before closing, reopening, pinning on a name change; its rules are
 * written there) loads only when it is needed, through one `import()` (pool/door-handle-pool.ts,
 * docs/entry-points.md "Lazy parts"). Until then a HandlePool is a pass-through that counts:
 * each call goes straight to the storage beneath, and each open returns an `UnpooledFile`, the
 * descriptor with what the pool will need to take it over (pool/unpooled-file.ts). The call that
 * would take the `maxOpenFiles`-th descriptor (an open, or a `list`, `syncDir` or `lock`, which
 * hold one while they run) loads the pool first. The pool starts from this one's counts, adopts
 * every file open now with its descriptor (a file with calls running on it stays busy until they
 * end, one with writes no sync covered is synced before it is ever closed, one whose name was
 * removed or renamed stays pinned), and every later call goes to it. So below the bound nothing
 * is ever closed, as before, and at it the pool bounds every descriptor, those opened before it
 * loaded included. Calls in flight when it loads end in the pool's books: an open that completes
 * then is adopted, a close or a transient call gives its slot back to the pool.
 *
 * The load waits inside that call, which was asynchronous already: a chunk that fails to load
 * fails that call alone (nothing was opened or changed), and the next such call loads it.
 * No `node:` imports: the pool runs in a browser too.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { resolveOptions } from "../options.js";
import { loadHandlePool } from "./pool/door-handle-pool.js";
import { checkOpenOptions } from "./open-options.js";
import { isAtOrUnder, normalizePath } from "./paths.js";
import type { PoolCore } from "./pool/pool-core.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage.js";
import { UnpooledFile, type UnpooledSide } from "./pool/unpooled-file.js";

/**
 * The default bound: half of the smallest soft `ulimit -n` in common use (256 on macOS), which
 * leaves the other half for Node itself, sockets and the application.
 */
export const DEFAULT_MAX_OPEN_FILES = 128;

/** Options of `new HandlePool(storage, options)`. */
export interface HandlePoolOptions {
  /**
   * Most descriptors of the storage beneath to keep open at once (see {@link HandlePool}).
   * @defaultValue 128
   */
  maxOpenFiles?: number;
}

/** What a pool did so far, for tests, benchmarks and capacity planning. */
export interface HandlePoolStats {
  /** Descriptors open now: bounded ones (including transient list/syncDir/lock) plus pinned ones. */
  readonly open: number;
  /** The most that were ever open at once. */
  readonly peakOpen: number;
  /** Virtual files open now. */
  readonly files: number;
  /** Descriptors opened on the storage beneath (first opens and reopens). */
  readonly opens: number;
  /** Descriptors closed to make room. */
  readonly evictions: number;
  /** Evictions that had to sync first (writes no sync had covered yet). */
  readonly evictionSyncs: number;
  /** Eviction syncs (or closes) that failed; each failure is kept for the file's next sync. */
  readonly evictionFailures: number;
  /** Descriptors held outside the bound because their file was removed or renamed. */
  readonly pinned: number;
}

/** Validates `maxOpenFiles`: a positive safe integer, else a TypeError naming the option. */
export function checkMaxOpenFiles(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `option maxOpenFiles must be a positive integer, got ${typeof value === "number" ? String(value) : typeof value}`,
    );
  }
  return value;
}

/**
 * A `Storage` that keeps at most `maxOpenFiles` descriptors of the storage beneath it open, however many files its
 * callers hold open: idle ones are closed least recently used first (synced first if they hold unsynced writes) and
 * reopened on their next use. Every `LogDir` reads and writes through one (`LogDir.storage`). The code that closes
 * and reopens descriptors loads (one `import()`) at the first call that would take the `maxOpenFiles`-th one.
 */
export class HandlePool implements Storage {
  /** The storage whose descriptors this pool bounds. */
  readonly inner: Storage;
  /** The bound on open descriptors (`HandlePoolOptions.maxOpenFiles`). */
  readonly maxOpenFiles: number;
  /** The pool proper, once loaded: every call goes there. */
  #core: PoolCore | undefined;
  #loading: Promise<void> | undefined;
  // Until the pool proper loads (its start, then):
  /** Bounded slots taken: descriptors open, opening or closing whose name did not change, and transient calls. */
  #open = 0;
  /** Descriptors whose file was removed or renamed: outside the bound. */
  #pinned = 0;
  #peak = 0;
  #opens = 0;
  /** Files open (not closing): the pool adopts each when it loads. */
  readonly #files = new Set<UnpooledFile>();
  #closing: Promise<void> | undefined;
  readonly #side: UnpooledSide = {
    closing: () => this.closing,
    forget: (file) => this.#files.delete(file),
    free: (moved) => this.#free(moved),
  };

  /** A pool over `inner` that keeps at most `options.maxOpenFiles` of its descriptors open. */
  constructor(inner: Storage, options: HandlePoolOptions = {}) {
    if (typeof inner?.open !== "function") throw new TypeError("HandlePool takes a Storage");
    this.inner = inner;
    ({ maxOpenFiles: this.maxOpenFiles } = resolveOptions(options, "HandlePool options", {
      maxOpenFiles: (value) => checkMaxOpenFiles(value === undefined ? DEFAULT_MAX_OPEN_FILES : value),
    }));
  }

  /** Counts of what the pool did so far (see `HandlePoolStats`). */
  get stats(): HandlePoolStats {
    return (
      this.#core?.stats ?? {
        open: this.#open + this.#pinned,
        peakOpen: this.#peak,
        files: this.#files.size,
        opens: this.#opens,
        evictions: 0,
        evictionSyncs: 0,
        evictionFailures: 0,
        pinned: this.#pinned,
      }
    );
  }

  // ---- Storage --------------------------------------------------------------------------

  /** `Storage.open`: opens (with `create`, creates) the file at `path`. */
  async open(path: string, options: OpenOptions = {}): Promise<StorageFile> {
    const p = normalizePath(path);
    this.#checkOpen("open");
    checkOpenOptions(options);
    const core = await this.#slot();
    if (core !== undefined) return core.open(p, options);
    let real: StorageFile;
    try {
      real = await this.inner.open(p, options);
    } catch (err) {
      this.#free(false);
      throw err;
    }
    if (this.#closing !== undefined) {
      // close() ran while the open was in flight: do not leak the descriptor.
      this.#free(false);
      await real.close().catch(() => undefined);
      this.#checkOpen("open");
    }
    const readOnly = options.readOnly === true;
    // The pool loaded while this open ran: it takes the descriptor over (its slot is counted).
    if (this.#core) return this.#core.adopt(p, readOnly, real);
    this.#opens++;
    const file = new UnpooledFile(this.#side, p, readOnly, real);
    this.#files.add(file);
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
    return this.#transient((storage) => storage.list(dir));
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
    if (this.#core) return this.#core.remove(p);
    this.#moved(p);
    await this.inner.remove(p);
    this.#moved(p);
  }

  /** `Storage.rename`: renames `from` to `to`, replacing a file there. */
  async rename(from: string, to: string): Promise<void> {
    const f = normalizePath(from);
    const t = normalizePath(to);
    this.#checkOpen("rename");
    if (this.#core) return this.#core.rename(f, t);
    const moved = (): void => {
      if (f === t) return;
      this.#moved(f);
      this.#moved(t);
    };
    moved();
    await this.inner.rename(f, t);
    moved();
  }

  /** `Storage.syncDir`: makes the entries of directory `dir` durable. */
  async syncDir(dir: string): Promise<void> {
    this.#checkOpen("syncDir");
    return this.#transient((storage) => storage.syncDir(dir));
  }

  /** `Storage.lock`: an exclusive lock on `path`, refused with `PAGELOG_LOCKED` while another holder has it. */
  async lock(path: string): Promise<StorageLock> {
    this.#checkOpen("lock");
    return this.#transient((storage) => storage.lock(path));
  }

  /** Closes every virtual file, then the storage beneath. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#core) return this.#core.close();
      const results = await Promise.allSettled([...this.#files].map((f) => f.close()));
      results.push(...(await Promise.allSettled([this.inner.close()])));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    })();
    return this.#closing;
  }

  /** Whether `close()` was called. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  // ---- until the pool proper loads ------------------------------------------------------

  /**
   * Takes a slot for a call that holds a descriptor: here (undefined), or, if this one would be
   * the `maxOpenFiles`-th, in the pool proper, loaded first (which it resolves with, as it does
   * once it is loaded).
   */
  async #slot(): Promise<PoolCore | undefined> {
    if (!this.#core && this.#open + 1 >= this.maxOpenFiles) await this.#load();
    if (!this.#core) this.#peak = Math.max(this.#peak, ++this.#open + this.#pinned);
    return this.#core;
  }

  /** Gives back a slot `#slot` took here (`moved`: a descriptor whose name changed), to the pool proper if it loaded since. */
  #free(moved: boolean): void {
    if (this.#core) this.#core.free(moved);
    else if (moved) this.#pinned--;
    else this.#open--;
  }

  async #transient<T>(task: (storage: Storage) => Promise<T>): Promise<T> {
    const core = await this.#slot();
    if (core !== undefined) return task(core);
    try {
      return await task(this.inner);
    } finally {
      this.#free(false);
    }
  }

  /**
   * Loads the pool proper (one load at a time; a failed one is not kept) and hands it everything
   * this pool holds, in one step: its counts and every open file, each with its descriptor.
   */
  #load(): Promise<void> {
    this.#loading ??= loadHandlePool().then(
      ({ PoolCore }) => {
        this.#checkOpen("open");
        if (this.#core) return;
        const start = { inUse: this.#open, pinned: this.#pinned, peak: this.#peak, opens: this.#opens };
        const core = new PoolCore(this.inner, this.maxOpenFiles, start);
        // Least recently used first: the pool's idle order is the order it adopts in, so its first
        // evictions are the files this directory used longest ago, as if it had run from the start.
        const byLastUse = [...this.#files].sort((a, b) => a._lastUse - b._lastUse);
        for (const file of byLastUse) file._pooled = core.adopt(file.path, file._readOnly, file._real, file);
        this.#files.clear();
        this.#core = core;
      },
      (err: unknown) => {
        this.#loading = undefined;
        throw err;
      },
    );
    return this.#loading;
  }

  /**
   * A name at `path` is about to change, or changed: the files open at it or inside it hold their
   * descriptor until they are closed, outside the bound (the pool pins them: never reopened at a
   * name that now leads elsewhere). If the pool loaded meanwhile, it does so for its own files.
   */
  #moved(path: string): void {
    if (this.#core) return this.#core.renamed(path);
    for (const file of this.#files) {
      if (!file._moved && isAtOrUnder(file.path, path)) {
        file._moved = true;
        this.#open--;
        this.#pinned++;
      }
    }
  }

  #checkOpen(op: string): void {
    if (this.#closing !== undefined) throw new PagelogError(`${op}: the storage is closed`, ErrorCode.CLOSED);
  }
}
