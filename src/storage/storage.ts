/*
 * The Storage contract: every byte pagelog reads or writes goes through these two interfaces.
 *
 * The model is a POSIX file system behind a page cache. A call that resolves has changed what
 * later reads see; it has NOT made anything durable. Only `StorageFile.sync()` makes a file's
 * bytes and size durable, and only `Storage.syncDir()` makes a directory's entries (creations,
 * removals, renames) durable. A power cut may keep any subset of what was not made durable, in
 * the ways `docs/fault-model.md` lists. Implementations: `FsStorage` (node:fs) and `SimStorage`
 * (an in-memory disk plus page cache that can cut the power). `storageContract()` in
 * `pagelog/testing` is the conformance suite any implementation can run.
 *
 * Paths are relative, `/`-separated and may not escape the root: see `normalizePath`. The root
 * directory itself is named `""` (or `"."`). Errors are `PagelogError`s; the codes used by each
 * method are listed in its doc.
 */

/** What `Storage.stat` reports about an entry. */
export interface StorageStat {
  /** A file or a directory. */
  readonly kind: "file" | "dir";
  /** Bytes a read sees (the cached size). 0 for directories. */
  readonly size: number;
}

/** Options of `Storage.open`. */
export interface OpenOptions {
  /**
   * Create the file (empty) if it does not exist. The new directory entry is durable only after
   * `syncDir` of the parent directory.
   * @defaultValue false
   */
  create?: boolean;
  /**
   * Open for reading only (O_RDONLY): `write` and `truncate` fail with `PAGELOG_IO`, and files
   * the process may not write can be read (tools such as `pagelog dump` use it). Cannot be
   * combined with `create` (a TypeError).
   * @defaultValue false
   */
  readOnly?: boolean;
}

/** An exclusive lock on a path, held until `release()` or until the process dies. */
export interface StorageLock {
  /** The normalized path locked. */
  readonly path: string;
  /** Gives the lock up. Idempotent. */
  release(): Promise<void>;
}

/**
 * Where pagelog reads and writes every byte: a POSIX-like file system behind a page cache. A call that resolves has
 * changed what later reads see and made nothing durable: only `StorageFile.sync()` makes a file's bytes and size
 * durable, only `syncDir()` a directory's entries. Paths are relative and `/`-separated (see `normalizePath`); errors
 * are `PagelogError`s. Implementations: `FsStorage`, `SimStorage`, `HandlePool`; `storageContract` in pagelog/testing
 * checks any other (docs/fault-model.md).
 */
export interface Storage {
  /**
   * Opens a file for reading and writing at any position.
   * Fails with `PAGELOG_NOT_FOUND` if it does not exist and `create` is not set (or if its parent
   * directory does not exist), `PAGELOG_IO` if the path names a directory.
   */
  open(path: string, options?: OpenOptions): Promise<StorageFile>;

  /** Kind and cached size of an entry, or `null` if nothing is there. Promises nothing durable. */
  stat(path: string): Promise<StorageStat | null>;

  /**
   * Names (not paths) of the entries in a directory, files and directories alike, sorted by
   * UTF-16 code unit. Fails with `PAGELOG_NOT_FOUND` if the directory does not exist.
   */
  list(dir: string): Promise<string[]>;

  /**
   * Creates one directory level; a no-op if the directory already exists. Fails with
   * `PAGELOG_NOT_FOUND` if the parent does not exist, `PAGELOG_IO` if a file has the name.
   * Durable only after `syncDir` of the parent.
   */
  mkdir(dir: string): Promise<void>;

  /**
   * Removes a file or an empty directory. Open handles to a removed file keep working on the
   * unlinked file. Fails with `PAGELOG_NOT_FOUND` if nothing is there, `PAGELOG_IO` for a
   * non-empty directory. Durable only after `syncDir` of the parent: until then a power cut can
   * bring the entry back.
   */
  remove(path: string): Promise<void>;

  /**
   * Atomically gives the entry at `from` the name `to`, replacing any file already there. Both
   * must be in the same directory (the unit a file system journals atomically), or it fails with
   * `PAGELOG_INVALID_PATH`. Durable only after `syncDir` of that directory; a power cut before
   * that leaves either the old state or the new one, never both names and never neither.
   */
  rename(from: string, to: string): Promise<void>;

  /**
   * Makes every entry change in `dir` (creations, removals, renames, mkdirs of children) durable.
   * Says nothing about file contents: those need `StorageFile.sync()`. Fails with `PAGELOG_IO`
   * (the changes may or may not be durable) or `PAGELOG_NOT_FOUND`.
   */
  syncDir(dir: string): Promise<void>;

  /**
   * Takes an exclusive lock named by `path` (a file the lock may create). Fails with
   * `PAGELOG_LOCKED` if this or another process holds it. A process that dies loses its locks.
   */
  lock(path: string): Promise<StorageLock>;

  /** Closes every open file handle; later calls fail with `PAGELOG_CLOSED`. Idempotent. */
  close(): Promise<void>;
}

/**
 * An open file of a `Storage`: positional reads and writes, truncate, and `sync()`, the only call that makes its bytes
 * durable.
 */
export interface StorageFile {
  /** The normalized path this handle was opened with. */
  readonly path: string;

  /** Bytes a read sees now (the cached size). */
  size(): Promise<number>;

  /**
   * Reads `length` bytes from `position`. The result is shorter only where the file ends, and
   * empty at or past the end. Reads see every completed write, durable or not. The result is the
   * caller's own memory: no later write or read changes it (the log hands views of it out
   * without copying).
   */
  read(position: number, length: number): Promise<Uint8Array>;

  /**
   * Optional: reads up to `target.length` bytes from `position` into `target` and resolves with
   * how many it read (fewer only where the file ends). What `read` does, into memory the caller
   * reuses: large sequential walks (recovery) avoid allocating a fresh buffer per chunk. Callers
   * go through `readInto()` (src/storage/read-into.ts), which falls back to `read`.
   */
  readInto?(position: number, target: Uint8Array): Promise<number>;

  /**
   * Writes all of `bytes` at `position` (extending the file, with zeros in any gap). The bytes go
   * to the page cache only: nothing is durable until `sync()`. On `PAGELOG_NO_SPACE` or
   * `PAGELOG_IO`, part of the write may have reached the cache. The caller may reuse `bytes`
   * once the promise settles.
   */
  write(position: number, bytes: Uint8Array): Promise<void>;

  /** Sets the size, cutting or zero-extending. Durable only after `sync()`. */
  truncate(length: number): Promise<void>;

  /**
   * Makes this file's bytes and size durable (fsync/fdatasync), but not its directory entry: a
   * new file also needs `syncDir` of its parent. If it fails (`PAGELOG_IO`, `PAGELOG_NO_SPACE`)
   * the unsynced data may be lost for good even though reads still show it, and a later `sync()`
   * may succeed without writing it (Linux "fsyncgate"): callers must treat a failed sync as data
   * loss, never retry it into a success.
   */
  sync(): Promise<void>;

  /** Releases the handle. Durability is unchanged: close() is not a sync. Idempotent. */
  close(): Promise<void>;
}
