/**
 * A `Storage` that passes every call to the storage beneath through one hook, which may run it,
 * hold it back, reorder it or swallow it. The broken variants (`./broken/variants.ts`) are built from
 * it: each one is a hook that breaks one durability rule the log keeps, from outside the log.
 */
import { normalizePath } from "../storage/paths.js";
import { readInto } from "../storage/read-into.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../storage/storage.js";

/** One call on the storage beneath, as the hook sees it. */
export interface StorageOp {
  readonly kind:
    | "open"
    | "stat"
    | "list"
    | "mkdir"
    | "remove"
    | "rename"
    | "syncDir"
    | "lock"
    | "release"
    | "close"
    | "size"
    | "read"
    | "write"
    | "truncate"
    | "sync"
    | "closeFile";
  /** The normalized path (a file's, for file calls; `""` is the root directory). */
  readonly path: string;
  /** `open` only: whether it may create the file. */
  readonly create?: boolean;
  /** `rename` only: the new name (normalized). */
  readonly to?: string;
}

/**
 * Decides what happens to each call. `run` performs it on the storage beneath (and is what its
 * caller waits for); a hook that never calls it makes the call a no-op that succeeds.
 */
export type StorageHook = (op: StorageOp, run: () => Promise<unknown>) => Promise<unknown>;

function norm(path: string): string {
  return normalizePath(path, { allowRoot: true });
}

export class HookedStorage implements Storage {
  readonly #inner: Storage;
  readonly #hook: StorageHook;

  constructor(inner: Storage, hook: StorageHook) {
    this.#inner = inner;
    this.#hook = hook;
  }

  #call<T>(op: StorageOp, run: () => Promise<T>): Promise<T> {
    return this.#hook(op, run) as Promise<T>;
  }

  async open(path: string, options?: OpenOptions): Promise<StorageFile> {
    const file = await this.#call({ kind: "open", path: norm(path), create: options?.create === true }, () =>
      this.#inner.open(path, options),
    );
    return new HookedFile(file, this.#hook);
  }

  stat(path: string): Promise<StorageStat | null> {
    return this.#call({ kind: "stat", path: norm(path) }, () => this.#inner.stat(path));
  }

  list(dir: string): Promise<string[]> {
    return this.#call({ kind: "list", path: norm(dir) }, () => this.#inner.list(dir));
  }

  mkdir(dir: string): Promise<void> {
    return this.#call({ kind: "mkdir", path: norm(dir) }, () => this.#inner.mkdir(dir));
  }

  remove(path: string): Promise<void> {
    return this.#call({ kind: "remove", path: norm(path) }, () => this.#inner.remove(path));
  }

  rename(from: string, to: string): Promise<void> {
    return this.#call({ kind: "rename", path: norm(from), to: norm(to) }, () => this.#inner.rename(from, to));
  }

  syncDir(dir: string): Promise<void> {
    return this.#call({ kind: "syncDir", path: norm(dir) }, () => this.#inner.syncDir(dir));
  }

  async lock(path: string): Promise<StorageLock> {
    const lock = await this.#call({ kind: "lock", path: norm(path) }, () => this.#inner.lock(path));
    return { path: lock.path, release: () => this.#call({ kind: "release", path: lock.path }, () => lock.release()) };
  }

  close(): Promise<void> {
    return this.#call({ kind: "close", path: "" }, () => this.#inner.close());
  }
}

class HookedFile implements StorageFile {
  readonly #inner: StorageFile;
  readonly #hook: StorageHook;

  constructor(inner: StorageFile, hook: StorageHook) {
    this.#inner = inner;
    this.#hook = hook;
  }

  get path(): string {
    return this.#inner.path;
  }

  #call<T>(kind: StorageOp["kind"], run: () => Promise<T>): Promise<T> {
    return this.#hook({ kind, path: this.#inner.path }, run) as Promise<T>;
  }

  size(): Promise<number> {
    return this.#call("size", () => this.#inner.size());
  }

  read(position: number, length: number): Promise<Uint8Array> {
    return this.#call("read", () => this.#inner.read(position, length));
  }

  readInto(position: number, target: Uint8Array): Promise<number> {
    return this.#call("read", () => readInto(this.#inner, position, target));
  }

  write(position: number, bytes: Uint8Array): Promise<void> {
    return this.#call("write", () => this.#inner.write(position, bytes));
  }

  truncate(length: number): Promise<void> {
    return this.#call("truncate", () => this.#inner.truncate(length));
  }

  sync(): Promise<void> {
    return this.#call("sync", () => this.#inner.sync());
  }

  close(): Promise<void> {
    return this.#call("closeFile", () => this.#inner.close());
  }
}
