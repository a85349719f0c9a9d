/**
 * The file a `HandlePool` hands out before its pool proper is loaded (see ../handle-pool.ts): a
 * pass-through to the descriptor the storage beneath opened, which keeps what the pool needs to
 * take the file over when it loads: the calls running on it, whether writes no sync covered are
 * behind it, and whether its name was removed or renamed. The pool then adopts it
 * (`PooledFile._attach(real, from)`) and every later call goes to the pooled file, which may close
 * the descriptor while it is idle and reopen it, as it does for the files it opened itself.
 * Also the `evictFirst` hint, which only a pooled file acts on. No `node:` imports.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { readInto } from "../read-into.js";
import type { StorageFile } from "../storage.js";

/**
 * An optional method of a file handle: `file[EVICT_FIRST]()` says its holder read what it
 * needed and will not use it again soon. A `HandlePool` then closes its descriptor before any
 * other idle one (its next use makes it an ordinary idle file again). Call it through
 * `evictFirst`; a handle without it ignores the hint.
 */
export const EVICT_FIRST = Symbol("pagelog.storage.evictFirst");

/** Tells `file`'s pool (if it is pooled) to close its descriptor first when one is needed. */
export function evictFirst(file: StorageFile): void {
  (file as { [EVICT_FIRST]?: () => void })[EVICT_FIRST]?.();
}

/** The `PAGELOG_CLOSED` error of a call on a closed handle, or on a handle of a closed pool. */
export function closedFile(op: string, path: string): PagelogError {
  return new PagelogError(`${op} ${JSON.stringify(path)}: the file handle is closed`, ErrorCode.CLOSED, { path });
}

/** The pool's file that takes an UnpooledFile over (`PooledFile`, pooled-file.ts). */
export interface Adopter extends StorageFile {
  /** A call that was running on the descriptor when the pool took it over ended (`wrote`: a write or truncate). */
  _adoptedEnd(wrote: boolean): void;
}

/** What an UnpooledFile may call on its HandlePool. */
export interface UnpooledSide {
  /** Whether the pool's `close()` was called. */
  closing(): boolean;
  /** The file is being closed: no longer one for the pool to adopt. */
  forget(file: UnpooledFile): void;
  /** Its descriptor was closed: gives its slot back (`moved`: it was outside the bound). */
  free(moved: boolean): void;
}

/** A file of a HandlePool whose pool proper is not loaded (yet): see the file comment. */
/** Orders calls across every directory's files (only the order of one directory's matters). */
let useTick = 0;

export class UnpooledFile implements StorageFile {
  readonly path: string;
  /** @internal The descriptor of the storage beneath. */
  readonly _real: StorageFile;
  /** @internal Opened `readOnly` (a reopen after the pool took it over opens it so again). */
  readonly _readOnly: boolean;
  /** @internal Calls running on `_real` now. */
  _calls = 0;
  /** @internal Bumped when a write or truncate starts and when it ends; a sync covers what it saw start. */
  _writeGen = 0;
  /** @internal The `_writeGen` the last successful sync covered. */
  _syncedGen = 0;
  /** @internal Its name was removed or renamed: its descriptor is outside the bound until closed. */
  _moved = false;
  /** When it opened or a call last began on it (a tick shared by all files): the pool adopts least recent first. */
  _lastUse = ++useTick;
  /** @internal The pool's file that took it over: every call goes there. */
  _pooled: Adopter | undefined;
  readonly #side: UnpooledSide;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(side: UnpooledSide, path: string, readOnly: boolean, real: StorageFile) {
    this.#side = side;
    this.path = path;
    this._readOnly = readOnly;
    this._real = real;
  }

  size(): Promise<number> {
    return this.#run("size", (f) => f.size());
  }

  read(position: number, length: number): Promise<Uint8Array> {
    return this.#run("read", (f) => f.read(position, length));
  }

  readInto(position: number, target: Uint8Array): Promise<number> {
    return this.#run("read", (f) => readInto(f, position, target));
  }

  write(position: number, bytes: Uint8Array): Promise<void> {
    return this.#run("write", (f) => f.write(position, bytes), true);
  }

  truncate(length: number): Promise<void> {
    return this.#run("truncate", (f) => f.truncate(length), true);
  }

  sync(): Promise<void> {
    const covers = this._writeGen;
    return this.#run("sync", async (f) => {
      await f.sync();
      if (covers > this._syncedGen) this._syncedGen = covers;
    });
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const pooled = this._pooled;
      if (pooled) return pooled.close();
      this.#closed = true;
      this.#side.forget(this);
      try {
        await this._real.close();
      } finally {
        this.#side.free(this._moved);
      }
    })();
    return this.#closing;
  }

  /** See `EVICT_FIRST`: only a pool can act on it. */
  [EVICT_FIRST](): void {
    if (this._pooled) evictFirst(this._pooled);
  }

  /** Runs `task` on the pooled file once there is one (no async frame of its own), else on `_real`. */
  #run<T>(op: string, task: (file: StorageFile) => Promise<T>, writes = false): Promise<T> {
    return this._pooled ? task(this._pooled) : this.#runHere(op, task, writes);
  }

  async #runHere<T>(op: string, task: (file: StorageFile) => Promise<T>, writes: boolean): Promise<T> {
    if (this.#closed || this.#side.closing()) throw closedFile(op, this.path);
    if (writes) this._writeGen++;
    this._calls++;
    this._lastUse = ++useTick;
    try {
      return await task(this._real);
    } finally {
      this._calls--;
      // Taken over while it ran: the pooled file counted this call as running (not evictable).
      if (this._pooled) this._pooled._adoptedEnd(writes);
      // Bumped again when it ends: a sync that began while it ran does not cover it.
      else if (writes) this._writeGen++;
    }
  }
}
