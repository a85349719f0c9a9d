/**
 * One virtual file of a `HandlePool`'s pool proper (see pool-core.ts for the rules it keeps): the
 * calls through it, reopening an evicted descriptor on demand, eviction (syncing unsynced writes
 * first), pinning when its name changes, and keeping a failed eviction sync for its next call.
 * It reaches its pool only through `PoolSide`, the pool's slot bookkeeping. It may start from a
 * descriptor opened before the pool loaded (`_attach(real, from)`: it takes an `UnpooledFile`
 * over). Also `REOPEN`, the hook for a cheaper reopen the storage beneath may offer. Loaded with
 * the pool (door-handle-pool.ts); internal: the package exports only `HandlePool`. No `node:`
 * imports.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { readInto } from "../read-into.js";
import type { OpenOptions, Storage, StorageFile } from "../storage.js";
import { type Adopter, closedFile, EVICT_FIRST, type UnpooledFile } from "./unpooled-file.js";

/**
 * An optional property of the storage beneath a pool: `storage[REOPEN]`, a `Reopener`, reopens
 * the file an evicted handle had open more cheaply than `open()` can (`FsStorage` compares the
 * new descriptor's inode with the old one's and skips its root check then). A storage without
 * it is reopened through `open()`.
 */
export const REOPEN = Symbol("pagelog.storage.reopen");

/** See `REOPEN`. */
export interface Reopener {
  /** What tells the file `file` has open from any other; kept by the pool while it is evicted (small). */
  identify(file: StorageFile): unknown;
  /** Opens `path` (normalized) as `open(path, options)` would, for a handle whose last file `identity` named. */
  reopen(path: string, options: OpenOptions, identity: unknown): Promise<StorageFile>;
}

/** What a PooledFile may call on its pool (see HandlePool's slot methods). */
export interface PoolSide {
  inner(): Storage;
  closing(): boolean;
  takeSlot(): Promise<void>;
  freeSlot(): void;
  idle(file: PooledFile): void;
  spent(file: PooledFile): void;
  busy(file: PooledFile): void;
  pinned(file: PooledFile): void;
  unpinned(): void;
  reopened(): void;
  forget(file: PooledFile): void;
  evictionSyncing(): void;
  evictionFailed(file: PooledFile, err: unknown): void;
}

function reopenerOf(storage: Storage): Reopener | undefined {
  return (storage as { [REOPEN]?: Reopener })[REOPEN];
}

/** One virtual file of a HandlePool. */
export class PooledFile implements Adopter {
  readonly path: string;
  readonly #pool: PoolSide;
  readonly #readOnly: boolean;
  /** Where to reopen it; undefined once pinned or lost (its name no longer leads to it). */
  #where: string | undefined;
  #real: StorageFile | undefined;
  /** Which file its last descriptor had open (`Reopener.identify`), kept after an eviction. */
  #identity: unknown;
  /** Calls running on `#real` now. */
  #busy = 0;
  #opening: Promise<StorageFile> | undefined;
  #evicting: Promise<void> | undefined;
  /** Held outside the bound until closed: its file was removed or renamed. */
  #pinned = false;
  /** Why it can never be reopened (its name changed while it was evicted). */
  #lost: unknown;
  /** Bumped when a write or truncate starts and when it ends; a sync covers what it saw start. */
  #writeGen = 0;
  #syncedGen = 0;
  /** A failed eviction sync: every later sync, write and truncate fails with it. */
  #failure: unknown;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(pool: PoolSide, path: string, readOnly: boolean) {
    this.#pool = pool;
    this.path = path;
    this.#where = path;
    this.#readOnly = readOnly;
  }

  /** @internal The path it would be reopened at, undefined if pinned or lost. */
  get _where(): string | undefined {
    return this.#where;
  }

  /**
   * @internal Its first descriptor, opened by the pool (which took its slot), or by the HandlePool
   * before the pool loaded: then `from`, the file that had it, says what this one takes over (the
   * calls running on it, each of which ends with `_adoptedEnd`; writes no sync covered; a name
   * that changed, which the pool counted among its pinned descriptors).
   */
  _attach(real: StorageFile, from?: UnpooledFile): void {
    this.#real = real;
    this.#identity = reopenerOf(this.#pool.inner())?.identify(real);
    if (from !== undefined) {
      this.#busy = from._calls;
      if (from._writeGen !== from._syncedGen) this.#writeGen = 1;
      if (from._moved) {
        this.#pinned = true;
        this.#where = undefined;
        return;
      }
    }
    if (this.#busy === 0) this.#pool.idle(this);
  }

  /** @internal A call `_attach` took over ended (`wrote`: a write or truncate, now behind the descriptor). */
  _adoptedEnd(wrote: boolean): void {
    if (wrote) this.#writeGen++;
    this.#release();
  }

  // ---- StorageFile ----------------------------------------------------------------------

  async size(): Promise<number> {
    return this.#run("size", (real) => real.size());
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    return this.#run("read", (real) => real.read(position, length));
  }

  async readInto(position: number, target: Uint8Array): Promise<number> {
    return this.#run("read", (real) => readInto(real, position, target));
  }

  async write(position: number, bytes: Uint8Array): Promise<void> {
    return this.#mutate("write", (real) => real.write(position, bytes));
  }

  async truncate(length: number): Promise<void> {
    return this.#mutate("truncate", (real) => real.truncate(length));
  }

  async sync(): Promise<void> {
    this.#checkOpen("sync");
    this.#checkFailure("sync");
    const covers = this.#writeGen;
    await this.#run("sync", (real) => real.sync());
    // An eviction of another handle of this file may have failed meanwhile: report it here too.
    this.#checkFailure("sync");
    if (covers > this.#syncedGen) this.#syncedGen = covers;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#pool.forget(this);
      // Let an eviction or a reopen in flight finish first: they own the descriptor meanwhile.
      while (this.#evicting !== undefined || this.#opening !== undefined) {
        await (this.#evicting ?? this.#opening)!.catch(() => undefined);
      }
      const real = this.#real;
      if (real === undefined) return;
      this.#real = undefined;
      if (this.#pinned) this.#pool.unpinned();
      else this.#pool.freeSlot();
      await real.close();
    })();
    return this.#closing;
  }

  /**
   * See `EVICT_FIRST`: an idle descriptor becomes the first to close. A busy one is left alone,
   * and so is one with writes no sync covered yet (a segment just rolled, its roll flush still
   * to come): closing it first would cost an fsync where an older clean descriptor costs none.
   */
  [EVICT_FIRST](): void {
    const idle = this.#busy === 0 && this.#real !== undefined && !this.#pinned && !this.#closed;
    if (idle && this.#writeGen === this.#syncedGen) this.#pool.spent(this);
  }

  // ---- pool internals -------------------------------------------------------------------

  /** @internal Syncs (if its writes are not all covered by a sync) and closes the descriptor. */
  async _evict(): Promise<void> {
    const real = this.#real!;
    let done!: () => void;
    this.#evicting = new Promise<void>((resolve) => (done = resolve));
    try {
      const dirty = this.#writeGen !== this.#syncedGen;
      if (dirty) {
        const covers = this.#writeGen;
        this.#pool.evictionSyncing();
        try {
          await real.sync();
          if (covers > this.#syncedGen) this.#syncedGen = covers;
        } catch (err) {
          this.#pool.evictionFailed(this, err);
        }
      }
      try {
        await real.close();
      } catch (err) {
        // A close can report a writeback error too (NFS does): keep it if writes were behind it.
        if (dirty) this.#pool.evictionFailed(this, err);
      }
    } finally {
      this.#real = undefined;
      this.#evicting = undefined;
      done();
    }
  }

  /** @internal Keeps `err` (the first one) for the next sync, write and truncate. */
  _fail(err: unknown): void {
    this.#failure ??= err;
  }

  /** @internal Its name is about to change: hold its descriptor until it is closed. */
  async _pin(): Promise<void> {
    if (this.#pinned || this.#closed || this.#lost !== undefined) return;
    let real: StorageFile;
    try {
      real = await this.#acquire("pin");
    } catch (err) {
      if (!this.#pinned) this.#lose(err);
      return;
    }
    try {
      if (!this.#pinned && !this.#closed && this.#real === real) {
        this.#pinned = true;
        this.#where = undefined;
        this.#pool.pinned(this);
      }
    } finally {
      this.#release();
    }
  }

  /** @internal Its name changed: pinned if its descriptor is open, else lost for good. */
  _detach(): void {
    if (this.#pinned || this.#closed) return;
    if (this.#real !== undefined && this.#evicting === undefined) {
      this.#pinned = true;
      this.#where = undefined;
      this.#pool.pinned(this);
      return;
    }
    this.#lose(undefined);
  }

  #lose(cause: unknown): void {
    this.#where = undefined;
    this.#lost ??=
      cause instanceof PagelogError && (cause.code === ErrorCode.POWER_CUT || cause.code === ErrorCode.CLOSED)
        ? cause
        : new PagelogError(
            `${JSON.stringify(this.path)} was removed or renamed while its descriptor was closed: the handle cannot be reopened`,
            ErrorCode.IO,
            {
              path: this.path,
              ...(cause === undefined ? {} : { cause }),
            },
          );
  }

  // ---- running calls --------------------------------------------------------------------

  async #run<T>(op: string, task: (real: StorageFile) => Promise<T>): Promise<T> {
    // An open descriptor (the usual case for a hot file) is taken without an await.
    const real = this.#acquireOpen(op) ?? (await this.#acquire(op));
    try {
      return await task(real);
    } finally {
      this.#release();
    }
  }

  async #mutate(op: string, task: (real: StorageFile) => Promise<void>): Promise<void> {
    this.#checkOpen(op);
    this.#checkFailure(op);
    this.#writeGen++;
    try {
      await this.#run(op, task);
    } finally {
      // Bumped again when it ends: a sync that began while it ran does not cover it.
      this.#writeGen++;
    }
  }

  /** `#acquire` when the descriptor is open and not being evicted (no await); else undefined. */
  #acquireOpen(op: string): StorageFile | undefined {
    this.#checkOpen(op);
    const real = this.#real;
    if (real === undefined || this.#evicting !== undefined) return undefined;
    this.#busy++;
    this.#pool.busy(this);
    return real;
  }

  /** The open descriptor, marked busy (not evictable) until `#release()`. */
  async #acquire(op: string): Promise<StorageFile> {
    for (;;) {
      this.#checkOpen(op);
      if (this.#evicting !== undefined) {
        await this.#evicting;
        continue;
      }
      if (this.#real !== undefined) {
        this.#busy++;
        this.#pool.busy(this);
        return this.#real;
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value unchanged
      if (this.#lost !== undefined) throw this.#lost;
      if (this.#opening === undefined) {
        const opening = this.#reopen();
        this.#opening = opening;
        try {
          // #reopen marked it busy for this caller, in the same step that made it open.
          return await opening;
        } finally {
          if (this.#opening === opening) this.#opening = undefined;
        }
      }
      // Someone else is reopening it: wait, then look again (their error is theirs to report).
      await this.#opening.catch(() => undefined);
    }
  }

  async #reopen(): Promise<StorageFile> {
    await this.#pool.takeSlot();
    let real: StorageFile;
    try {
      this.#checkOpen("open");
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value unchanged
      if (this.#lost !== undefined) throw this.#lost;
      // Never `create`: a file that vanished must not come back empty under its old name.
      const inner = this.#pool.inner();
      const options = this.#readOnly ? { readOnly: true } : {};
      const reopener = reopenerOf(inner);
      real =
        reopener === undefined || this.#identity === undefined
          ? await inner.open(this.#where!, options)
          : await reopener.reopen(this.#where!, options, this.#identity);
    } catch (err) {
      this.#pool.freeSlot();
      throw err;
    }
    this.#pool.reopened();
    if (this.#closed) {
      this.#pool.freeSlot();
      await real.close().catch(() => undefined);
      this.#checkOpen("open");
    }
    this.#real = real;
    this.#identity = reopenerOf(this.#pool.inner())?.identify(real);
    this.#opening = undefined;
    this.#busy++;
    return real;
  }

  #release(): void {
    this.#busy--;
    if (this.#busy === 0 && this.#real !== undefined && !this.#pinned && !this.#closed) this.#pool.idle(this);
  }

  #checkOpen(op: string): void {
    if (this.#closed || this.#pool.closing()) throw closedFile(op, this.path);
  }

  #checkFailure(op: string): void {
    if (this.#failure === undefined) return;
    const cause = this.#failure;
    const code = cause instanceof PagelogError ? cause.code : ErrorCode.IO;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new PagelogError(
      `${op} ${JSON.stringify(this.path)}: an earlier sync of this file failed (${why}); it ran when its descriptor was closed to stay within maxOpenFiles, and the writes it covered may be lost`,
      code,
      { path: this.path, cause },
    );
  }
}
