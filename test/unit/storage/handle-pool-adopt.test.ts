/**
 * HandlePool before and after its pool proper loads (handle-pool.ts, pool/door-handle-pool.ts): below
 * the bound it is a pass-through that closes nothing; the call that would take the
 * `maxOpenFiles`-th descriptor loads the pool, which takes over every file open then (and every
 * call, open, close and name change in flight), and from then on the pool's guarantees hold for
 * those files too: evicted least recently used, synced first if dirty, reopened, never closed
 * under a running call, pinned when their name changed. (A door that fails to load fails that
 * call alone, and the next loads it: test/integration/browser-bundle.test.ts fails every door.)
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { HandlePool } from "../../../src/storage/handle-pool.js";
import { PooledFile } from "../../../src/storage/pool/pooled-file.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../../../src/storage/storage.js";
import { UnpooledFile } from "../../../src/storage/pool/unpooled-file.js";
import { expectCode } from "../log/helpers.js";
import { rng } from "../../support/xorshift.js";
import { fileOps, text } from "../log/helpers.js";

const enc = new TextEncoder();

/** A gate: `wait()` until `open()`. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

/**
 * The storage beneath, counting the descriptors it holds (and its peak), failing any call on a
 * descriptor after its close, and holding the calls `hold` names (`"read a"`, `"open x"`) until
 * their gate opens.
 */
class WatchedStorage implements Storage {
  openNow = 0;
  peak = 0;
  readonly hold = new Map<string, Promise<void>>();
  readonly inner: SimStorage;
  constructor(inner: SimStorage) {
    this.inner = inner;
  }
  async #held(key: string): Promise<void> {
    await Promise.resolve();
    await this.hold.get(key);
  }
  #up(): void {
    this.peak = Math.max(this.peak, ++this.openNow);
  }
  async #transient<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.#up();
    try {
      await this.#held(key);
      return await task();
    } finally {
      this.openNow--;
    }
  }
  async open(path: string, options?: OpenOptions): Promise<StorageFile> {
    await this.#held(`open ${path}`);
    const real = await this.inner.open(path, options);
    this.#up();
    let closed = false;
    const call =
      <A extends unknown[], T>(op: string, task: (...args: A) => Promise<T>) =>
      async (...args: A): Promise<T> => {
        if (closed) throw new Error(`${op} ${path} on a closed descriptor`);
        await this.#held(`${op} ${path}`);
        if (closed) throw new Error(`${op} ${path}: its descriptor was closed while the call ran`);
        return task(...args);
      };
    return {
      path: real.path,
      size: call("size", () => real.size()),
      read: call("read", (position: number, length: number) => real.read(position, length)),
      write: call("write", (position: number, bytes: Uint8Array) => real.write(position, bytes)),
      truncate: call("truncate", (length: number) => real.truncate(length)),
      sync: call("sync", () => real.sync()),
      close: async () => {
        if (!closed) {
          closed = true;
          this.openNow--;
        }
        await real.close();
      },
    };
  }
  stat(path: string): Promise<StorageStat | null> {
    return this.inner.stat(path);
  }
  list(dir: string): Promise<string[]> {
    return this.#transient(`list ${dir}`, () => this.inner.list(dir));
  }
  mkdir(dir: string): Promise<void> {
    return this.inner.mkdir(dir);
  }
  async remove(path: string): Promise<void> {
    await this.#held(`remove ${path}`);
    return this.inner.remove(path);
  }
  async rename(from: string, to: string): Promise<void> {
    await this.#held(`rename ${from}`);
    return this.inner.rename(from, to);
  }
  syncDir(dir: string): Promise<void> {
    return this.#transient(`syncDir ${dir}`, () => this.inner.syncDir(dir));
  }
  lock(path: string): Promise<StorageLock> {
    return this.#transient(`lock ${path}`, () => this.inner.lock(path));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe("HandlePool: the pool proper loads at the bound and takes over the files open then", () => {
  it("below the bound: a pass-through that loads nothing and closes nothing", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 4 });
    const files = [await pool.open("a", { create: true }), await pool.open("b", { create: true })];
    expect(await pool.list("")).toEqual(["a", "b"]);
    await pool.syncDir("");
    const c = await pool.open("c", { create: true }); // the third descriptor: one below the bound
    await c.write(0, enc.encode("C"));
    expect(await text(c)).toBe("C");
    for (const f of [...files, c]) expect(f).toBeInstanceOf(UnpooledFile);
    expect(pool.stats).toEqual({
      open: 3,
      peakOpen: 3,
      files: 3,
      opens: 3,
      evictions: 0,
      evictionSyncs: 0,
      evictionFailures: 0,
      pinned: 0,
    });
    await pool.close();
    await expectCode(() => c.size(), ErrorCode.CLOSED);
    await expectCode(() => pool.open("d", { create: true }), ErrorCode.CLOSED);
  });

  it("the call that would take the last descriptor loads it; the files open then are evicted least recently used, synced first if dirty, and reopened", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 3 });
    const a = await pool.open("a", { create: true });
    const b = await pool.open("b", { create: true });
    await a.write(0, enc.encode("A")); // unsynced
    await b.write(0, enc.encode("B"));
    await b.sync();
    await b.size(); // b used last
    const c = await pool.open("c", { create: true }); // the third: loads the pool
    expect(c).toBeInstanceOf(PooledFile);
    expect(pool.stats).toMatchObject({ open: 3, peakOpen: 3, files: 3, opens: 3, evictions: 0 });
    let mark = sim.opCount;
    await pool.open("d", { create: true });
    // a and b were taken over in the order they were opened; a has writes no sync covered.
    expect(fileOps(sim, mark)).toEqual(["sync a", "close a", "open d"]);
    mark = sim.opCount;
    expect(await text(a)).toBe("A"); // reopened, evicting b (clean: closed without a sync)
    expect(fileOps(sim, mark)).toEqual(["close b", "open a"]);
    expect(await text(b)).toBe("B");
    expect(pool.stats).toMatchObject({ open: 3, peakOpen: 3, files: 4, evictions: 3, evictionSyncs: 1 });
    await pool.close();
    await expectCode(() => a.size(), ErrorCode.CLOSED);
    expect(pool.stats).toMatchObject({ open: 0, files: 0 });
  });

  it("the files open when it loads are taken over least recently used first, not in the order they were opened", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 3 });
    const a = await pool.open("a", { create: true });
    const b = await pool.open("b", { create: true });
    await a.write(0, enc.encode("A"));
    await a.sync(); // a used after b was opened: b is the least recently used
    await pool.open("c", { create: true }); // loads the pool
    const mark = sim.opCount;
    await pool.open("d", { create: true });
    expect(fileOps(sim, mark)).toEqual(["close b", "open d"]);
    expect(await text(a)).toBe("A"); // still open: no reopen
    expect(fileOps(sim, mark)).toEqual(["close b", "open d"]);
    expect(await text(b)).toBe(""); // reopened
    await pool.close();
  });

  it("a call running on a file when the pool loads keeps its descriptor open until it ends; a write ending then makes it dirty", async () => {
    const watched = new WatchedStorage(new SimStorage({ seed: 2 }));
    const pool = new HandlePool(watched, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    const held = gate();
    watched.hold.set("write a", held.wait());
    const writing = a.write(0, enc.encode("late"));
    await new Promise((resolve) => setTimeout(resolve, 1));
    const b = await pool.open("b", { create: true }); // loads the pool: a is busy
    const c = await pool.open("c", { create: true }); // evicts b, not a
    await b.size(); // reopens b, evicting c: a is still busy
    expect(pool.stats).toMatchObject({ evictions: 2, evictionSyncs: 0 });
    held.open();
    await writing;
    await b.size(); // open: b is now the most recently used
    await c.size(); // a, idle and the least recently used, makes room: synced, then closed
    expect(pool.stats).toMatchObject({ evictions: 3, evictionSyncs: 1 });
    expect(await text(a)).toBe("late");
    expect(watched.peak).toBe(2);
    await pool.close();
    expect(watched.openNow).toBe(0);
  });

  it("an open in flight when the pool loads is taken over; a sync that began before a write ended does not cover it", async () => {
    const watched = new WatchedStorage(new SimStorage({ seed: 3 }));
    const pool = new HandlePool(watched, { maxOpenFiles: 3 });
    const a = await pool.open("a", { create: true });
    const held = gate();
    watched.hold.set("open x", held.wait());
    const opening = pool.open("x", { create: true });
    await new Promise((resolve) => setTimeout(resolve, 1));
    const c = await pool.open("c", { create: true }); // the third slot (x's is taken): loads
    held.open();
    const x = await opening;
    expect(x).toBeInstanceOf(PooledFile);
    expect(pool.stats).toMatchObject({ open: 3, files: 3, opens: 3 });
    await x.write(0, enc.encode("X"));
    await c.size();
    await a.size();
    const mark = watched.inner.opCount;
    await pool.open("d", { create: true }); // x is the least recently used: synced first
    expect(fileOps(watched.inner, mark)).toEqual(["sync x", "close x", "open d"]);
    expect(watched.peak).toBe(3);
    await pool.close();
    expect(watched.openNow).toBe(0);
  });

  it("a file whose name was removed or renamed before the pool loaded stays pinned: usable, outside the bound, never reopened", async () => {
    const watched = new WatchedStorage(new SimStorage({ seed: 4 }));
    const pool = new HandlePool(watched, { maxOpenFiles: 3 });
    const gone = await pool.open("gone", { create: true });
    await gone.write(0, enc.encode("still here"));
    await pool.remove("gone");
    const moved = await pool.open("old", { create: true });
    await moved.write(0, enc.encode("moved"));
    await pool.rename("old", "new");
    expect(pool.stats).toMatchObject({ open: 2, pinned: 2 });
    const files = [];
    for (const name of ["p", "q", "r", "s"]) files.push(await pool.open(name, { create: true })); // loads at r
    expect(pool.stats).toMatchObject({ open: 5, pinned: 2, evictions: 1 });
    expect(await text(gone)).toBe("still here");
    expect(await text(moved)).toBe("moved");
    for (const f of files) await f.size();
    expect(await text(gone)).toBe("still here");
    expect(watched.peak).toBe(5); // 3 bounded + 2 pinned
    await pool.close();
    expect(watched.openNow).toBe(0);
  });

  it("close() while the pool loads: the load's call fails CLOSED, every file is closed, nothing is adopted", async () => {
    const watched = new WatchedStorage(new SimStorage({ seed: 6 }));
    const pool = new HandlePool(watched, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    const opening = pool.open("b", { create: true });
    const closing = pool.close();
    await expectCode(() => opening, ErrorCode.CLOSED);
    await closing;
    await expectCode(() => a.size(), ErrorCode.CLOSED);
    expect(watched.openNow).toBe(0);
  });

  it("random concurrent calls across the load (renames and removes too): never more descriptors than the bound and the pinned ones, none closed under a call, every byte read back", async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const draw = rng(seed);
      const bound = 2 + draw(5);
      const watched = new WatchedStorage(new SimStorage({ seed }));
      const pool = new HandlePool(watched, { maxOpenFiles: bound });
      const contents = new Map<string, string>();
      const open: Array<{ name: string; file: StorageFile }> = [];
      const moved = new Set<string>();
      let next = 0;
      for (let round = 0; round < 12; round++) {
        const calls: Array<Promise<unknown>> = [];
        for (let i = 0; i < 1 + draw(4); i++) {
          const choice = draw(10);
          if (choice < 4 || open.length === 0) {
            const name = `f${next++}`;
            contents.set(name, "");
            calls.push(pool.open(name, { create: true }).then((file) => open.push({ name, file })));
          } else if (choice < 6) {
            const { name, file } = open[draw(open.length)]!;
            const bytes = `${name}:${round};`;
            const at = contents.get(name)!.length;
            contents.set(name, contents.get(name)! + bytes);
            calls.push(file.write(at, enc.encode(bytes)));
          } else if (choice < 7) {
            calls.push(open[draw(open.length)]!.file.sync());
          } else if (choice < 8) {
            calls.push(pool.list(""));
          } else if (choice < 9 && open.some(({ name }) => !moved.has(name))) {
            // Its handle keeps working on the file, pinned outside the bound.
            const stay = open.filter(({ name }) => !moved.has(name));
            const { name } = stay[draw(stay.length)]!;
            moved.add(name);
            calls.push(draw(2) === 0 ? pool.remove(name) : pool.rename(name, `${name}.moved`));
          } else {
            const { name, file } = open[draw(open.length)]!;
            calls.push(file.size().then((size) => expect(size, name).toBeGreaterThanOrEqual(0)));
          }
        }
        await Promise.all(calls);
        // A close, between rounds: a call still running on a file it closes would be the caller's fault.
        if (open.length > 3 && draw(3) === 0) await open.splice(draw(open.length), 1)[0]!.file.close();
      }
      for (const { name, file } of open) expect(await text(file), `seed ${seed} ${name}`).toBe(contents.get(name));
      expect(watched.peak, `seed ${seed} bound ${bound}`).toBeLessThanOrEqual(bound + moved.size);
      expect(pool.stats.pinned, `seed ${seed}`).toBe(open.filter(({ name }) => moved.has(name)).length);
      await pool.close();
      expect(watched.openNow, `seed ${seed}`).toBe(0);
    }
  });
});
