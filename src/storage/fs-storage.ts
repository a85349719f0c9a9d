/*
 * `Storage` on a real file system, through `node:fs/promises`.
 *
 * Every path is checked by `normalizePath` before it is joined to the root, so no argument can
 * name anything outside the root (no `..`, no absolute paths, no NUL, no backslashes). Symbolic
 * links already inside the root are followed like any file system would; pagelog never makes one.
 *
 * Durability is exactly the contract's: a resolved call has reached the page cache; only
 * `StorageFile.sync()` (fdatasync) and `syncDir()` (fsync of the directory) make anything durable.
 *
 * Writes go synchronously (`writeSync`, no thread-pool round trip) while they are small and fast,
 * and through the thread pool once one was slow (dirty-page throttling): see sync-gate.ts.
 * Either way a resolved write has reached the page cache and nothing more; syncs stay async.
 * Reads, opens, stats and closes of files go synchronously the same way, behind a gate of their
 * own (a cold device, not throttling, is what makes them slow); list, mkdir, remove, rename and
 * the directory and lock calls stay on the thread pool.
 */
import { checkOpenOptions } from "./open-options.js";
import { checkKnownKeys } from "../options.js";
import * as fs from "node:fs/promises";
import { constants as fsConstants, open as openCallback, openSync, readSync, statSync, writeSync } from "node:fs";
import * as nodePath from "node:path";
import { isMainThread } from "node:worker_threads";
import { ErrorCode, PagelogError } from "../errors.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage.js";
import { normalizePath, parentOf } from "./paths.js";
import { fromFsError, osErrorCode } from "./fs-errors.js";
import { FsFile } from "./fs-file.js";
import { FdHandle } from "./fs-fd-handle.js";
import { DEFAULT_SYNC_READ_LIMITS, gated, SyncGate } from "./sync-gate.js";
import { REOPEN, type Reopener } from "./pool/pooled-file.js";
import { type FileIdentity, FsLock, identityOf, lockHeldHere, sameFile, takeLockFile } from "./fs-lock.js";

/** The descriptor `threadCpuWaitMs` reads; null where there is none, undefined before the first try. */
let schedstat: { fd: number; text: Uint8Array } | null | undefined;

/**
 * How long this thread has waited for a CPU while runnable (ms), for the read gate to tell a
 * call descheduled on a busy machine from one that waited for the device (see sync-gate.ts):
 * the second field of Linux's /proc/thread-self/schedstat (run-queue wait, ns), re-read through
 * one descriptor kept open (a read at 0 renders it anew). Undefined where there is none (not
 * Linux, no /proc): the gate then takes every slow call for the device's, as before. Opened on
 * first use and never closed, so only on the main thread: a worker's descriptor would outlive
 * the worker (descriptors are the process's), one more each time a worker is started.
 */
function threadCpuWaitMs(): number | undefined {
  if (schedstat === undefined) {
    try {
      schedstat = isMainThread ? { fd: openSync("/proc/thread-self/schedstat", "r"), text: new Uint8Array(96) } : null;
    } catch {
      schedstat = null;
    }
  }
  if (schedstat === null) return undefined;
  try {
    const n = readSync(schedstat.fd, schedstat.text, 0, schedstat.text.length, 0);
    // "<on-cpu ns> <run-queue wait ns> <timeslices>\n": the digits of the second field.
    let field = 0;
    let ns = 0;
    for (let i = 0; i < n; i++) {
      const c = schedstat.text[i]!;
      if (c === 0x20) {
        if (++field > 1) break;
      } else if (field === 1) ns = ns * 10 + (c - 0x30);
    }
    return field >= 1 ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `Storage` on a real directory through `node:fs/promises` (Node only): every path is checked by `normalizePath` and
 * stays inside the root; only `StorageFile.sync()` (fdatasync) and `syncDir()` (fsync of the directory) make anything
 * durable. Open one with `FsStorage.open(root)`.
 */
export class FsStorage implements Storage {
  /** The absolute, symlink-resolved root directory. */
  readonly root: string;
  readonly #files = new Set<FsFile>();
  readonly #locks = new Set<FsLock>();
  /** Which file each handle opened (from the fstat every open makes): what a pooled reopen compares. */
  readonly #identities = new WeakMap<StorageFile, FileIdentity>();
  /** The root and a separator: what a normalized path is appended to (`#abs`). */
  readonly #rootPrefix: string;
  /** The root directory's identity at open: a path operation first checks it is still there. */
  readonly #rootId: FileIdentity;
  /** One gate for every file: dirty-page throttling slows the whole device, not one file. */
  readonly #syncWrites = new SyncGate();
  /** Reads, opens, stats and closes: one gate too, since a cold device is cold for every file. */
  readonly #syncReads = new SyncGate({ ...DEFAULT_SYNC_READ_LIMITS, cpuWaitMs: threadCpuWaitMs });
  #closing: Promise<void> | undefined;

  private constructor(root: string, rootId: FileIdentity) {
    // The constructor is private in the types only: a JavaScript caller can still reach it, and
    // would get a storage whose first call fails on the missing root identity.
    if (typeof rootId !== "object" || rootId === null)
      throw new TypeError("FsStorage: open one with `await FsStorage.open(root)`, not `new FsStorage(root)`");
    this.root = root;
    this.#rootPrefix = root.endsWith(nodePath.sep) ? root : root + nodePath.sep;
    this.#rootId = rootId;
  }

  /**
   * Opens a storage rooted at `root`, creating the directory and any missing parents. When it
   * had to create directories, it fsyncs the directory holding each new one, so the root itself
   * survives a power cut (a new directory entry is durable only once its parent is synced).
   * With `create: false` it creates nothing: a missing root is `PAGELOG_NOT_FOUND` (what a
   * read-only `LogDir` opens, on a read-only mount too).
   */
  static async open(root: string, options: { create?: boolean } = {}): Promise<FsStorage> {
    if (typeof root !== "string" || root === "") throw new TypeError("root must be a non-empty string");
    checkKnownKeys(options, "FsStorage.open options", ["create"]);
    if (options.create !== undefined && typeof options.create !== "boolean")
      throw new TypeError(`option create must be a boolean, got ${typeof options.create}`);
    // Node would reject it with its own wording (ERR_INVALID_ARG_VALUE); it is a path no file
    // system can hold, as normalizePath says of the paths inside the root.
    if (root.includes("\0")) {
      throw new PagelogError(`invalid storage root ${JSON.stringify(root)}: contains NUL`, ErrorCode.INVALID_PATH, {
        path: root,
      });
    }
    const absolute = nodePath.resolve(root);
    let firstCreated: string | undefined;
    try {
      if (options.create !== false) firstCreated = await fs.mkdir(absolute, { recursive: true });
    } catch (err) {
      throw fromFsError(err, "open storage at", absolute);
    }
    if (firstCreated !== undefined) {
      // mkdir -p made firstCreated and everything below it down to the root: each new entry lives
      // in its parent, so sync every directory from firstCreated's parent to the root's parent.
      const chain: string[] = [];
      for (let dir = nodePath.dirname(absolute); ; dir = nodePath.dirname(dir)) {
        chain.push(dir);
        if (dir === nodePath.dirname(firstCreated) || dir === nodePath.dirname(dir)) break;
      }
      for (const dir of chain.reverse()) await fsyncDirectory(dir, "open storage at", dir);
    }
    let real: string;
    let rootStats: import("node:fs").Stats;
    try {
      // Resolve symlinks so two storages on one directory, however spelled, share lock names.
      real = await fs.realpath(absolute);
      rootStats = await fs.stat(real);
      if (!rootStats.isDirectory()) {
        throw new PagelogError(`open storage at ${JSON.stringify(absolute)} failed: not a directory`, ErrorCode.IO);
      }
    } catch (err) {
      throw fromFsError(err, "open storage at", absolute);
    }
    return new FsStorage(real, identityOf(rootStats));
  }

  /** `Storage.open`: opens (with `create`, creates) the file at `path`. */
  async open(path: string, options: OpenOptions = {}): Promise<StorageFile> {
    const rel = normalizePath(path);
    this.#checkOpen("open");
    await this.#checkRoot("open");
    // Read-write at any position: never O_APPEND (writes go where pagelog says) and never O_TRUNC
    // (opening must not destroy what recovery is about to read).
    checkOpenOptions(options);
    return this.#openFile(rel, options);
  }

  /**
   * A `HandlePool`'s reopen of an evicted file (see `REOPEN`): `open` without the root check
   * first, since the descriptor's own fstat (the regular-file check every open makes) tells
   * whether the name still leads to the file the handle had (`identify`: device, inode and
   * creation time). The same file: nothing else can have happened that matters (a root moved or
   * replaced holds other files). Another file, or none: the root is checked then, so a moved
   * root is `PAGELOG_MOVED` as before, and a file replaced behind the pool's back is opened as
   * `open` would (what the name leads to). One path lookup (the root's `statx`) fewer on every
   * reopen of a random read.
   * @internal
   */
  readonly [REOPEN]: Reopener = {
    identify: (file) => this.#identities.get(file),
    reopen: (path, options, identity) => this.#reopen(path, options, identity as FileIdentity),
  };

  async #reopen(path: string, options: OpenOptions, known: FileIdentity): Promise<StorageFile> {
    this.#checkOpen("open");
    let file: StorageFile;
    try {
      // `path` and `options` are the pool's own, checked when it first opened the file.
      file = await this.#openFile(path, options);
    } catch (err) {
      await this.#checkRoot("open"); // PAGELOG_MOVED says more than whatever the open met
      throw err;
    }
    if (sameFile(this.#identities.get(file)!, known)) return file;
    try {
      await this.#checkRoot("open");
    } catch (err) {
      await file.close().catch(() => undefined);
      throw err;
    }
    return file;
  }

  /** Opens `rel` (normalized, options checked) and checks it is a regular file; no root check. */
  async #openFile(rel: string, options: OpenOptions): Promise<StorageFile> {
    // O_NONBLOCK: opening a FIFO someone put where a file belongs must not wait for a writer for
    // ever (it changes nothing for regular files); the fstat below then refuses it.
    const flags =
      (options.readOnly === true
        ? fsConstants.O_RDONLY
        : fsConstants.O_RDWR | (options.create === true ? fsConstants.O_CREAT : 0)) | (fsConstants.O_NONBLOCK ?? 0);
    const abs = this.#abs(rel);
    let handle: FdHandle;
    try {
      const fd = await gated(
        this.#syncReads,
        0,
        () => openSync(abs, flags, 0o666),
        () =>
          new Promise<number>((resolve, reject) =>
            openCallback(abs, flags, 0o666, (e, fd) => (e ? reject(e) : resolve(fd))),
          ),
      );
      handle = new FdHandle(fd, this.#syncReads);
    } catch (err) {
      // Opening a directory read-write fails with EISDIR, which maps to PAGELOG_IO as promised.
      throw fromFsError(err, "open", rel);
    }
    let regular: boolean;
    let identity: FileIdentity;
    try {
      const stats = await handle.stat();
      regular = stats.isFile();
      identity = identityOf(stats);
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw fromFsError(err, "open", rel);
    }
    if (!regular) {
      await handle.close().catch(() => undefined);
      throw new PagelogError(
        `open ${JSON.stringify(rel)} failed: not a regular file (a directory, FIFO, socket or device)`,
        ErrorCode.IO,
        { path: rel },
      );
    }
    if (this.#closing !== undefined) {
      // close() ran while the open was in flight: do not leak the handle.
      await handle.close().catch(() => undefined);
      this.#checkOpen("open");
    }
    const fd = handle.fd;
    const file = new FsFile(
      handle,
      rel,
      (f) => this.#files.delete(f),
      options.readOnly === true
        ? undefined
        : { gate: this.#syncWrites, write: (buffer, offset, length, at) => writeSync(fd, buffer, offset, length, at) },
      { gate: this.#syncReads, read: (buffer, offset, length, at) => readSync(fd, buffer, offset, length, at) },
    );
    this.#files.add(file);
    this.#identities.set(file, identity);
    return file;
  }

  /** `Storage.stat`: the entry's kind and cached size, or null. */
  async stat(path: string): Promise<StorageStat | null> {
    const rel = normalizePath(path, { allowRoot: true });
    this.#checkOpen("stat");
    await this.#checkRoot("stat");
    try {
      const abs = this.#abs(rel);
      const stats = await gated(
        this.#syncReads,
        0,
        () => statSync(abs),
        () => fs.stat(abs),
      );
      return stats.isDirectory() ? { kind: "dir", size: 0 } : { kind: "file", size: stats.size };
    } catch (err) {
      const code = osErrorCode(err);
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw fromFsError(err, "stat", rel);
    }
  }

  /** `Storage.list`: the names in directory `dir`, sorted. */
  async list(dir: string): Promise<string[]> {
    const rel = normalizePath(dir, { allowRoot: true });
    this.#checkOpen("list");
    await this.#checkRoot("list");
    let names: string[];
    try {
      names = await fs.readdir(this.#abs(rel));
    } catch (err) {
      throw fromFsError(err, "list", rel);
    }
    // readdir order is whatever the file system keeps; the contract promises UTF-16 code unit
    // order, which is exactly what the default sort compares.
    return names.sort();
  }

  /** `Storage.mkdir`: creates directory `dir` (durable after `syncDir` of its parent). */
  async mkdir(dir: string): Promise<void> {
    const rel = normalizePath(dir);
    this.#checkOpen("mkdir");
    await this.#checkRoot("mkdir");
    try {
      await fs.mkdir(this.#abs(rel));
    } catch (err) {
      if (osErrorCode(err) !== "EEXIST") throw fromFsError(err, "mkdir", rel);
      const existing = await this.stat(rel);
      if (existing?.kind !== "dir") {
        throw new PagelogError(`mkdir ${JSON.stringify(rel)} failed: a file has that name`, ErrorCode.IO, {
          cause: err,
          path: rel,
        });
      }
    }
  }

  /** `Storage.remove`: removes the file or empty directory at `path`. */
  async remove(path: string): Promise<void> {
    const rel = normalizePath(path);
    this.#checkOpen("remove");
    await this.#checkRoot("remove");
    const abs = this.#abs(rel);
    try {
      await fs.unlink(abs);
    } catch (unlinkErr) {
      // unlink(2) refuses directories: Linux says EISDIR, macOS and POSIX say EPERM.
      const code = osErrorCode(unlinkErr);
      if (code !== "EISDIR" && code !== "EPERM") throw fromFsError(unlinkErr, "remove", rel);
      try {
        await fs.rmdir(abs);
      } catch (rmdirErr) {
        // ENOTDIR: it was a file after all and the EPERM was a real permission error; report that.
        throw fromFsError(osErrorCode(rmdirErr) === "ENOTDIR" ? unlinkErr : rmdirErr, "remove", rel);
      }
    }
  }

  /** `Storage.rename`: renames `from` to `to`, replacing a file there. */
  async rename(from: string, to: string): Promise<void> {
    const src = normalizePath(from);
    const dst = normalizePath(to);
    this.#checkOpen("rename");
    await this.#checkRoot("rename");
    if (parentOf(src) !== parentOf(dst)) {
      // Only a rename within one directory is a single journaled change; across directories two
      // entries change and a crash could keep both names or neither.
      throw new PagelogError(
        `rename ${JSON.stringify(src)} to ${JSON.stringify(dst)}: both must be in the same directory`,
        ErrorCode.INVALID_PATH,
        { path: src },
      );
    }
    try {
      // rename(2) replaces an existing target atomically: a reader sees the old file or the new one.
      await fs.rename(this.#abs(src), this.#abs(dst));
    } catch (err) {
      // ENOTDIR means either "the parent is not a directory" (not found) or "a directory onto a
      // file" (the parent is fine): only the second is an I/O error, as SimStorage reports it.
      if (osErrorCode(err) === "ENOTDIR" && (await this.stat(parentOf(src)))?.kind === "dir") {
        throw new PagelogError(
          `rename ${JSON.stringify(src)} to ${JSON.stringify(dst)}: a directory cannot replace a file`,
          ErrorCode.IO,
          { cause: err, path: src },
        );
      }
      throw fromFsError(err, "rename", src);
    }
  }

  /** `Storage.syncDir`: makes the entries of directory `dir` durable. */
  async syncDir(dir: string): Promise<void> {
    const rel = normalizePath(dir, { allowRoot: true });
    this.#checkOpen("syncDir");
    await this.#checkRoot("syncDir");
    await fsyncDirectory(this.#abs(rel), "syncDir", rel);
  }

  /**
   * Takes an exclusive lock by creating the file at `path` whole (written under a private name,
   * then hard-linked there, which fails if anything is there; O_CREAT|O_EXCL where there are no
   * hard links), holding this process's pid (and, on Linux, the boot id), and keeping it open
   * while the lock is held. No native code, so it works wherever Node does.
   *
   * Fails with `PAGELOG_LOCKED` when this process already holds it (in any `FsStorage`, in any
   * thread: a lock file naming this process is held while a descriptor of the process has it
   * open, see fs-lock.ts) or the file names another live process. A lock file is stale, and is removed and taken over, when
   * its content is not a pid (a crash between create and write leaves it empty or zeroed), when
   * that process is gone (`kill(pid, 0)` says ESRCH), or when it was written before the last
   * reboot (different boot id, Linux only), or when it is a symbolic link (a holder always creates
   * a regular file, and O_EXCL never goes through a link, so a link, dangling or not, is no live
   * lock; the link is removed, never its target). A directory, FIFO or other non-file there is
   * `PAGELOG_IO`: pagelog never makes one, so it is left for a human to remove.
   *
   * Limits, as with any pid file:
   * - pid reuse: if the holder died and an unrelated process now has its pid (in the same boot,
   *   or across a reboot on systems without a boot id), the lock looks held; delete the file by
   *   hand after checking no pagelog process is running.
   * - pids are per host: on NFS or another shared file system, a process on another host holding
   *   the lock looks dead, and the lock is taken over. Do not share a log directory across hosts.
   * - worker threads share the pid but not the in-process registry: the process's descriptor
   *   list (`/proc/self/fd`, `/dev/fd`) tells another thread's live lock from a leftover; where
   *   there is none (Windows) a lock file with this process's own pid counts as held.
   * - two processes breaking the same stale lock at the same instant may both succeed. The lock
   *   guards against mistakes (a second process opening the same log), not against a race built
   *   to defeat it.
   */
  async lock(path: string): Promise<StorageLock> {
    const rel = normalizePath(path);
    this.#checkOpen("lock");
    const abs = this.#abs(rel);
    // Held by this module copy (checked before any await of this call's own, so two lock() calls
    // racing here cannot both win), unless that lock's file is no longer at this path.
    const reserved = await lockHeldHere(abs, rel);
    let taken;
    try {
      await this.#checkRoot("lock");
      taken = await takeLockFile(abs, rel);
    } catch (err) {
      reserved.cancel();
      throw err;
    }
    const lock = new FsLock(taken, reserved, (l) => this.#locks.delete(l));
    this.#locks.add(lock);
    if (this.#closing !== undefined) {
      await lock.release();
      this.#checkOpen("lock");
    }
    return lock;
  }

  /** Closes every file handle this storage opened and releases its locks. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const results = await Promise.allSettled([
        ...[...this.#files].map((f) => f.close()),
        ...[...this.#locks].map((l) => l.release()),
      ]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    })();
    return this.#closing;
  }

  #abs(rel: string): string {
    if (rel === "") return this.root;
    // `rel` is normalized (no ".", "..", or empty segments): joining it needs no path.join (a
    // measurable part of a pooled reopen), only the platform's separator.
    return this.#rootPrefix + (nodePath.sep === "/" ? rel : rel.split("/").join(nodePath.sep));
  }

  /**
   * Every path is resolved from the root's path, so if the directory was moved (or deleted and
   * made again) while this storage is open, that path now names another directory: perhaps one
   * another process has locked. A path operation checks first that the root is still the
   * directory opened, and fails with PAGELOG_MOVED instead of touching the other one.
   * (Operations on open files go through their descriptors and stay with the moved files.)
   */
  async #checkRoot(op: string): Promise<void> {
    let now: FileIdentity | undefined;
    try {
      const root = this.root;
      now = identityOf(
        await gated(
          this.#syncReads,
          0,
          () => statSync(root),
          () => fs.stat(root),
        ),
      );
    } catch {
      now = undefined;
    }
    if (now === undefined || !sameFile(now, this.#rootId)) {
      throw new PagelogError(
        `${op}: the directory ${this.root} is not the one this storage opened (it was moved, replaced or deleted); nothing was done there`,
        ErrorCode.MOVED,
      );
    }
  }

  #checkOpen(op: string): void {
    if (this.#closing !== undefined) {
      throw new PagelogError(`${op}: the storage is closed`, ErrorCode.CLOSED);
    }
  }
}

/**
 * fsync a directory: open it read-only (a directory cannot be opened for writing) and sync that
 * handle. Creating, removing or renaming an entry changes the directory, not the file, and the
 * change is durable only once the directory itself is synced; fsync on the file is not enough.
 */
async function fsyncDirectory(abs: string, op: string, shownPath: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    // O_DIRECTORY (where the platform has it) makes a file here an error instead of a silent no-op.
    handle = await fs.open(abs, fsConstants.O_RDONLY | (fsConstants.O_DIRECTORY ?? 0));
  } catch (err) {
    throw fromFsError(err, op, shownPath);
  }
  try {
    await handle.sync();
  } catch (err) {
    throw fromFsError(err, op, shownPath);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
