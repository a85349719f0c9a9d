/**
 * One open file of an `FsStorage`: a `node:fs/promises` FileHandle behind the `StorageFile`
 * contract. Kept apart from `FsStorage` so tests can hand it a fake handle that reads or writes a
 * few bytes per call and prove the loops below, without touching a real file system.
 */
import { kMaxLength } from "node:buffer";
import { ErrorCode, PagelogError } from "../errors.js";
import type { StorageFile } from "./storage.js";
import { checkNonNegativeInteger } from "./paths.js";
import { fromFsError } from "./fs-errors.js";
import type { SyncGate } from "./sync-gate.js";

/**
 * The synchronous write of an `FsFile`'s descriptor (`fs.writeSync` on a real one) and the gate
 * that decides when it may be used instead of the handle's thread-pool write.
 */
export interface SyncWrite {
  readonly gate: SyncGate;
  /** pwrite(2) on the main thread: bytes written, or throws the OS error as `fs.writeSync` does. */
  write(buffer: Uint8Array, offset: number, length: number, position: number): number;
}

/**
 * The synchronous read of an `FsFile`'s descriptor (`fs.readSync` on a real one) and the gate
 * that decides when it may be used instead of the handle's thread-pool read.
 */
export interface SyncRead {
  readonly gate: SyncGate;
  /** pread(2) on the main thread: bytes read (0 at end of file), or throws as `fs.readSync` does. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): number;
}

/**
 * The part of `node:fs/promises`' `FileHandle` that `FsFile` uses. A real FileHandle satisfies it;
 * so does a test double.
 */
export interface FileHandleLike {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/**
 * Largest length handed to one `node:fs` read or write call. Node refuses more than 2^31 − 1 per
 * call (and Node 20 aborts the whole process, uncatchably, on a length that is not an int32);
 * 1 GiB keeps well inside that on every platform, and a larger request is served in several calls.
 */
export const MAX_IO_CHUNK_BYTES = 1 << 30;

/**
 * Reads up to this length allocate their buffer at once. A longer read first asks the file's size
 * and allocates only what the file holds from `position`: a length taken from damaged bytes (a
 * 3 GiB index, a hostile length field) never allocates more than the file itself. 4 MiB covers
 * a scan's chunks (1 MiB and a batch) without the extra `fstat` per read, and bounds what a
 * hostile length can cost to a few MiB.
 */
export const SMALL_READ_BYTES = 4 * 1024 * 1024;

/** Largest single read result: the largest buffer this runtime can allocate. */
export const MAX_READ_BYTES = kMaxLength;

export class FsFile implements StorageFile {
  readonly path: string;
  readonly #handle: FileHandleLike;
  readonly #onClose: ((file: FsFile) => void) | undefined;
  readonly #syncWrite: SyncWrite | undefined;
  readonly #syncRead: SyncRead | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  /**
   * @internal Made by `FsStorage.open`; public only so tests can wrap a fake handle.
   * @param handle an open handle, owned by this object from now on.
   * @param path the normalized storage path, used in error messages.
   * @param onClose told once, when the handle is closed, so the storage stops tracking it.
   * @param syncWrite writes on the main thread while its gate allows (see sync-gate.ts).
   * @param syncRead reads on the main thread while its gate allows.
   */
  constructor(
    handle: FileHandleLike,
    path: string,
    onClose?: (file: FsFile) => void,
    syncWrite?: SyncWrite,
    syncRead?: SyncRead,
  ) {
    this.#handle = handle;
    this.path = path;
    this.#onClose = onClose;
    this.#syncWrite = syncWrite;
    this.#syncRead = syncRead;
  }

  async size(): Promise<number> {
    this.#checkOpen("size");
    try {
      return (await this.#handle.stat()).size;
    } catch (err) {
      throw fromFsError(err, "size", this.path);
    }
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    checkNonNegativeInteger(position, "position");
    checkNonNegativeInteger(length, "length");
    this.#checkOpen("read");
    // Never past 2^53 − 1: Node reads a position that is not a safe integer from the handle's
    // current position instead, which would be the wrong bytes.
    let want = Math.min(length, Number.MAX_SAFE_INTEGER - position);
    if (want > SMALL_READ_BYTES) want = Math.max(0, Math.min(want, (await this.size()) - position));
    if (want === 0) return new Uint8Array(0);
    if (want > MAX_READ_BYTES) {
      throw new RangeError(
        `read of ${want} bytes at ${position} from ${JSON.stringify(this.path)} is larger than the largest buffer this runtime allocates (${MAX_READ_BYTES} bytes): read it in parts`,
      );
    }
    // Unpooled and not zero-filled: every byte handed out is overwritten by the read (a short read
    // is copied out, so no uninitialized memory is reachable through `.buffer`). About 1.4x faster
    // than a zero-filled array for 64 KiB reads (npm run bench).
    const buffer = Buffer.allocUnsafeSlow(want);
    const filled = await this.#fill(buffer, position, want);
    const full = new Uint8Array(buffer.buffer, buffer.byteOffset, want);
    return filled === want ? full : full.slice(0, filled);
  }

  async readInto(position: number, target: Uint8Array): Promise<number> {
    checkNonNegativeInteger(position, "position");
    if (!(target instanceof Uint8Array)) throw new TypeError(`target must be a Uint8Array, got ${describe(target)}`);
    this.#checkOpen("read");
    return this.#fill(target, position, Math.min(target.length, Number.MAX_SAFE_INTEGER - position));
  }

  /**
   * Reads `want` bytes at `position` into `target` from its start; resolves with how many. pread
   * may return fewer bytes than asked for (signals, large requests, some file systems); only a
   * return of 0 means end of file, so it loops, and the contract's "short only at end of file"
   * holds. Each call asks for at most MAX_IO_CHUNK_BYTES, the most node:fs accepts with room.
   * Each call goes synchronously (in parts of at most the gate's call size) while the read gate
   * allows, else through the thread pool: the same pread, the same loop and errors either way.
   */
  async #fill(target: Uint8Array, position: number, want: number): Promise<number> {
    let filled = 0;
    while (filled < want) {
      this.#checkOpen("read");
      const length = Math.min(want - filled, MAX_IO_CHUNK_BYTES);
      let bytesRead: number;
      try {
        bytesRead =
          this.#readNow(target, filled, length, position + filled) ??
          (await this.#handle.read(target, filled, length, position + filled)).bytesRead;
      } catch (err) {
        throw fromFsError(err, "read", this.path);
      }
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled;
  }

  /**
   * One synchronous pread of at most the gate's call size if it allows one now (bytes read), else
   * undefined. A larger request is read in parts, one per turn of `#fill`'s loop, like a short
   * read: no single call can hold the event loop for a whole cold chunk.
   */
  #readNow(target: Uint8Array, offset: number, length: number, position: number): number | undefined {
    const sync = this.#syncRead;
    if (sync === undefined) return undefined;
    const part = Math.min(length, sync.gate.callBytes);
    const startedAt = sync.gate.start(part);
    if (startedAt === undefined) return undefined;
    try {
      return sync.read(target, offset, part, position);
    } finally {
      sync.gate.ran(startedAt, part);
    }
  }

  async write(position: number, bytes: Uint8Array): Promise<void> {
    checkNonNegativeInteger(position, "position");
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
    if (position + bytes.length > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`write of ${bytes.length} bytes at ${position} ends past Number.MAX_SAFE_INTEGER`);
    }
    this.#checkOpen("write");
    let written = 0;
    // pwrite may write fewer bytes than asked for (a full device part-way, a signal): carry on from
    // where it stopped until every byte is in, as sonic-boom does. A zero-byte write that is not an
    // error would loop forever, so it is reported instead. Each call goes synchronously (in parts of
    // at most the gate's call size) while the gate allows, else through the thread pool: the same
    // pwrite, the same errors either way.
    while (written < bytes.length) {
      this.#checkOpen("write");
      const length = Math.min(bytes.length - written, MAX_IO_CHUNK_BYTES);
      let bytesWritten: number;
      try {
        bytesWritten =
          this.#writeNow(bytes, written, length, position + written) ??
          (await this.#handle.write(bytes, written, length, position + written)).bytesWritten;
      } catch (err) {
        throw fromFsError(err, "write", this.path);
      }
      if (bytesWritten <= 0) {
        throw new PagelogError(
          `write ${JSON.stringify(this.path)} failed: the OS wrote 0 of ${bytes.length - written} bytes`,
          ErrorCode.IO,
          { path: this.path },
        );
      }
      written += bytesWritten;
    }
  }

  /**
   * One synchronous pwrite of at most the gate's call size if it allows one now (bytes written),
   * else undefined. A larger write goes in parts, like a short write (see `#readNow`).
   */
  #writeNow(bytes: Uint8Array, offset: number, length: number, position: number): number | undefined {
    const sync = this.#syncWrite;
    if (sync === undefined) return undefined;
    const part = Math.min(length, sync.gate.callBytes);
    const startedAt = sync.gate.start(part);
    if (startedAt === undefined) return undefined;
    try {
      return sync.write(bytes, offset, part, position);
    } finally {
      sync.gate.ran(startedAt, part);
    }
  }

  async truncate(length: number): Promise<void> {
    checkNonNegativeInteger(length, "length");
    this.#checkOpen("truncate");
    try {
      await this.#handle.truncate(length);
    } catch (err) {
      throw fromFsError(err, "truncate", this.path);
    }
  }

  async sync(): Promise<void> {
    this.#checkOpen("sync");
    try {
      // fdatasync, not fsync: it flushes the data and every piece of metadata needed to read it
      // back, which includes the file size (so appends and truncations are covered), and skips
      // only timestamps, which pagelog never relies on. One journal commit cheaper per flush.
      // (On macOS libuv turns this into F_FULLFSYNC, which also flushes the drive's cache.)
      await this.#handle.datasync();
    } catch (err) {
      throw fromFsError(err, "sync", this.path);
    }
  }

  close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#closed = true;
      this.#onClose?.(this);
      this.#closing = this.#handle.close().catch((err: unknown) => {
        throw fromFsError(err, "close", this.path);
      });
    }
    return this.#closing;
  }

  #checkOpen(op: string): void {
    if (this.#closed) {
      throw new PagelogError(`${op} ${JSON.stringify(this.path)}: the file handle is closed`, ErrorCode.CLOSED, {
        path: this.path,
      });
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return value.constructor?.name ?? "object";
  return typeof value;
}
