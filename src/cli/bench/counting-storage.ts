/**
 * A Storage that counts the syncs going through it: every opened file's `sync()` and the
 * storage's `syncDir()`. `durable-append` opens its LogDir over one to report fsyncs per append.
 */
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../../storage/storage.js";

export class CountingStorage implements Storage {
  readonly #inner: Storage;
  /** File syncs (fsync / fdatasync) so far. */
  fileSyncs = 0;
  /** Directory syncs so far. */
  dirSyncs = 0;

  constructor(inner: Storage) {
    this.#inner = inner;
  }

  get syncs(): number {
    return this.fileSyncs + this.dirSyncs;
  }

  async open(path: string, options?: OpenOptions): Promise<StorageFile> {
    return new CountingFile(await this.#inner.open(path, options), this);
  }

  stat(path: string): Promise<StorageStat | null> {
    return this.#inner.stat(path);
  }

  list(dir: string): Promise<string[]> {
    return this.#inner.list(dir);
  }

  mkdir(dir: string): Promise<void> {
    return this.#inner.mkdir(dir);
  }

  remove(path: string): Promise<void> {
    return this.#inner.remove(path);
  }

  rename(from: string, to: string): Promise<void> {
    return this.#inner.rename(from, to);
  }

  syncDir(dir: string): Promise<void> {
    this.dirSyncs++;
    return this.#inner.syncDir(dir);
  }

  lock(path: string): Promise<StorageLock> {
    return this.#inner.lock(path);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

class CountingFile implements StorageFile {
  readonly #inner: StorageFile;
  readonly #counter: CountingStorage;

  constructor(inner: StorageFile, counter: CountingStorage) {
    this.#inner = inner;
    this.#counter = counter;
  }

  get path(): string {
    return this.#inner.path;
  }

  size(): Promise<number> {
    return this.#inner.size();
  }

  read(position: number, length: number): Promise<Uint8Array> {
    return this.#inner.read(position, length);
  }

  write(position: number, bytes: Uint8Array): Promise<void> {
    return this.#inner.write(position, bytes);
  }

  truncate(length: number): Promise<void> {
    return this.#inner.truncate(length);
  }

  sync(): Promise<void> {
    this.#counter.fileSyncs++;
    return this.#inner.sync();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
