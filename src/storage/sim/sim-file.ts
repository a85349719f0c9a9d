/**
 * A handle on a simulated file (`SimStorage.open()`): argument checks, then the storage's gate
 * (power, closed state, counting, faults, trace), then the inode's page cache.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { checkNonNegativeInteger } from "../paths.js";
import type { StorageFile } from "../storage.js";
import type { SimOp } from "./sim-options.js";
import type { SimInode } from "./sim-inode.js";

/** What a SimFile reads of its storage: whether it is closed, and whether the power is off. */
interface SimPower {
  readonly closed: boolean;
  readonly poweredOff: boolean;
}

/** A handle on a simulated file. Every call goes through the storage's gate first. */
export class SimFile implements StorageFile {
  readonly path: string;
  closed = false;
  readonly #storage: SimPower;
  readonly #inode: SimInode;
  readonly #readOnly: boolean;
  /** The storage's gate for this file's calls. */
  readonly #begin: (op: SimOp, detail?: string) => void;

  constructor(
    storage: SimPower,
    path: string,
    inode: SimInode,
    readOnly: boolean,
    begin: (op: SimOp, detail?: string) => void,
  ) {
    this.#storage = storage;
    this.path = path;
    this.#inode = inode;
    this.#readOnly = readOnly;
    this.#begin = begin;
  }

  /** What the OS says to a write on a read-only descriptor. */
  #checkWritable(op: string): void {
    if (!this.#readOnly) return;
    throw new PagelogError(`${op} ${this.path}: opened read-only`, ErrorCode.IO, {
      path: this.path,
      cause: Object.assign(new Error("EBADF"), { code: "EBADF" }),
    });
  }

  async size(): Promise<number> {
    this.#begin("size");
    return this.#inode.size;
  }

  async read(position: number, length: number): Promise<Uint8Array> {
    checkNonNegativeInteger(position, "position");
    checkNonNegativeInteger(length, "length");
    this.#begin("read", `${position}+${length}`);
    return this.#inode.read(position, length);
  }

  async readInto(position: number, target: Uint8Array): Promise<number> {
    checkNonNegativeInteger(position, "position");
    if (!(target instanceof Uint8Array)) throw new TypeError("target must be a Uint8Array");
    this.#begin("read", `${position}+${target.length}`);
    const bytes = this.#inode.read(position, target.length);
    target.set(bytes);
    return bytes.length;
  }

  async write(position: number, bytes: Uint8Array): Promise<void> {
    checkNonNegativeInteger(position, "position");
    if (!(bytes instanceof Uint8Array)) throw new TypeError("bytes must be a Uint8Array");
    this.#begin("write", `${position}+${bytes.length}`);
    this.#checkWritable("write");
    this.#inode.write(position, bytes);
  }

  async truncate(length: number): Promise<void> {
    checkNonNegativeInteger(length, "length");
    this.#begin("truncate", String(length));
    this.#checkWritable("truncate");
    this.#inode.truncate(length);
  }

  async sync(): Promise<void> {
    this.#begin("sync");
    this.#inode.sync();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Closing the storage closed every handle already (as FsStorage does): nothing to count.
    if (this.#storage.closed && !this.#storage.poweredOff) {
      this.closed = true;
      return;
    }
    this.#begin("close");
    this.closed = true;
  }
}
