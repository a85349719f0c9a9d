/**
 * HandlePool: the bounded pool of descriptors every LogDir goes through. The storage contract
 * itself runs through the pool in handle-pool.contract.test.ts; these tests pin down what the
 * pool adds: which descriptor it closes, that it syncs before closing, that a failed eviction
 * sync is reported later and fails the Log, name changes, close, and power cuts.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { LogDir } from "../../../src/log/log-dir.js";
import { logEverFailed } from "../../../src/log/log.js";
import { DEFAULT_MAX_OPEN_FILES, HandlePool } from "../../../src/storage/handle-pool.js";
import { evictFirst } from "../../../src/storage/pool/unpooled-file.js";
import { keepNothing, SimStorage } from "../../../src/storage/sim-storage.js";
import type { OpenOptions, Storage, StorageFile, StorageLock, StorageStat } from "../../../src/storage/storage.js";
import { appendBatches, expectCode, expectTypeError, readAll } from "../log/helpers.js";
import { fileOps, text } from "../log/helpers.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("HandlePool", () => {
  it("closes the least recently used idle descriptor first, and reopens it on its next use", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    const b = await pool.open("b", { create: true });
    await a.write(0, enc.encode("A"));
    await a.sync(); // a is now the most recently used
    let mark = sim.opCount;
    const c = await pool.open("c", { create: true });
    expect(fileOps(sim, mark)).toEqual(["close b", "open c"]);
    mark = sim.opCount;
    expect(await b.size()).toBe(0); // b reopens, evicting a (used before c)
    expect(fileOps(sim, mark)).toEqual(["close a", "open b"]);
    mark = sim.opCount;
    expect(await text(a)).toBe("A");
    expect(fileOps(sim, mark)).toEqual(["close c", "open a"]);
    expect(pool.stats).toMatchObject({ open: 2, peakOpen: 2, files: 3, opens: 5, evictions: 3, evictionSyncs: 0 });
    await Promise.all([a.close(), b.close(), c.close()]);
    expect(pool.stats).toMatchObject({ open: 0, files: 0 });
  });

  it("evictFirst: an idle file its holder is done with is closed before older idle ones; its next use makes it ordinary", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    const b = await pool.open("b", { create: true });
    await b.size(); // a is the least recently used
    evictFirst(b);
    let mark = sim.opCount;
    const c = await pool.open("c", { create: true });
    expect(fileOps(sim, mark)).toEqual(["close b", "open c"]);
    evictFirst(c);
    await c.size(); // used again: an ordinary idle file, the most recently used
    mark = sim.opCount;
    expect(await b.size()).toBe(0);
    expect(fileOps(sim, mark)).toEqual(["close a", "open b"]);
    // A busy file ignores the hint: it is not idle, so nothing to close first.
    const busy = c.size();
    evictFirst(c);
    await busy;
    mark = sim.opCount;
    expect(await a.size()).toBe(0);
    expect(fileOps(sim, mark)).toEqual(["close b", "open a"]);
    // A file with writes no sync covered ignores it too: closing it first would cost an fsync.
    await b.write(0, enc.encode("dirty")); // b the most recently used, a (clean) the least
    evictFirst(b);
    mark = sim.opCount;
    expect(await c.size()).toBe(0);
    expect(fileOps(sim, mark)).toEqual(["close a", "open c"]); // LRU order, as without the hint
    await Promise.all([a.close(), b.close(), c.close()]);
    expect(pool.stats).toMatchObject({ open: 0, files: 0 });
  });

  it("a segment's first use leaves its index descriptors first in line: the .log being read keeps its own", async () => {
    const sim = new SimStorage({ seed: 2 });
    let dir = await LogDir.open(sim, { log: { segmentBytes: 200 } });
    let log = await dir.log("t-0");
    for (let i = 0; i < 4; i++) await log.append([{ value: enc.encode(`record ${i} `.repeat(20)) }]);
    expect(log.segmentCount).toBeGreaterThanOrEqual(4);
    await dir.close();
    dir = await LogDir.open(sim, { maxOpenFiles: 4 });
    log = await dir.log("t-0");
    await log.read(0); // loads segment 0: its three files opened, its indexes read into memory
    const mark = sim.opCount;
    await log.read(1); // loads segment 1: three descriptors needed, the indexes of segment 0 go first
    const closed = fileOps(sim, mark).filter((op) => op.startsWith("close"));
    expect(closed.slice(0, 2).sort()).toEqual([
      "close t-0/00000000000000000000.index",
      "close t-0/00000000000000000000.timeindex",
    ]);
    const read = sim.opCount;
    await log.read(0); // segment 0's .log: still open
    expect(fileOps(sim, read).filter((op) => op.startsWith("open"))).toEqual([]);
    await dir.close();
  });

  it("syncs a descriptor with unsynced writes before closing it; a clean one is only closed", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    await a.write(0, enc.encode("written, never synced by the caller"));
    await pool.open("b", { create: true });
    let mark = sim.opCount;
    await pool.open("c", { create: true });
    expect(fileOps(sim, mark)).toEqual(["sync a", "close a", "open c"]);
    // The eviction made the bytes durable: a power cut now keeps them.
    expect(dec.decode(sim.durableBytes("a"))).toBe("written, never synced by the caller");
    mark = sim.opCount;
    await pool.open("d", { create: true });
    expect(fileOps(sim, mark)).toEqual(["close b", "open d"]); // b had no writes: no sync
    // A truncation counts as a write.
    const e = await pool.open("e", { create: true });
    await e.truncate(10);
    await pool.open("f", { create: true });
    await pool.open("g", { create: true });
    expect(pool.stats.evictionSyncs).toBe(2);
    expect(sim.durableBytes("e").length).toBe(10);
  });

  it("a failed eviction sync fails the file's next sync, write and truncate (every handle of it), not the call that evicted", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 2 });
    const a = await pool.open("a", { create: true });
    const again = await pool.open("a"); // a second handle on the same file
    await a.write(0, enc.encode("lost"));
    sim.injectFault({ op: "sync", path: "a", code: "EIO" });
    await pool.open("b", { create: true }); // evicts `again` (clean), then…
    const mark = sim.opCount;
    await pool.open("c", { create: true }); // …evicts `a`, whose sync fails: the open still succeeds
    expect(fileOps(sim, mark)).toEqual(["sync a", "close a", "open c"]);
    expect(pool.stats.evictionFailures).toBe(1);

    const err = await expectCode(() => a.sync(), ErrorCode.IO);
    expect(err.message).toContain("maxOpenFiles");
    expect((err.cause as PagelogError).code).toBe(ErrorCode.IO);
    // Never forgotten: a real sync would succeed now (the pages are marked clean, "fsyncgate").
    await expectCode(() => a.sync(), ErrorCode.IO);
    await expectCode(() => a.write(4, enc.encode("more")), ErrorCode.IO);
    await expectCode(() => a.truncate(0), ErrorCode.IO);
    await expectCode(() => again.sync(), ErrorCode.IO);
    // Reads still see the cache.
    expect(await text(a)).toBe("lost");
    // A handle opened after the failure does not see it (as on Linux): the handles that wrote do.
    // That is exactly why the error must be kept: a sync through a fresh descriptor succeeds,
    // and the bytes are still not on the disk.
    const later = await pool.open("a");
    await later.sync();
    await pool.syncDir("");
    const rebooted = sim.crash(keepNothing);
    const onDisk = await rebooted.open("a");
    expect(dec.decode(await onDisk.read(0, 4))).not.toBe("lost");
  });

  it("a failed eviction sync puts the Log in its failed state at its next flush, and the recovery point does not move", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim, { maxOpenFiles: 3, checkpointIntervalMs: -1 });
    const t = await dir.log("t-0");
    await t.append([{ value: "durable" }]);
    await t.flush();
    await t.append([{ value: "not yet" }]);
    sim.injectFault({ op: "sync", path: "t-0/00000000000000000000.log", code: "EIO" });
    // Opening another log needs the descriptors: t-0's .log is evicted, its sync fails.
    const u = await dir.log("u-0");
    await u.append([{ value: "other" }]);
    expect(dir.storage.stats.evictionFailures).toBe(1);
    expect(t.status).toBe("open");
    await expectCode(() => t.flush(), ErrorCode.IO);
    expect(t.status).toBe("failed");
    expect(t.recoveryPoint).toBe(1);
    await expectCode(() => t.append([{ value: "refused" }]), ErrorCode.FAILED);
    // u-0 is unaffected.
    await u.flush();
    expect(u.status).toBe("open");
    // After a power cut the flushed record is there; the unflushed one may or may not be.
    const rebooted = await LogDir.open(sim.crash(keepNothing), { maxOpenFiles: 3 });
    const again = await rebooted.log("t-0");
    expect((await again.read(0)).map((r) => dec.decode(r.value!))).toEqual(["durable"]);
    await rebooted.close();
  });

  it("a failed eviction sync that no flush met yet fails the directory's close: no clean-shutdown marker", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim, { maxOpenFiles: 3, checkpointIntervalMs: -1 });
    const t = await dir.log("t-0");
    await t.append([{ value: "never flushed" }]);
    sim.injectFault({ op: "sync", path: "t-0/00000000000000000000.log", code: "EIO" });
    await dir.log("u-0"); // evicts t-0's .log: the sync fails
    expect(dir.storage.stats.evictionFailures).toBe(1);
    await expectCode(() => dir.close(), ErrorCode.IO);
    expect(logEverFailed(t)).toBe(true);
    expect(await sim.stat(".kafka_cleanshutdown")).toBeNull();
    const reopened = await LogDir.open(sim);
    expect(reopened.clean).toBe(false);
    await reopened.close();
  });

  it("a removed file stays usable through its handles, evicted or not: they are pinned, outside the bound", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 1 });
    const a = await pool.open("a", { create: true });
    await a.write(0, enc.encode("A"));
    const b = await pool.open("b", { create: true }); // evicts a
    await pool.remove("a"); // reopens a and pins it
    expect(await sim.stat("a")).toBeNull();
    expect(pool.stats).toMatchObject({ open: 1, pinned: 1 }); // b was evicted to reopen a
    expect(await text(a)).toBe("A");
    await a.write(1, enc.encode("B"));
    await a.sync();
    // Other files go on sharing the one bounded slot.
    await pool.open("c", { create: true });
    expect(await b.size()).toBe(0);
    expect(await text(a)).toBe("AB");
    await a.close();
    expect(pool.stats).toMatchObject({ open: 1, pinned: 0 });
    // A new file with the old name is a different file.
    const fresh = await pool.open("a", { create: true });
    expect(await fresh.size()).toBe(0);
  });

  it("renames: a handle on the source follows its file; one on a replaced target keeps the old file", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 1 });
    const s = await pool.open("s", { create: true });
    await s.write(0, enc.encode("source"));
    const t = await pool.open("t", { create: true });
    await t.write(0, enc.encode("target"));
    await pool.open("x", { create: true }); // neither s nor t is open now
    await pool.rename("s", "t");
    expect(await text(s)).toBe("source");
    expect(await text(t)).toBe("target"); // the replaced file, unlinked
    expect(await text(await pool.open("t"))).toBe("source");
    await expectCode(() => pool.open("s"), ErrorCode.NOT_FOUND);
    // A directory rename carries the files inside it.
    await pool.mkdir("d");
    const inside = await pool.open("d/f", { create: true });
    await inside.write(0, enc.encode("inside"));
    await pool.open("y", { create: true });
    await pool.rename("d", "e");
    expect(await text(inside)).toBe("inside");
    expect(pool.stats.pinned).toBe(3);
  });

  it("close: an evicted handle is CLOSED after close(); close is idempotent; closing the pool closes the storage beneath", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 1 });
    const a = await pool.open("a", { create: true });
    const b = await pool.open("b", { create: true }); // a evicted
    await a.close();
    await a.close();
    await expectCode(() => a.read(0, 1), ErrorCode.CLOSED);
    await expectCode(() => a.sync(), ErrorCode.CLOSED);
    expect(pool.stats).toMatchObject({ open: 1, files: 1 });
    await pool.close();
    await pool.close();
    expect(sim.closed).toBe(true);
    await expectCode(() => b.size(), ErrorCode.CLOSED);
    await expectCode(() => pool.open("a"), ErrorCode.CLOSED);
    await expectCode(() => pool.list(""), ErrorCode.CLOSED);
    expect(pool.stats.open).toBe(0);
  });

  it("power cut: every handle fails with PAGELOG_POWER_CUT, an evicted one too, and nothing reaches the rebooted storage", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 1 });
    const a = await pool.open("a", { create: true });
    await a.write(0, enc.encode("A"));
    await a.sync();
    const b = await pool.open("b", { create: true }); // a evicted
    await pool.syncDir("");
    await b.write(0, enc.encode("unsynced"));
    sim.scheduleCrash({ afterOps: 0 });
    await expectCode(() => a.read(0, 1), ErrorCode.POWER_CUT); // the reopen meets the cut
    await expectCode(() => b.size(), ErrorCode.POWER_CUT);
    const rebooted = sim.crash(keepNothing);
    await expectCode(() => a.read(0, 1), ErrorCode.POWER_CUT);
    await expectCode(() => b.sync(), ErrorCode.POWER_CUT);
    await expectCode(() => pool.open("c", { create: true }), ErrorCode.POWER_CUT);
    expect(rebooted.opCount).toBe(0);
    // The new world holds what was durable, and a new pool over it works.
    const after = new HandlePool(rebooted, { maxOpenFiles: 1 });
    expect(await text(await after.open("a"))).toBe("A");
    expect(await text(await after.open("b"))).toBe("");
  });

  it("a power cut during an eviction's sync fails the call that evicted and keeps the error for the evicted file", async () => {
    const sim = new SimStorage({ seed: 1 });
    const pool = new HandlePool(sim, { maxOpenFiles: 1 });
    const a = await pool.open("a", { create: true });
    await a.write(0, enc.encode("A"));
    sim.scheduleCrash({ afterOps: 0 });
    await expectCode(() => pool.open("b", { create: true }), ErrorCode.POWER_CUT);
    await expectCode(() => a.sync(), ErrorCode.POWER_CUT);
  });

  it("never holds more descriptors than the bound, however many calls run at once (list, syncDir and lock included)", async () => {
    const counted = new CountingStorage(new SimStorage({ seed: 1 }));
    const pool = new HandlePool(counted, { maxOpenFiles: 4 });
    await pool.mkdir("d");
    const files = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.open(`d/f${i}`, { create: true })));
    await Promise.all(
      files.flatMap((f, i) => [f.write(0, enc.encode(`file ${i}`)), pool.list("d"), pool.syncDir("d")]),
    );
    await Promise.all(files.map((f) => f.sync()));
    const lock = await pool.lock("d/.lock");
    const texts = await Promise.all(files.map((f) => text(f)));
    expect(texts).toEqual(files.map((_, i) => `file ${i}`));
    await lock.release();
    expect(counted.peak).toBeLessThanOrEqual(4);
    expect(pool.stats.peakOpen).toBeLessThanOrEqual(4);
    expect(counted.peak).toBe(4);
    await pool.close();
    expect(counted.openNow).toBe(0);
  });

  it("maxOpenFiles: a positive integer, default 128; anything else is a TypeError naming the option", async () => {
    const sim = new SimStorage({ seed: 1 });
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "8", null, {}]) {
      await expectTypeError(() => LogDir.open(sim, { maxOpenFiles: bad as number }), "maxOpenFiles");
      expect(() => new HandlePool(sim, { maxOpenFiles: bad as number })).toThrow(/maxOpenFiles/);
    }
    expect(DEFAULT_MAX_OPEN_FILES).toBe(128);
    const dir = await LogDir.open(sim);
    expect(dir.storage.maxOpenFiles).toBe(128);
    await dir.close();
    const small = await LogDir.open(sim, { maxOpenFiles: 1 });
    expect(small.storage.maxOpenFiles).toBe(1);
    await small.close();
  });

  it("a LogDir of three logs of many segments works within 3 descriptors: append, flush, close, reopen, read back", async () => {
    const counted = new CountingStorage(new SimStorage({ seed: 5 }));
    const options = { log: { segmentBytes: 300, indexIntervalBytes: 64 }, maxOpenFiles: 3 };
    const dir = await LogDir.open(counted, options);
    const models = new Map<string, Awaited<ReturnType<typeof appendBatches>>>();
    for (const name of ["a-0", "b-0", "c-0"]) {
      const log = await dir.log(name);
      models.set(name, await appendBatches(log, 40, 2, 20));
      expect(log.segmentCount).toBeGreaterThan(5);
    }
    for (const name of models.keys()) await (await dir.log(name)).flush();
    await dir.close();
    const again = await LogDir.open(counted, options);
    for (const [name, model] of models) {
      const log = await again.log(name);
      expect(log.recovery.clean).toBe(true);
      expect(await readAll(log)).toEqual(model);
    }
    await again.close();
    expect(counted.peak).toBeLessThanOrEqual(3);
    expect(counted.openNow).toBe(0);
  });
});

/**
 * Counts the descriptors a storage would hold: open file handles plus list/syncDir/lock calls in
 * flight (FsStorage opens a descriptor for each), yielding to other calls on the way through.
 */
class CountingStorage implements Storage {
  openNow = 0;
  peak = 0;
  readonly #inner: Storage;
  constructor(inner: Storage) {
    this.#inner = inner;
  }
  #up(): void {
    this.openNow++;
    this.peak = Math.max(this.peak, this.openNow);
  }
  async #held<T>(task: () => Promise<T>): Promise<T> {
    this.#up();
    try {
      await Promise.resolve();
      return await task();
    } finally {
      this.openNow--;
    }
  }
  async open(path: string, options?: OpenOptions): Promise<StorageFile> {
    await Promise.resolve();
    const real = await this.#inner.open(path, options);
    this.#up();
    let closed = false;
    const close = async (): Promise<void> => {
      if (!closed) {
        closed = true;
        this.openNow--;
      }
      await real.close();
    };
    const slow = <T>(task: () => Promise<T>): Promise<T> => Promise.resolve().then(task);
    return {
      path: real.path,
      size: () => slow(() => real.size()),
      read: (position, length) => slow(() => real.read(position, length)),
      write: (position, bytes) => slow(() => real.write(position, bytes)),
      truncate: (length) => slow(() => real.truncate(length)),
      sync: () => slow(() => real.sync()),
      close,
    };
  }
  stat(path: string): Promise<StorageStat | null> {
    return this.#inner.stat(path);
  }
  list(dir: string): Promise<string[]> {
    return this.#held(() => this.#inner.list(dir));
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
    return this.#held(() => this.#inner.syncDir(dir));
  }
  lock(path: string): Promise<StorageLock> {
    return this.#held(() => this.#inner.lock(path));
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
