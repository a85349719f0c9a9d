/**
 * A Storage that records every call made on it (and on the files it opened), with the options of
 * each `open`, and refuses (`PAGELOG_IO`, changing nothing) every call that could change a byte
 * or a name: what a read-only mount does. Used to prove that a read-only open only reads.
 */
import { ErrorCode, PagelogError } from "../../src/errors.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../../src/storage/storage.js";

export interface RecordedCall {
  readonly kind: string;
  readonly path: string;
  readonly options?: OpenOptions;
}

/** Calls that only read. */
export const READ_CALLS: ReadonlySet<string> = new Set(["open", "stat", "list", "size", "read", "closeFile", "close"]);

export class RecordingStorage implements Storage {
  readonly calls: RecordedCall[] = [];
  readonly #inner: Storage;

  constructor(inner: Storage) {
    this.#inner = inner;
  }

  #refuse(kind: string, path: string): never {
    this.calls.push({ kind, path });
    throw new PagelogError(`${kind} ${path}: read-only mount`, ErrorCode.IO, { path });
  }

  /** The calls that were not reads, or opens not marked readOnly. */
  get writes(): RecordedCall[] {
    return this.calls.filter((c) => !READ_CALLS.has(c.kind) || (c.kind === "open" && c.options?.readOnly !== true));
  }

  async open(path: string, options: OpenOptions = {}): Promise<StorageFile> {
    this.calls.push({ kind: "open", path, options });
    if (options.readOnly !== true) throw new PagelogError(`open ${path} for writing: read-only mount`, ErrorCode.IO);
    const file = await this.#inner.open(path, options);
    const calls = this.calls;
    const rec = (kind: string): void => void calls.push({ kind, path: file.path });
    return {
      path: file.path,
      size: () => (rec("size"), file.size()),
      read: (position, length) => (rec("read"), file.read(position, length)),
      write: () => this.#refuse("write", file.path),
      truncate: () => this.#refuse("truncate", file.path),
      sync: () => this.#refuse("sync", file.path),
      close: () => (rec("closeFile"), file.close()),
    };
  }

  stat(path: string): Promise<StorageStat | null> {
    this.calls.push({ kind: "stat", path });
    return this.#inner.stat(path);
  }

  list(dir: string): Promise<string[]> {
    this.calls.push({ kind: "list", path: dir });
    return this.#inner.list(dir);
  }

  async mkdir(dir: string): Promise<void> {
    this.#refuse("mkdir", dir);
  }

  async remove(path: string): Promise<void> {
    this.#refuse("remove", path);
  }

  async rename(from: string): Promise<void> {
    this.#refuse("rename", from);
  }

  async syncDir(dir: string): Promise<void> {
    this.#refuse("syncDir", dir);
  }

  async lock(path: string): Promise<StorageLock> {
    this.#refuse("lock", path);
  }

  async close(): Promise<void> {
    this.calls.push({ kind: "close", path: "" });
  }
}
