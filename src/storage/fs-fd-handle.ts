/*
 * A raw descriptor behind `FsFile`'s `FileHandleLike`, in place of a `node:fs/promises`
 * FileHandle: a FileHandle can only be made by an asynchronous open, a thread-pool round trip,
 * where `openSync` of a cached inode takes microseconds (see sync-gate.ts). Its calls are the same
 * syscalls through the same thread pool (`fs.read`, `fs.write`, `fs.fdatasync`…), failing with
 * the same errors; `stat` (fstat) and `close` go synchronously while the read gate allows.
 *
 * What a FileHandle does for its descriptor, kept here: `close()` waits for the calls in flight
 * on the thread pool, so a pool thread never reads or writes a descriptor number that was closed
 * (and perhaps reused by another open) under it; and a call made once it is closing fails with
 * EBADF instead of reaching the descriptor.
 */
import * as fs from "node:fs";
import type { FileHandleLike } from "./fs-file.js";
import { gated, type SyncGate } from "./sync-gate.js";

type Done<T> = (err: NodeJS.ErrnoException | null, value: T) => void;

/** An open descriptor with FileHandle's methods (see the file header). */
export class FdHandle implements FileHandleLike {
  /** The descriptor: valid until `close()` is called. */
  readonly fd: number;
  readonly #gate: SyncGate | undefined;
  /** Thread-pool calls in flight on the descriptor. */
  #pending = 0;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  /** Takes ownership of `fd`; `gate` decides when fstat and close may go synchronously. */
  constructor(fd: number, gate?: SyncGate) {
    this.fd = fd;
    this.#gate = gate;
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    return this.#call<number>("read", (done) => fs.read(this.fd, buffer, offset, length, position, done)).then(
      (bytesRead) => ({ bytesRead }),
    );
  }

  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    return this.#call<number>("write", (done) => fs.write(this.fd, buffer, offset, length, position, done)).then(
      (bytesWritten) => ({ bytesWritten }),
    );
  }

  datasync(): Promise<void> {
    return this.#call<void>("fdatasync", (done) => fs.fdatasync(this.fd, (err) => done(err, undefined)));
  }

  truncate(length: number): Promise<void> {
    return this.#call<void>("ftruncate", (done) => fs.ftruncate(this.fd, length, (err) => done(err, undefined)));
  }

  stat(): Promise<fs.Stats> {
    if (this.#closing !== undefined) return Promise.reject(closedError("fstat"));
    return gated(
      this.#gate,
      0,
      () => fs.fstatSync(this.fd),
      () => this.#call<fs.Stats>("fstat", (done) => fs.fstat(this.fd, done)),
    );
  }

  /** Closes the descriptor once the calls in flight on it are done. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#pending > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      await gated(
        this.#gate,
        0,
        () => fs.closeSync(this.fd),
        () => callback<void>((done) => fs.close(this.fd, (err) => done(err ?? null, undefined))),
      );
    })();
    return this.#closing;
  }

  /** One thread-pool call on the descriptor, counted so that `close()` waits for it. */
  #call<T>(syscall: string, start: (done: Done<T>) => void): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(closedError(syscall));
    this.#pending++;
    return callback<T>(start).finally(() => {
      if (--this.#pending === 0) this.#drained?.();
    });
  }
}

/** A node:fs callback call as a promise; a synchronous throw (a bad argument) is a rejection too. */
function callback<T>(start: (done: Done<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    start((err, value) => (err ? reject(err) : resolve(value)));
  });
}

/** What a FileHandle says of a call on a handle that is closed or closing. */
function closedError(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: bad file descriptor, ${syscall}`), { code: "EBADF", syscall, errno: -9 });
}
