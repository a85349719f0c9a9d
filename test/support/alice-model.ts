/**
 * ALICE-style crash states of a real directory (Pillai et al., "All File Systems Are Not Created
 * Equal", OSDI 2014): record the file-system operations a run performs on FsStorage, then build
 * the on-disk states a power cut at any point of the run could leave, from the initial files and
 * the operations alone, and materialise them as real directories.
 *
 * The persistence rules are those of docs/fault-model.md (what SimStorage simulates), per file and
 * per directory, every file and every directory independent of the others:
 * - a file's bytes and size are durable as of its last `sync`; each write since persists whole,
 *   not at all, or torn (any subset of its 512-byte sectors); its size is the synced one or the
 *   latest one (a truncation since the sync is undone in the first case; data that never got
 *   there reads as zeros in the second);
 * - a directory's entries are durable as of its last `syncDir`; of the changes since (creations,
 *   removals, renames, in order), a prefix persists: a rename is old-or-new, never both;
 * - nothing orders one file or directory against another: a rename may persist while the renamed
 *   file's unsynced bytes do not (the reordering that a missing fsync before a rename exposes).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalizePath } from "../../src/storage/paths.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../../src/storage/storage.js";

/** One recorded operation that can change what a power cut leaves. */
export type FsOp =
  | { readonly kind: "create"; readonly dir: string; readonly name: string; readonly inode: number }
  | { readonly kind: "remove"; readonly dir: string; readonly name: string }
  | { readonly kind: "rename"; readonly dir: string; readonly from: string; readonly to: string }
  | { readonly kind: "write"; readonly inode: number; readonly position: number; readonly bytes: Uint8Array }
  | { readonly kind: "truncate"; readonly inode: number; readonly length: number }
  | { readonly kind: "sync"; readonly inode: number; readonly path: string }
  | { readonly kind: "syncDir"; readonly dir: string };

/** A directory tree's files: directory ("" is the root) → name → inode, and each inode's bytes. */
export interface Tree {
  readonly dirs: Map<string, Map<string, number>>;
  readonly bytes: Map<number, Uint8Array>;
}

function split(raw: string): { dir: string; name: string } {
  const path = normalizePath(raw, { allowRoot: true });
  const at = path.lastIndexOf("/");
  return at < 0 ? { dir: "", name: path } : { dir: path.slice(0, at), name: path.slice(at + 1) };
}

/** The files under `root` (one level of subdirectories, as a LogDir has), read with node:fs. */
export function readTree(root: string): Tree {
  const tree: Tree = { dirs: new Map(), bytes: new Map() };
  let next = 1;
  const walk = (dir: string): void => {
    const entries = new Map<string, number>();
    tree.dirs.set(dir, entries);
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = dir === "" ? name : `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else {
        entries.set(name, next);
        tree.bytes.set(next++, new Uint8Array(readFileSync(join(root, path))));
      }
    }
  };
  walk("");
  return tree;
}

/** Writes `tree` into the empty directory `root` with node:fs. */
export function writeTree(root: string, tree: Tree): void {
  for (const [dir, entries] of [...tree.dirs].sort(([a], [b]) => a.length - b.length)) {
    mkdirSync(join(root, dir), { recursive: true });
    for (const [name, inode] of entries) writeFileSync(join(root, dir, name), tree.bytes.get(inode)!);
  }
}

/**
 * A Storage over another (FsStorage) that records, in the order they completed, the operations
 * above, tracking which inode every name and handle refers to. `dropSync(path)`: a `sync` of that
 * file is carried out but not recorded, as if the code had not called it (a planted bug).
 */
export class OpRecorder implements Storage {
  readonly ops: FsOp[] = [];
  readonly #inner: Storage;
  readonly #names: Map<string, Map<string, number>>;
  readonly #dropSync: (path: string) => boolean;
  #next: number;

  constructor(inner: Storage, initial: Tree, dropSync: (path: string) => boolean = () => false) {
    this.#inner = inner;
    this.#names = new Map([...initial.dirs].map(([dir, entries]) => [dir, new Map(entries)]));
    this.#next = Math.max(0, ...initial.bytes.keys()) + 1;
    this.#dropSync = dropSync;
  }

  #entries(dir: string): Map<string, number> {
    const entries = this.#names.get(dir);
    if (entries === undefined) throw new Error(`OpRecorder: directory ${dir} was not there at the start`);
    return entries;
  }

  async open(path: string, options?: OpenOptions): Promise<StorageFile> {
    const file = await this.#inner.open(path, options);
    const { dir, name } = split(file.path);
    const entries = this.#entries(dir);
    let inode = entries.get(name);
    if (inode === undefined) {
      inode = this.#next++;
      entries.set(name, inode);
      this.ops.push({ kind: "create", dir, name, inode });
    }
    return this.#file(file, inode);
  }

  #file(file: StorageFile, inode: number): StorageFile {
    const ops = this.ops;
    return {
      path: file.path,
      size: () => file.size(),
      read: (position, length) => file.read(position, length),
      write: async (position, bytes) => {
        await file.write(position, bytes);
        ops.push({ kind: "write", inode, position, bytes: bytes.slice() });
      },
      truncate: async (length) => {
        await file.truncate(length);
        ops.push({ kind: "truncate", inode, length });
      },
      sync: async () => {
        await file.sync();
        if (!this.#dropSync(file.path)) ops.push({ kind: "sync", inode, path: file.path });
      },
      close: () => file.close(),
    };
  }

  stat(path: string): Promise<StorageStat | null> {
    return this.#inner.stat(path);
  }

  list(dir: string): Promise<string[]> {
    return this.#inner.list(dir);
  }

  async mkdir(dir: string): Promise<void> {
    await this.#inner.mkdir(dir);
    this.#entries(dir); // only directories that were there: a new one would need its own model
  }

  async remove(path: string): Promise<void> {
    await this.#inner.remove(path);
    const { dir, name } = split(path);
    this.#entries(dir).delete(name);
    this.ops.push({ kind: "remove", dir, name });
  }

  async rename(from: string, to: string): Promise<void> {
    await this.#inner.rename(from, to);
    const a = split(from);
    const b = split(to);
    const entries = this.#entries(a.dir);
    const inode = entries.get(a.name);
    if (inode !== undefined) entries.set(b.name, inode);
    entries.delete(a.name);
    this.ops.push({ kind: "rename", dir: a.dir, from: a.name, to: b.name });
  }

  async syncDir(dir: string): Promise<void> {
    await this.#inner.syncDir(dir);
    this.ops.push({ kind: "syncDir", dir: normalizePath(dir, { allowRoot: true }) });
  }

  lock(path: string): Promise<StorageLock> {
    return this.#inner.lock(path);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** How a power cut decides what was not durable. `rand(n)` draws in [0, n). */
export type Fates = "everything" | "nothing" | { readonly rand: (n: number) => number };

const SECTOR = 512;

/** The on-disk tree a power cut leaves after the first `count` of `ops`, with `fates` deciding the rest. */
export function crashState(initial: Tree, ops: readonly FsOp[], count: number, fates: Fates): Tree {
  const draw = (n: number): number => (fates === "everything" ? n - 1 : fates === "nothing" ? 0 : fates.rand(n));
  const durable = new Map([...initial.bytes].map(([inode, bytes]) => [inode, bytes]));
  const pending = new Map<number, Array<FsOp & { kind: "write" | "truncate" }>>();
  const dirs = new Map([...initial.dirs].map(([dir, entries]) => [dir, new Map(entries)]));
  const dirPending = new Map<string, FsOp[]>();
  for (const op of ops.slice(0, count)) {
    if (op.kind === "write" || op.kind === "truncate") {
      if (!pending.has(op.inode)) pending.set(op.inode, []);
      pending.get(op.inode)!.push(op);
    } else if (op.kind === "sync") {
      durable.set(op.inode, apply(durable.get(op.inode) ?? new Uint8Array(0), pending.get(op.inode) ?? [], true));
      pending.delete(op.inode);
    } else if (op.kind === "syncDir") {
      for (const change of dirPending.get(op.dir) ?? []) applyEntry(dirs.get(op.dir)!, change);
      dirPending.delete(op.dir);
    } else {
      if (!dirPending.has(op.dir)) dirPending.set(op.dir, []);
      dirPending.get(op.dir)!.push(op);
    }
  }
  // Each directory: a prefix of its unsynced changes.
  for (const [dir, changes] of dirPending)
    for (const change of changes.slice(0, draw(changes.length + 1))) applyEntry(dirs.get(dir)!, change);
  // Each file still named: its durable bytes plus the fates of its unsynced writes and size.
  const bytes = new Map<number, Uint8Array>();
  for (const entries of dirs.values())
    for (const inode of entries.values()) {
      const base = durable.get(inode) ?? new Uint8Array(0);
      bytes.set(inode, apply(base, pending.get(inode) ?? [], draw(2) === 1, draw));
    }
  return { dirs, bytes };
}

function applyEntry(entries: Map<string, number>, change: FsOp): void {
  if (change.kind === "create") entries.set(change.name, change.inode);
  else if (change.kind === "remove") entries.delete(change.name);
  else if (change.kind === "rename") {
    const inode = entries.get(change.from);
    if (inode === undefined) return; // its creation did not persist
    entries.delete(change.from);
    entries.set(change.to, inode);
  }
}

/**
 * `base` with `writes` applied: each whole (`draw` absent: a sync), else written, lost or torn by
 * `draw`; the size the latest one if `sizeCommitted`, else `base`'s (truncations undone).
 */
function apply(
  base: Uint8Array,
  writes: ReadonlyArray<FsOp & { kind: "write" | "truncate" }>,
  sizeCommitted: boolean,
  draw?: (n: number) => number,
): Uint8Array {
  let buf = base.slice();
  let size = base.length;
  const grow = (length: number): void => {
    if (length <= buf.length) return;
    const bigger = new Uint8Array(Math.max(length, buf.length * 2));
    bigger.set(buf);
    buf = bigger;
  };
  let visible = base.length; // bytes of `buf` that hold file data (the rest is spare room)
  for (const op of writes) {
    if (op.kind === "truncate") {
      size = op.length;
      if (sizeCommitted) {
        grow(op.length);
        buf.fill(0, op.length, Math.max(visible, op.length));
        visible = op.length;
      }
      continue;
    }
    size = Math.max(size, op.position + op.bytes.length);
    const fate = draw === undefined ? 1 : draw(3); // 0 lost, 1 written, 2 torn
    if (fate === 0) continue;
    grow(op.position + op.bytes.length);
    for (let at = 0; at < op.bytes.length; at += SECTOR) {
      if (fate === 2 && draw!(2) === 0) continue;
      buf.set(op.bytes.subarray(at, at + SECTOR), op.position + at);
    }
    visible = Math.max(visible, op.position + op.bytes.length);
  }
  const length = sizeCommitted ? size : base.length;
  grow(length);
  buf.fill(0, Math.min(visible, length), length);
  return buf.slice(0, length);
}
