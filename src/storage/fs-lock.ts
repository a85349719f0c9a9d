/**
 * `FsStorage.lock()`: an exclusive lock on a log directory as a pid file, with no native code.
 *
 * The holder writes its pid (and, on Linux, the boot id) into a file of its own, opens it, and
 * then hard-links it to the lock path (`link(2)` fails with EEXIST if anything is there, just as
 * O_EXCL does), so the lock file never exists without its content: an opener that found an empty
 * file while another thread or process was still writing its pid took it for a crash's leftover
 * and took the lock over, and both held it. (Where hard links are not supported, the file is
 * created with O_CREAT|O_EXCL and written, as before.) The holder keeps the file open for as long
 * as it holds the lock. Another opener that finds the file decides from its content whether the
 * holder is alive:
 * - another pid: `kill(pid, 0)`; ESRCH means the holder is gone and the file is stale;
 * - a different boot id: written before the last reboot, stale;
 * - this process's own pid (and no other boot id): a lock of another thread or another copy of
 *   pagelog in this process, or a leftover of an earlier process that had our pid. The registry
 *   below is per thread (worker threads share no memory they did not pass each other), so the
 *   descriptor table, which every thread of the process shares, decides: the lock is live while
 *   some descriptor of this process has the file open (Linux's `/proc/self/fd`, `/dev/fd`
 *   elsewhere). A holder keeps its descriptor until it releases the lock, and a thread that ends
 *   (returns, `process.exit()` in the worker, or `worker.terminate()`) has its descriptors
 *   closed by Node, so the lock of a thread that ended, or of an earlier process, does not lock
 *   the directory for the rest of the process's life. Where descriptors cannot be listed the
 *   lock is taken as live: a second writer is worse than a leftover removed by hand.
 *
 * On a full disk the create succeeds but the pid cannot be written (it needs a data block). The
 * lock is then a symbolic link whose target is the same text: a short link lives in the inode
 * and needs no block, and `symlink(2)` fails with EEXIST just as O_EXCL does. So a full disk can
 * still be opened, and read, and have space freed through the API.
 */
import * as fs from "node:fs/promises";
import { constants as fsConstants, readFileSync } from "node:fs";
import { threadId } from "node:worker_threads";
import { ErrorCode, PagelogError } from "../errors.js";
import type { StorageLock } from "./storage.js";
import { fromFsError, osErrorCode } from "./fs-errors.js";

/**
 * Locks held in this thread, by absolute lock-file path, with the identity of the file each one
 * made (unset while it is being taken). Kept on `globalThis` under a `Symbol.for` key so the ESM
 * and CJS builds loaded side by side share one registry.
 */
interface Slot {
  identity: FileIdentity | undefined;
}
const REGISTRY_KEY = Symbol.for("pagelog.FsStorage.heldLocks.v2");
const globalSlots = globalThis as Record<symbol, unknown>;
const heldLocks = (globalSlots[REGISTRY_KEY] ??= new Map<string, Slot>()) as Map<string, Slot>;

/** What tells one file from another: a new file may reuse a deleted one's inode number at once. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  /** Creation time where the file system keeps one (0 otherwise). */
  readonly birth: number;
}

export function identityOf(stats: { dev: number; ino: number; birthtimeMs: number }): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, birth: stats.birthtimeMs };
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.birth === b.birth;
}

/** A place in the registry, taken for one `lock()` call. */
interface Reservation {
  readonly slot: Slot;
  /** Frees the place (the lock was not taken, or it was released). */
  cancel(): void;
}

/**
 * Reserves `abs` for this thread, or fails PAGELOG_LOCKED if a lock of this thread holds the file
 * now at that path. A registered lock whose file is no longer there (its directory was moved, and
 * this path is another directory's now) does not count.
 */
export async function lockHeldHere(abs: string, rel: string): Promise<Reservation> {
  for (;;) {
    const slot = heldLocks.get(abs);
    if (slot === undefined) break;
    const here = slot.identity === undefined ? undefined : await fs.lstat(abs).catch(() => undefined);
    if (heldLocks.get(abs) !== slot) continue; // changed while we looked: look again
    if (slot.identity === undefined || (here !== undefined && sameFile(identityOf(here), slot.identity))) {
      throw new PagelogError(`lock ${JSON.stringify(rel)}: already held by this process`, ErrorCode.LOCKED, {
        path: rel,
      });
    }
    break;
  }
  // Reserved before the next await, so two lock() calls racing in this thread cannot both win.
  const slot: Slot = { identity: undefined };
  heldLocks.set(abs, slot);
  return {
    slot,
    cancel: () => {
      if (heldLocks.get(abs) === slot) heldLocks.delete(abs);
    },
  };
}

/** How many times `lock` removes a stale lock file and tries again before giving up. */
const STALE_LOCK_RETRIES = 1;

/**
 * Largest pid `process.kill` accepts: `pid_t` is a signed 32-bit integer, and Node throws
 * `ERR_INVALID_ARG_TYPE` for a larger number rather than probe it. Real pids are far below it
 * (Linux's `pid_max` is at most 2^22 on 64-bit, macOS's 99,998): a bigger one is not a pid.
 */
const MAX_PID = 2 ** 31 - 1;

/** Longest lock file content read: a pid and a boot id take about 50 bytes. */
const LOCK_FILE_READ_BYTES = 256;

/**
 * Where this process's open descriptors are listed, each a name that stats as what it has open:
 * Linux's `/proc/self/fd`, then `/dev/fd` (macOS, FreeBSD with fdescfs).
 */
const OWN_FDS = ["/proc/self/fd", "/dev/fd"];

/** `link(2)` errors that say the file system has no hard links (FAT, some FUSE and network ones). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/** A held lock; `release()` deletes the lock file (if it is still ours) and closes it. */
export class FsLock implements StorageLock {
  readonly path: string;
  readonly #abs: string;
  /** The open lock file (undefined for the symbolic-link form of a full disk). */
  readonly #handle: fs.FileHandle | undefined;
  /** What the lock file is, to tell it from a file someone else put at its path since. */
  readonly #identity: FileIdentity;
  readonly #reservation: Reservation;
  readonly #onRelease: (lock: FsLock) => void;
  #releasing: Promise<void> | undefined;

  constructor(taken: FsLockTaken, reservation: Reservation, onRelease: (lock: FsLock) => void) {
    this.path = taken.path;
    this.#abs = taken.abs;
    this.#handle = taken.handle;
    this.#identity = taken.identity;
    this.#reservation = reservation;
    reservation.slot.identity = taken.identity;
    this.#onRelease = onRelease;
  }

  release(): Promise<void> {
    this.#releasing ??= (async () => {
      this.#onRelease(this);
      try {
        // Only our own file: if the directory was moved and another process locked the one now at
        // this path, its live lock is not ours to delete.
        const now = await fs.lstat(this.#abs).catch((err: unknown) => {
          if (osErrorCode(err) === "ENOENT") return undefined;
          throw err;
        });
        if (now !== undefined && !sameFile(identityOf(now), this.#identity)) {
          throw new PagelogError(
            `release lock ${JSON.stringify(this.path)}: the lock file there is not the one this process created (was the directory moved?); it was left alone`,
            ErrorCode.MOVED,
            { path: this.path },
          );
        }
        // Delete the file before freeing the registry entry: until the file is gone, another
        // lock() in this process must still see the lock as held.
        if (now !== undefined) await fs.unlink(this.#abs);
      } catch (err) {
        if (osErrorCode(err) !== "ENOENT") throw fromFsError(err, "release lock", this.path);
      } finally {
        // Closed even when the file could not be deleted: with no descriptor on it, the file left
        // behind is a stale lock to every later opener in this process, not a live one.
        await this.#handle?.close().catch(() => undefined);
        this.#reservation.cancel();
      }
    })();
    return this.#releasing;
  }
}

/** Takes the lock file at `abs`, taking over a stale one at most `STALE_LOCK_RETRIES` times. */
export async function takeLockFile(abs: string, rel: string): Promise<FsLockTaken> {
  const bootId = await currentBootId();
  const content = bootId === undefined ? `${process.pid}\n` : `${process.pid}\n${bootId}\n`;
  for (let attempt = 0; attempt <= STALE_LOCK_RETRIES; attempt++) {
    const taken = await createLockFile(abs, rel, content);
    if (taken !== undefined) return taken;
    const found = await readLockFile(abs, rel);
    if (found.kind === "missing") continue; // released between our create and our read
    if (found.kind === "other") {
      throw new PagelogError(
        `lock ${JSON.stringify(rel)}: ${abs} is ${found.what}, not a lock file; pagelog never makes one there: remove it by hand`,
        ErrorCode.IO,
        { path: rel },
      );
    }
    const holder = await liveHolder(abs, found, bootId);
    if (holder !== undefined) {
      throw new PagelogError(
        `lock ${JSON.stringify(rel)}: held by process ${holder} (lock file ${abs})`,
        ErrorCode.LOCKED,
        {
          path: rel,
        },
      );
    }
    if (attempt < STALE_LOCK_RETRIES) {
      try {
        // Only the stale file we judged: another opener may have taken it over since.
        const now = await fs.lstat(abs);
        if (!sameFile(identityOf(now), found.identity)) continue;
        await fs.unlink(abs);
      } catch (err) {
        if (osErrorCode(err) !== "ENOENT") throw fromFsError(err, "lock", rel);
      }
    }
  }
  // Another process keeps creating the file as fast as we clear it: someone is taking the lock.
  throw new PagelogError(`lock ${JSON.stringify(rel)}: could not take over the lock file ${abs}`, ErrorCode.LOCKED, {
    path: rel,
  });
}

interface FsLockTaken {
  path: string;
  abs: string;
  handle: fs.FileHandle | undefined;
  identity: FileIdentity;
}

/**
 * Creates the lock file exclusively with `content`; undefined if something is already there.
 * No fsync: after a power cut every holder is dead, so a lost lock file is fine.
 */
async function createLockFile(abs: string, rel: string, content: string): Promise<FsLockTaken | undefined> {
  const linked = await linkLockFile(abs, rel, content);
  if (linked !== "no-links") return linked;
  let handle: fs.FileHandle;
  try {
    // 'wx' = O_CREAT|O_EXCL: the create fails if the file exists, atomically, even across processes.
    handle = await fs.open(abs, "wx", 0o644);
  } catch (err) {
    if (osErrorCode(err) === "EEXIST") return undefined;
    throw fromFsError(err, "lock", rel);
  }
  try {
    await handle.writeFile(content);
    const stats = await handle.stat();
    return { path: rel, abs, handle, identity: identityOf(stats) };
  } catch (err) {
    // Never leave an empty lock file behind: it is ours, and nothing was locked.
    await handle.close().catch(() => undefined);
    await fs.unlink(abs).catch(() => undefined);
    if (osErrorCode(err) !== "ENOSPC" && osErrorCode(err) !== "EDQUOT") throw fromFsError(err, "lock", rel);
    return createLockLink(abs, rel, content, err);
  }
}

/**
 * Writes the lock's text into a file of this thread's, opens it, and links it to the lock path:
 * the lock file appears whole or not at all. The private name goes either way (a crash between
 * the link and the unlink leaves it: a `<lock>.<pid>-<thread>-<random>.tmp` file is never a lock).
 * "no-links" where the file system has no hard links; on a full disk, the symbolic-link form.
 */
async function linkLockFile(abs: string, rel: string, content: string): Promise<FsLockTaken | undefined | "no-links"> {
  const own = `${abs}.${process.pid}-${threadId}-${Math.random().toString(36).slice(2, 10)}.tmp`;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(own, "wx", 0o644);
  } catch (err) {
    throw fromFsError(err, "lock", rel);
  }
  let taken = false;
  try {
    await handle.writeFile(content);
    const stats = await handle.stat();
    await fs.link(own, abs);
    taken = true;
    return { path: rel, abs, handle, identity: identityOf(stats) };
  } catch (err) {
    const code = osErrorCode(err);
    if (code === "EEXIST") return undefined;
    if (code !== undefined && NO_HARD_LINKS.has(code)) return "no-links";
    if (code === "ENOSPC" || code === "EDQUOT") return await createLockLink(abs, rel, content, err);
    throw fromFsError(err, "lock", rel);
  } finally {
    if (!taken) await handle.close().catch(() => undefined);
    await fs.unlink(own).catch(() => undefined);
  }
}

/** The full-disk form: a symbolic link whose target is the lock's text (no data block needed). */
async function createLockLink(
  abs: string,
  rel: string,
  content: string,
  noSpace: unknown,
): Promise<FsLockTaken | undefined> {
  try {
    await fs.symlink(content, abs);
  } catch (err) {
    if (osErrorCode(err) === "EEXIST") return undefined;
    throw fromFsError(noSpace, "lock", rel);
  }
  const stats = await fs.lstat(abs);
  return { path: rel, abs, handle: undefined, identity: identityOf(stats) };
}

type LockFileState =
  | { kind: "missing" }
  | { kind: "other"; what: string }
  /** A regular file (`link: false`) or a symbolic link (`link: true`, content is its target). */
  | { kind: "lock"; link: boolean; content: string; identity: FileIdentity };

/**
 * What is at the lock path, read without following a symbolic link, without blocking on a FIFO
 * and without reading more than a lock file can hold (a huge file there is no lock either).
 */
async function readLockFile(abs: string, rel: string): Promise<LockFileState> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(abs, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = osErrorCode(err);
    if (code === "ENOENT") return { kind: "missing" };
    // O_NOFOLLOW on a symbolic link: ELOOP (Linux, macOS), EMLINK (FreeBSD).
    if (code === "ELOOP" || code === "EMLINK") return readLockLink(abs, rel);
    throw fromFsError(err, "lock", rel);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { kind: "other", what: stats.isDirectory() ? "a directory" : "not a regular file" };
    const buffer = new Uint8Array(LOCK_FILE_READ_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, LOCK_FILE_READ_BYTES, 0);
    const content = new TextDecoder().decode(buffer.subarray(0, bytesRead));
    return { kind: "lock", link: false, content, identity: identityOf(stats) };
  } catch (err) {
    throw fromFsError(err, "lock", rel);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function readLockLink(abs: string, rel: string): Promise<LockFileState> {
  try {
    const [target, stats] = await Promise.all([fs.readlink(abs), fs.lstat(abs)]);
    // A link pagelog made holds the lock's text; any other link (to a file, dangling) is no lock.
    return { kind: "lock", link: true, content: target, identity: identityOf(stats) };
  } catch (err) {
    if (osErrorCode(err) === "ENOENT") return { kind: "missing" };
    throw fromFsError(err, "lock", rel);
  }
}

/** The pid of the live process holding this lock, or undefined if it is stale. */
async function liveHolder(
  abs: string,
  found: Extract<LockFileState, { kind: "lock" }>,
  bootId: string | undefined,
): Promise<number | undefined> {
  const [pidLine = "", bootLine = "", rest = ""] = found.content.split("\n");
  // Strict digits, no 0: kill(0, …) and kill(-1, …) address process groups, not a process.
  if (!/^[1-9][0-9]{0,9}$/.test(pidLine) || rest !== "") return undefined;
  const pid = Number(pidLine);
  if (pid > MAX_PID) return undefined;
  const sameBoot = bootId !== undefined && bootLine === bootId;
  if (bootId !== undefined && bootLine !== "" && !sameBoot) return undefined; // written before a reboot
  if (pid === process.pid) {
    // Not in this thread's registry (checked before): another thread's or module copy's lock,
    // live while a descriptor of this process has it open, or a leftover of an earlier process
    // that had our pid (nothing here has it open). Decided by the descriptors, with or without a
    // boot id: without one (not Linux, or /proc/sys hidden) threads must exclude each other too.
    // A link cannot be held open: it is taken as live if written in this boot.
    if (found.link) return sameBoot ? pid : undefined;
    const open = await openInThisProcess(abs, found.identity);
    return open === false ? undefined : pid;
  }
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else. Only ESRCH means it is gone.
    return osErrorCode(err) === "ESRCH" ? undefined : pid;
  }
}

/**
 * Whether a descriptor of this process other than our own probe has the lock file open: true or
 * false from the first list of descriptors there is (`OWN_FDS`). The probe, opened for the call,
 * proves the list complete (a `/dev/fd` that shows only 0 to 2 does not list it); undefined where
 * no list shows it, or the path names another file by now (then the lock counts as live).
 */
async function openInThisProcess(abs: string, file: FileIdentity): Promise<boolean | undefined> {
  let probe: fs.FileHandle;
  try {
    probe = await fs.open(abs, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!sameFile(identityOf(await probe.stat()), file)) return undefined;
    for (const dir of OWN_FDS) {
      let fds: string[];
      try {
        fds = await fs.readdir(dir);
      } catch {
        continue;
      }
      if (!fds.includes(String(probe.fd))) continue;
      for (const fd of fds) {
        if (fd === String(probe.fd)) continue;
        try {
          if (sameFile(identityOf(await fs.stat(`${dir}/${fd}`)), file)) return true;
        } catch {
          // closed since the listing, or not a file: not the lock
        }
      }
      return false;
    }
    return undefined;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

let bootId: { readonly id: string | undefined } | undefined;

/**
 * Linux's per-boot random id, which tells a lock file written before a reboot; undefined elsewhere.
 * Read synchronously, once: a /proc file is generated in memory and never waits on a disk, and
 * the asynchronous read was five thread-pool round trips on every first open of a process.
 */
function currentBootId(): Promise<string | undefined> {
  if (bootId === undefined) {
    let id: string | undefined;
    try {
      id = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      id = undefined;
    }
    bootId = { id: id !== undefined && /^[0-9a-f-]{8,64}$/i.test(id) ? id : undefined };
  }
  return Promise.resolve(bootId.id);
}

/**
 * The pid of the live process holding the lock file at `abs`, or undefined (no file, a stale one,
 * something that is no lock), decided as {@link takeLockFile} decides it but taking, creating and
 * removing nothing: for readers that take no lock (`pagelog verify`) and want to know whether a
 * writer is at work. A lock this module copy holds is this process's.
 */
export async function lockHolder(abs: string): Promise<number | undefined> {
  const slot = heldLocks.get(abs);
  if (slot?.identity !== undefined) {
    const here = await fs.lstat(abs).catch(() => undefined);
    if (here !== undefined && sameFile(identityOf(here), slot.identity)) return process.pid;
  }
  let found: LockFileState;
  try {
    found = await readLockFile(abs, abs);
  } catch {
    return undefined; // unreadable: no holder this reader can name
  }
  return found.kind === "lock" ? liveHolder(abs, found, await currentBootId()) : undefined;
}
