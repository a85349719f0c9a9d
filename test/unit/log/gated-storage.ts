/**
 * A SimStorage seen through a gate: while the gate is shut, every `sync()` and `syncDir()` waits
 * until it opens, so a test can hold a close, a flush or a checkpoint in the middle of its
 * fsyncs for as long as it likes, with no clock involved. Counts what went through.
 */
import type { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../../src/storage/storage.js";

export interface Gate {
  readonly storage: Storage;
  /** Syncs (file and directory) now waiting at the gate. */
  readonly waiting: number;
  /** Files opened, by path. */
  readonly opened: Map<string, number>;
  shut(): void;
  /** Opens the gate: every waiting sync goes on, and later ones pass straight through. */
  open(): void;
}

export function gated(sim: SimStorage): Gate {
  let release: (() => void) | undefined;
  let barrier: Promise<void> | undefined;
  let waiting = 0;
  const opened = new Map<string, number>();
  const pass = async (): Promise<void> => {
    if (barrier === undefined) return;
    waiting++;
    try {
      await barrier;
    } finally {
      waiting--;
    }
  };
  const wrapFile = (file: StorageFile): StorageFile => ({
    path: file.path,
    size: () => file.size(),
    read: (position, length) => file.read(position, length),
    write: (position, bytes) => file.write(position, bytes),
    truncate: (length) => file.truncate(length),
    sync: async () => {
      await pass();
      await file.sync();
    },
    close: () => file.close(),
  });
  const storage: Storage = {
    open: async (path, options) => {
      opened.set(path, (opened.get(path) ?? 0) + 1);
      return wrapFile(await sim.open(path, options));
    },
    stat: (path) => sim.stat(path),
    list: (dir) => sim.list(dir),
    mkdir: (dir) => sim.mkdir(dir),
    remove: (path) => sim.remove(path),
    rename: (from, to) => sim.rename(from, to),
    syncDir: async (dir) => {
      await pass();
      await sim.syncDir(dir);
    },
    lock: (path) => sim.lock(path),
    close: () => sim.close(),
  };
  return {
    storage,
    get waiting() {
      return waiting;
    },
    opened,
    shut() {
      if (barrier !== undefined) return;
      barrier = new Promise<void>((resolve) => (release = resolve));
    },
    open() {
      release?.();
      barrier = undefined;
      release = undefined;
    },
  };
}

/** Lets every pending promise callback run (a few macrotask turns; no timers involved). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
