/**
 * SimStorage: an in-memory disk with a page cache in front of it, that can lose power.
 *
 * Reads see the cache. Only `sync()` (per file) and `syncDir()` (per directory) move things to
 * the disk, plus the OS writing dirty pages back on its own (`writeback`). `crash()` builds the
 * disk a reboot would find, from the durable state and a seeded fate for everything that was
 * not: each dirty page written, lost or torn at sector granularity; each unsynced size change
 * kept or undone; each directory's unsynced entry changes cut to a prefix. `docs/fault-model.md`
 * says why each rule is what a real kernel and disk can do.
 *
 * This file holds the storage (power, faults, the gate every operation passes, the directory
 * tree); the parts are in `sim/`: files (sim-file.ts), inodes and their page cache, directories,
 * crash fates, the option and report types (sim-options.ts) and the inspection views.
 *
 * No `node:` imports: the simulator runs in a browser too.
 */
import { checkKnownKeys } from "../options.js";
import { checkOpenOptions } from "./open-options.js";
import { ErrorCode, PagelogError } from "../errors.js";
import { baseName, checkNonNegativeInteger, joinPath, normalizePath, parentOf, ROOT } from "./paths.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "./storage.js";
import { type CrashChooser, chooserFrom, countingChooser } from "./sim/crash-chooser.js";
import { Prng } from "./sim/prng.js";
import { SimDir, type SimNode } from "./sim/sim-dir.js";
import { SimFile } from "./sim/sim-file.js";
import { SimInode } from "./sim/sim-inode.js";
import { fileMapOf, memoryOf, pendingStateOf } from "./sim/sim-inspect.js";
import {
  type CrashReport,
  FAULT_CODE,
  type FaultSpec,
  type FileMap,
  type PendingState,
  type ResolvedSimStorageOptions,
  resolveFaultSpec,
  resolveSimOptions,
  type SimOp,
  type SimStorageOptions,
  type TraceEvent,
} from "./sim/sim-options.js";

export type { CrashChooser, PageFate, RandomSource } from "./sim/crash-chooser.js";
export { keepEverything, keepNothing, randomChooser } from "./sim/crash-chooser.js";
export type { ByteRange } from "./sim/crash-chooser.js";
export type {
  CrashReport,
  FaultSpec,
  FileMap,
  PendingState,
  ResolvedSimStorageOptions,
  SimOp,
  SimStorageOptions,
  TraceEvent,
} from "./sim/sim-options.js";

/**
 * An in-memory `Storage` with a simulated page cache that can cut the power: `crash()` returns the storage as a
 * restart finds it, keeping any subset of what was never synced that the fault model allows (docs/fault-model.md).
 * Seeded and deterministic; faults can be injected, writeback forced and crashes scheduled. For tests and for the
 * crash fuzzer.
 */
export class SimStorage implements Storage {
  /** The options it runs with, defaults filled in. */
  readonly options: Readonly<ResolvedSimStorageOptions>;
  #prng: Prng;
  #root: SimDir;
  /**
   * Every inode a name, or an unsynced directory change a power cut may keep, still reaches: what
   * write-back may write and `memory()` counts. A file leaves once its removal (or replacement)
   * is durable, so a long run keeps only what a reboot could find.
   */
  #inodes = new Set<SimInode>();
  #opCount = 0;
  #cutAfter = Infinity;
  /** "on": running; "off": the power was cut (scheduled); "crashed": crash() built a successor. */
  #power: "on" | "off" | "crashed" = "on";
  #closed = false;
  #faults: Array<ReturnType<typeof resolveFaultSpec>> = [];
  #locks = new Set<string>();
  #trace: TraceEvent[] = [];
  #lastCrash: CrashReport | undefined;

  /** An empty simulated disk, its page cache clean, with these options (an unknown key is a `TypeError`). */
  constructor(options: SimStorageOptions = {}) {
    this.options = Object.freeze(resolveSimOptions(options));
    this.#prng = new Prng(this.options.seed);
    this.#root = new SimDir();
  }

  // ---- power ----------------------------------------------------------------------------

  /** How many operations have run (a power-cut refusal does not count). */
  get opCount(): number {
    return this.#opCount;
  }

  /** True once `close()` resolved. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True once the power is off, by a scheduled cut or by `crash()`. */
  get poweredOff(): boolean {
    return this.#power !== "on";
  }

  /**
   * Lets `afterOps` more operations run; the next one and every later one fail with
   * `PAGELOG_POWER_CUT` and change nothing. Then call `crash()` to reboot.
   */
  scheduleCrash(options: { afterOps: number }): void {
    checkKnownKeys(options, "scheduleCrash options", ["afterOps"]);
    const { afterOps } = options;
    checkNonNegativeInteger(afterOps, "afterOps");
    this.#cutAfter = this.#opCount + afterOps;
  }

  /**
   * Cuts the power now (if a scheduled cut has not already) and returns the storage a reboot
   * finds: the durable state plus `chooser`'s fate (by default drawn from the seed) for every
   * dirty page, unsynced size and unsynced directory change. This storage and its handles fail
   * with `PAGELOG_POWER_CUT` from now on.
   */
  crash(chooser?: CrashChooser): SimStorage {
    if (this.#power === "crashed")
      throw new Error("SimStorage.crash(): this storage already crashed; use the one crash() returned");
    this.#power = "crashed";
    const fates = { pagesWritten: 0, pagesLost: 0, pagesTorn: 0, sizesKept: 0, sizesUndone: 0 };
    const dirs = { dirChangesKept: 0, createsLost: 0, renamesLost: 0, removesLost: 0 };
    const choose = countingChooser(chooser ?? chooserFrom(this.#prng), fates);
    const inodes = new Map<SimInode, SimInode>();
    const rebuild = (dir: SimDir, path: string): SimDir => {
      const after = new SimDir();
      const keep = dir.pendingCount === 0 ? 0 : choose.dirPrefix(path, dir.pendingCount);
      dirs.dirChangesKept += keep;
      for (const kind of dir.lostChanges(keep))
        dirs[kind === "set" ? "createsLost" : kind === "rename" ? "renamesLost" : "removesLost"]++;
      for (const [name, node] of dir.survivingEntries(keep)) {
        const child = joinPath(path, name);
        if (node instanceof SimDir) after.entries.set(name, rebuild(node, child));
        else {
          let inode = inodes.get(node);
          if (inode === undefined) inodes.set(node, (inode = node.crash(child, choose)));
          after.entries.set(name, inode);
        }
      }
      after.sync();
      return after;
    };
    const root = rebuild(this.#root, ROOT);
    const rebooted = new SimStorage({ ...this.options, seed: this.#prng.nextU32() });
    rebooted.#root = root;
    rebooted.#collectInodes(root);
    rebooted.#lastCrash = { ...fates, ...dirs };
    return rebooted;
  }

  /**
   * What the power cut that this storage came out of decided (undefined for one that never
   * crashed): how many dirty pages were written, lost or torn, unsynced sizes kept or undone,
   * unsynced directory changes kept or lost.
   */
  get lastCrash(): CrashReport | undefined {
    return this.#lastCrash;
  }

  /**
   * The OS writes dirty pages back on its own: up to `pages` of them (all by default), chosen at
   * random, optionally only of one file. Sizes and directory entries are not written. Not an
   * operation of the program, so it is not counted and cannot be cut. Returns the pages written.
   */
  writeback(options: { pages?: number; path?: string } = {}): number {
    checkKnownKeys(options, "writeback options", ["pages", "path"]);
    const { pages = Infinity, path } = options;
    this.#checkPower();
    const only = path === undefined ? undefined : this.#lookupFile(normalizePath(path));
    let written = 0;
    while (written < pages) {
      const candidates = [...this.#inodes].filter(
        (i) => (only === undefined || i === only) && i.dirtyPages().length > 0,
      );
      if (candidates.length === 0) break;
      const inode = candidates[this.#prng.int(candidates.length)]!;
      const dirty = inode.dirtyPages();
      inode.writeBack(dirty[this.#prng.int(dirty.length)]!);
      written++;
    }
    return written;
  }

  /** Makes matching operations fail; see {@link FaultSpec}. */
  injectFault(spec: FaultSpec): void {
    const fault = resolveFaultSpec(spec);
    this.#faults.push({
      ...fault,
      path: fault.path === undefined ? undefined : normalizePath(fault.path, { allowRoot: true }),
    });
  }

  // ---- inspection -----------------------------------------------------------------------

  /** The most recent operations, oldest first (at most `traceLimit`). */
  get trace(): readonly TraceEvent[] {
    return this.#trace;
  }

  /** Which bytes of a file are durable, cached only or torn, for the demo. */
  inspect(path: string): FileMap {
    return fileMapOf(this.#lookupFile(normalizePath(path)));
  }

  /** The bytes the disk holds for a file up to its durable size (what a sync-only view sees). */
  durableBytes(path: string): Uint8Array {
    return this.#lookupFile(normalizePath(path)).readDurable();
  }

  /** Everything a power cut now would have to decide, reachable by name. */
  pendingState(): PendingState {
    return pendingStateOf(this.#root);
  }

  /**
   * The files this storage holds on to and the bytes of their pages (cache and disk): every file
   * a name, an unsynced directory change or a power cut can still reach. A long run's memory.
   */
  memory(): { readonly files: number; readonly bytes: number } {
    return memoryOf(this.#inodes);
  }

  // ---- Storage --------------------------------------------------------------------------

  /** `Storage.open`: opens (with `create`, creates) the file at `path`. */
  async open(path: string, options: OpenOptions = {}): Promise<StorageFile> {
    const p = normalizePath(path);
    checkOpenOptions(options);
    this.#begin("open", p, options.create ? "create" : options.readOnly ? "readOnly" : undefined);
    const dir = this.#lookupDir(parentOf(p));
    let node = dir.entries.get(baseName(p));
    if (node instanceof SimDir) throw this.#error(`cannot open directory ${p} as a file`, ErrorCode.IO, p, "EISDIR");
    if (node === undefined) {
      if (!options.create) throw this.#notFound(p);
      node = new SimInode(this.options.pageSize, this.options.sectorSize);
      this.#inodes.add(node);
      dir.set(baseName(p), node);
    }
    const inode = node;
    const file: SimFile = new SimFile(this, p, node, options.readOnly === true, (op, detail) =>
      this.#begin(op, p, detail, { closed: file.closed, inode }),
    );
    return file;
  }

  /** `Storage.stat`: the entry's kind and cached size, or null. */
  async stat(path: string): Promise<StorageStat | null> {
    const p = normalizePath(path, { allowRoot: true });
    this.#begin("stat", p);
    const node = this.#lookup(p);
    if (node === undefined) return null;
    return node instanceof SimDir ? { kind: "dir", size: 0 } : { kind: "file", size: node.size };
  }

  /** `Storage.list`: the names in directory `dir`, sorted. */
  async list(dir: string): Promise<string[]> {
    const p = normalizePath(dir, { allowRoot: true });
    this.#begin("list", p);
    return [...this.#lookupDir(p).entries.keys()].sort();
  }

  /** `Storage.mkdir`: creates directory `dir` (durable after `syncDir` of its parent). */
  async mkdir(dir: string): Promise<void> {
    const p = normalizePath(dir);
    this.#begin("mkdir", p);
    const parent = this.#lookupDir(parentOf(p));
    const existing = parent.entries.get(baseName(p));
    if (existing instanceof SimDir) return;
    if (existing !== undefined) throw this.#error(`a file is in the way of directory ${p}`, ErrorCode.IO, p, "EEXIST");
    parent.set(baseName(p), new SimDir());
  }

  /** `Storage.remove`: removes the file or empty directory at `path`. */
  async remove(path: string): Promise<void> {
    const p = normalizePath(path);
    this.#begin("remove", p);
    const parent = this.#lookupDir(parentOf(p));
    const node = parent.entries.get(baseName(p));
    if (node === undefined) throw this.#notFound(p);
    if (node instanceof SimDir && node.entries.size > 0)
      throw this.#error(`directory ${p} is not empty`, ErrorCode.IO, p, "ENOTEMPTY");
    parent.delete(baseName(p));
  }

  /** `Storage.rename`: renames `from` to `to`, replacing a file there. */
  async rename(from: string, to: string): Promise<void> {
    const f = normalizePath(from);
    const t = normalizePath(to);
    if (parentOf(f) !== parentOf(t)) {
      throw new PagelogError(`rename must stay in one directory: ${f} -> ${t}`, ErrorCode.INVALID_PATH, { path: f });
    }
    this.#begin("rename", f, t);
    const dir = this.#lookupDir(parentOf(f));
    const node = dir.entries.get(baseName(f));
    if (node === undefined) throw this.#notFound(f);
    if (f === t) return;
    const target = dir.entries.get(baseName(t));
    if (target instanceof SimDir && target.entries.size > 0)
      throw this.#error(`rename onto non-empty directory ${t}`, ErrorCode.IO, t, "ENOTEMPTY");
    if (target !== undefined && target instanceof SimDir !== node instanceof SimDir) {
      throw this.#error(
        `rename ${f} -> ${t}: one is a file, the other a directory`,
        ErrorCode.IO,
        t,
        target instanceof SimDir ? "EISDIR" : "ENOTDIR",
      );
    }
    dir.rename(baseName(f), baseName(t));
  }

  /** `Storage.syncDir`: makes the entries of directory `dir` durable. */
  async syncDir(dir: string): Promise<void> {
    const p = normalizePath(dir, { allowRoot: true });
    this.#begin("syncDir", p);
    for (const node of this.#lookupDir(p).sync()) this.#forget(node);
  }

  /** `Storage.lock`: an exclusive lock on `path`, refused with `PAGELOG_LOCKED` while another holder has it. */
  async lock(path: string): Promise<StorageLock> {
    const p = normalizePath(path);
    this.#begin("lock", p);
    if (this.#locks.has(p)) throw new PagelogError(`${p} is locked by this process`, ErrorCode.LOCKED, { path: p });
    const dir = this.#lookupDir(parentOf(p));
    const node = dir.entries.get(baseName(p));
    if (node instanceof SimDir) throw this.#error(`lock path ${p} is a directory`, ErrorCode.IO, p, "EISDIR");
    if (node === undefined) {
      const inode = new SimInode(this.options.pageSize, this.options.sectorSize);
      this.#inodes.add(inode);
      dir.set(baseName(p), inode);
    }
    this.#locks.add(p);
    let held = true;
    return {
      path: p,
      release: async () => {
        if (!held) return;
        // Released even when removing the file fails (an injected fault), as FsStorage's lock:
        // the file left behind is a stale lock, not one that blocks every later open.
        held = false;
        this.#locks.delete(p);
        this.#begin("release", p);
        const d = this.#lookupDir(parentOf(p), false);
        if (d?.entries.get(baseName(p)) !== undefined) d.delete(baseName(p));
      },
    };
  }

  /** `Storage.close`: closes the storage; every later call fails with `PAGELOG_CLOSED`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#begin("close", ROOT);
    this.#closed = true;
    this.#locks.clear();
  }

  // ---- internals shared with SimFile ----------------------------------------------------

  /**
   * The gate every operation passes: power, closed state, the op counter, random write-back,
   * the trace, and injected faults (which throw after counting, as a real failed call does).
   */
  #begin(op: SimOp, path: string, detail?: string, file?: { closed: boolean; inode?: SimInode }): void {
    this.#checkPower();
    if (this.#opCount >= this.#cutAfter) {
      this.#power = "off";
      this.#record({
        seq: this.#opCount,
        op,
        path,
        error: ErrorCode.POWER_CUT,
        ...(detail === undefined ? {} : { detail }),
      });
      throw new PagelogError(`power cut before ${op} ${path}`, ErrorCode.POWER_CUT, { path });
    }
    if (this.#closed && op !== "release")
      throw new PagelogError(`storage is closed (${op} ${path})`, ErrorCode.CLOSED, { path });
    if (file?.closed) throw new PagelogError(`file ${path} is closed (${op})`, ErrorCode.CLOSED, { path });
    this.#opCount++;
    const event: TraceEvent = { seq: this.#opCount, op, path, ...(detail === undefined ? {} : { detail }) };
    this.#record(event);
    if (this.options.writeback > 0 && this.#prng.chance(this.options.writeback)) this.writeback({ pages: 1 });
    const fault = this.#faults.find((f) => f.times > 0 && f.op === op && (f.path === undefined || f.path === path));
    if (fault !== undefined) {
      fault.times--;
      event.error = FAULT_CODE[fault.code];
      // Linux marks the pages clean even though they never reached the disk (fsyncgate).
      if (op === "sync" && file?.inode !== undefined) file.inode.failSync();
      throw this.#error(`injected ${fault.code} on ${op} ${path}`, FAULT_CODE[fault.code], path, fault.code);
    }
  }

  #record(event: TraceEvent): void {
    if (this.options.traceLimit === 0) return;
    this.#trace.push(event);
    // Trim in bulk so a long run pays O(1) per operation on average.
    if (this.#trace.length > 2 * this.options.traceLimit) this.#trace = this.#trace.slice(-this.options.traceLimit);
  }

  #checkPower(): void {
    if (this.#power !== "on")
      throw new PagelogError("the power is off: use the storage crash() returned", ErrorCode.POWER_CUT);
  }

  /**
   * Drops a node no power cut can reach any more, and everything under it (a removed directory
   * may still list files, or unsynced changes, of its own). A node lives in one directory only:
   * renames stay in their directory and there are no hard links.
   */
  #forget(node: SimNode): void {
    if (node instanceof SimDir) for (const child of node.references()) this.#forget(child);
    else this.#inodes.delete(node);
  }

  #collectInodes(dir: SimDir): void {
    for (const node of dir.entries.values()) {
      if (node instanceof SimDir) this.#collectInodes(node);
      else this.#inodes.add(node);
    }
  }

  #lookup(path: string): SimNode | undefined {
    if (path === ROOT) return this.#root;
    let node: SimNode | undefined = this.#root;
    for (const segment of path.split("/")) {
      if (!(node instanceof SimDir)) return undefined;
      node = node.entries.get(segment);
    }
    return node;
  }

  #lookupDir(path: string): SimDir;
  #lookupDir(path: string, required: false): SimDir | undefined;
  #lookupDir(path: string, required = true): SimDir | undefined {
    const node = this.#lookup(path);
    if (node instanceof SimDir) return node;
    if (!required) return undefined;
    throw this.#notFound(path);
  }

  #lookupFile(path: string): SimInode {
    const node = this.#lookup(path);
    if (node === undefined || node instanceof SimDir) throw this.#notFound(path);
    return node;
  }

  #notFound(path: string): PagelogError {
    return this.#error(`no such file or directory: ${path}`, ErrorCode.NOT_FOUND, path, "ENOENT");
  }

  #error(message: string, code: ErrorCode, path: string, osCode: string): PagelogError {
    return new PagelogError(message, code, { path, cause: Object.assign(new Error(osCode), { code: osCode }) });
  }
}
