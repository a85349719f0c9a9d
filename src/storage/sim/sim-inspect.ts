/**
 * The simulator's read-only views for the demo and for tests that enumerate crash states: which
 * bytes of a file are durable, cached only or torn, and everything a power cut would decide now.
 * They read the page cache's state and change nothing (no operation is counted).
 */
import { joinPath, ROOT } from "../paths.js";
import { SimDir } from "./sim-dir.js";
import type { SimInode } from "./sim-inode.js";
import type { FileMap, PendingState } from "./sim-options.js";

/** Which bytes of a file are durable, cached only or torn. */
export function fileMapOf(inode: SimInode): FileMap {
  const cached = inode.read(0, inode.size);
  const durable = inode.readDurable();
  const torn = inode.tornRanges;
  // Mutable while it is built (one range per run of bytes, not one object per byte: the crash
  // engine maps files after every recovery).
  const ranges: Array<{ start: number; end: number; state: "durable" | "cached" | "torn" }> = [];
  for (let i = 0; i < cached.length; i++) {
    // A byte is safe only if the disk has it and the size that covers it is durable too.
    let state: "durable" | "cached" | "torn" = i < durable.length && durable[i] === cached[i] ? "durable" : "cached";
    if (state === "durable" && torn.length > 0 && torn.some((r) => i >= r.start && i < r.end)) state = "torn";
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.state === state) last.end = i + 1;
    else ranges.push({ start: i, end: i + 1, state });
  }
  return {
    size: inode.size,
    durableSize: inode.durableSize,
    pageSize: inode.pageSize,
    sectorSize: inode.sectorSize,
    ranges,
    dirtyPages: inode.dirtyPages(),
  };
}

/** Everything a power cut now would have to decide, reachable by name from `root`. */
export function pendingStateOf(root: SimDir): PendingState {
  const files: Array<{ path: string; dirtyPages: number[]; sizeDirty: boolean }> = [];
  const dirs: Array<{ path: string; pendingChanges: number }> = [];
  const walk = (dir: SimDir, path: string): void => {
    if (dir.pendingCount > 0) dirs.push({ path, pendingChanges: dir.pendingCount });
    for (const [name, node] of dir.entries) {
      const child = joinPath(path, name);
      if (node instanceof SimDir) walk(node, child);
      else if (node.dirtyPages().length > 0 || node.sizeDirty) {
        files.push({ path: child, dirtyPages: node.dirtyPages(), sizeDirty: node.sizeDirty });
      }
    }
  };
  walk(root, ROOT);
  return { files, dirs };
}

/** How many files a storage keeps, and the bytes of their pages (cache and disk). */
export function memoryOf(inodes: Iterable<SimInode>): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const inode of inodes) {
    files++;
    bytes += inode.retainedBytes;
  }
  return { files, bytes };
}
