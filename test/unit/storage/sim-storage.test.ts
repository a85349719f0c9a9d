import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import {
  type CrashChooser,
  keepEverything,
  keepNothing,
  randomChooser,
  SimStorage,
} from "../../../src/storage/sim-storage.js";

const enc = (s: string) => new TextEncoder().encode(s);
const fill = (n: number, byte: number) => new Uint8Array(n).fill(byte);

async function readAll(storage: SimStorage, path: string): Promise<Uint8Array> {
  const f = await storage.open(path);
  const bytes = await f.read(0, await f.size());
  await f.close();
  return bytes;
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toSatisfy((e: unknown) => e instanceof PagelogError && e.code === code);
}

/** A chooser that keeps everything except what the overrides say. */
function choose(overrides: Partial<CrashChooser>): CrashChooser {
  return { ...keepEverything, ...overrides };
}

/** A file that exists durably (entry synced, content synced). */
async function durableFile(storage: SimStorage, path: string, bytes: Uint8Array) {
  const f = await storage.open(path, { create: true });
  await f.write(0, bytes);
  await f.sync();
  await storage.syncDir("");
  return f;
}

describe("SimStorage: what a power cut keeps", () => {
  it("unsynced write lost", async () => {
    const sim = new SimStorage({ seed: 1 });
    const f = await durableFile(sim, "a", enc("durable"));
    await f.write(7, enc(" and cached"));
    expect(new TextDecoder().decode(await readAll(sim, "a"))).toBe("durable and cached");
    const after = sim.crash(keepNothing);
    expect(new TextDecoder().decode(await readAll(after, "a"))).toBe("durable");
  });

  it("synced write kept", async () => {
    const sim = new SimStorage({ seed: 2 });
    const f = await durableFile(sim, "a", enc("one"));
    await f.write(3, enc("two"));
    await f.sync();
    // Whatever the chooser says, synced bytes are not up for choice.
    for (const chooser of [keepNothing, keepEverything, undefined]) {
      const copy = new SimStorage({ seed: 2 });
      const g = await durableFile(copy, "a", enc("one"));
      await g.write(3, enc("two"));
      await g.sync();
      expect(new TextDecoder().decode(await readAll(copy.crash(chooser), "a"))).toBe("onetwo");
    }
    expect(new TextDecoder().decode(await readAll(sim.crash(), "a"))).toBe("onetwo");
  });

  it("a torn page keeps a non-prefix subset of sectors", async () => {
    const sim = new SimStorage({ seed: 3, pageSize: 4096, sectorSize: 512 });
    const f = await durableFile(sim, "a", fill(4096, 0xaa));
    await f.write(0, fill(4096, 0xbb));
    const torn = [false, true, false, true, true, false, false, true];
    const after = sim.crash(choose({ pageFate: () => ({ torn }) }));
    const bytes = await readAll(after, "a");
    torn.forEach((written, i) => {
      const sector = bytes.subarray(i * 512, (i + 1) * 512);
      expect(
        sector.every((b) => b === (written ? 0xbb : 0xaa)),
        `sector ${i}`,
      ).toBe(true);
    });
    expect(after.inspect("a").ranges).toEqual([{ start: 0, end: 4096, state: "torn" }]);
  });

  it("the seeded chooser tears pages into non-prefix subsets of sectors", async () => {
    let nonPrefix = 0;
    for (let seed = 0; seed < 60 && nonPrefix === 0; seed++) {
      const sim = new SimStorage({ seed });
      const f = await durableFile(sim, "a", fill(4096, 0xaa));
      await f.write(0, fill(4096, 0xbb));
      const bytes = await readAll(sim.crash(), "a");
      const sectors = Array.from({ length: 8 }, (_, i) => bytes[i * 512] === 0xbb);
      // Every sector is wholly old or wholly new: sectors are atomic.
      sectors.forEach((isNew, i) =>
        expect(bytes.subarray(i * 512, (i + 1) * 512).every((b) => b === (isNew ? 0xbb : 0xaa))).toBe(true),
      );
      const firstOld = sectors.indexOf(false);
      if (firstOld >= 0 && sectors.slice(firstOld).some(Boolean)) nonPrefix++;
    }
    expect(nonPrefix).toBeGreaterThan(0);
  });

  it("size persisted but data lost reads zeros", async () => {
    const sim = new SimStorage({ seed: 4 });
    const f = await durableFile(sim, "a", enc("head"));
    await f.write(4, enc("tail-that-was-only-cached"));
    const after = sim.crash(choose({ pageFate: () => "lost", sizeCommitted: () => true }));
    const bytes = await readAll(after, "a");
    expect(bytes.length).toBe(4 + 25);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("head");
    expect(bytes.subarray(4).every((b) => b === 0)).toBe(true);
  });

  it("truncation undone by a crash before sync", async () => {
    const sim = new SimStorage({ seed: 5 });
    const f = await durableFile(sim, "a", enc("0123456789"));
    await f.truncate(3);
    expect(await f.size()).toBe(3);
    const after = sim.crash(keepNothing);
    expect(new TextDecoder().decode(await readAll(after, "a"))).toBe("0123456789");
  });

  it("truncation undone, but the kernel's zeroed tail of the cut page was written back", async () => {
    const sim = new SimStorage({ seed: 5, pageSize: 64, sectorSize: 16 });
    const f = await durableFile(sim, "a", fill(200, 9));
    await f.truncate(3); // page 0 now holds 3 bytes and zeros, and is dirty; pages 1-3 are dropped
    const bytes = await readAll(sim.crash(choose({ sizeCommitted: () => false })), "a");
    expect(bytes.length).toBe(200);
    expect([...bytes.subarray(0, 3)]).toEqual([9, 9, 9]);
    expect(bytes.subarray(3, 64).every((b) => b === 0)).toBe(true);
    expect(bytes.subarray(64).every((b) => b === 9)).toBe(true);
  });

  it("a committed truncation then re-extension reads zeros, never the old bytes", async () => {
    const sim = new SimStorage({ seed: 6, pageSize: 64, sectorSize: 16 });
    const f = await durableFile(sim, "a", fill(256, 0x11));
    await f.truncate(0);
    await f.truncate(256);
    const after = sim.crash(choose({ sizeCommitted: () => true }));
    const bytes = await readAll(after, "a");
    expect(bytes.length).toBe(256);
    expect(bytes.every((b) => b === 0)).toBe(true);
  });

  it("file created without syncDir can vanish", async () => {
    const sim = new SimStorage({ seed: 7 });
    const f = await sim.open("new", { create: true });
    await f.write(0, enc("synced data, unsynced name"));
    await f.sync();
    expect(await sim.crash(keepNothing).list("")).toEqual([]);
    const sim2 = new SimStorage({ seed: 7 });
    const g = await sim2.open("new", { create: true });
    await g.sync();
    await sim2.syncDir("");
    expect(await sim2.crash(keepNothing).list("")).toEqual(["new"]);
  });

  it("removed file can reappear", async () => {
    const sim = new SimStorage({ seed: 8 });
    await durableFile(sim, "gone", enc("still here"));
    await sim.remove("gone");
    expect(await sim.list("")).toEqual([]);
    const after = sim.crash(keepNothing);
    expect(await after.list("")).toEqual(["gone"]);
    expect(new TextDecoder().decode(await readAll(after, "gone"))).toBe("still here");
  });

  it("rename is old-or-new, never both and never neither", async () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const sim = new SimStorage({ seed });
      await durableFile(sim, "cp", enc("old"));
      const tmp = await sim.open("cp.tmp", { create: true });
      await tmp.write(0, enc("new"));
      await tmp.sync();
      await sim.rename("cp.tmp", "cp");
      const after = sim.crash();
      const names = await after.list("");
      const cp = new TextDecoder().decode(await readAll(after, "cp"));
      // "cp" always exists and holds a whole version; the temp name is there only if the rename is not.
      expect(["old", "new"]).toContain(cp);
      if (cp === "new") expect(names).toEqual(["cp"]);
      outcomes.add(`${cp}:${names.join(",")}`);
    }
    expect(outcomes).toContain("new:cp");
    expect([...outcomes].some((o) => o.startsWith("old:"))).toBe(true);
  });

  it("directory changes survive as a prefix in the order they were made", async () => {
    for (let keep = 0; keep <= 3; keep++) {
      const sim = new SimStorage({ seed: 9 });
      for (const name of ["x", "y", "z"]) await sim.open(name, { create: true });
      const after = sim.crash(choose({ dirPrefix: () => keep }));
      expect(await after.list("")).toEqual(["x", "y", "z"].slice(0, keep));
    }
  });

  it("a subdirectory not synced into its parent vanishes with its synced contents", async () => {
    const sim = new SimStorage({ seed: 10 });
    await sim.mkdir("orders-0");
    const f = await sim.open("orders-0/00000000000000000000.log", { create: true });
    await f.write(0, enc("x"));
    await f.sync();
    await sim.syncDir("orders-0");
    expect(await sim.crash(keepNothing).list("")).toEqual([]);
  });

  it("fsync failure loses the data and a retried fsync 'succeeds'", async () => {
    const sim = new SimStorage({ seed: 11 });
    const f = await durableFile(sim, "a", enc("good"));
    await f.write(4, enc("-lost"));
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(f.sync(), ErrorCode.IO);
    await f.sync(); // the retry reports success …
    expect(new TextDecoder().decode(await readAll(sim, "a"))).toBe("good-lost"); // … reads still show it …
    expect(sim.inspect("a").dirtyPages).toEqual([]);
    const after = sim.crash(keepEverything); // … and even a kind power cut does not have it.
    const bytes = await readAll(after, "a");
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("good");
    expect(bytes.subarray(4).every((b) => b === 0)).toBe(true);
  });

  it("seeded determinism: same seed, same operations, same disk after crash", async () => {
    async function run(seed: number) {
      const sim = new SimStorage({ seed, pageSize: 64, sectorSize: 8, writeback: 0.3 });
      await sim.mkdir("p");
      await sim.syncDir("");
      for (let i = 0; i < 20; i++) {
        const f = await sim.open(`p/f${i % 3}`, { create: true });
        await f.write(i * 37, fill(50 + i, i));
        if (i % 5 === 0) await f.sync();
        if (i % 7 === 0) await f.truncate(i * 20);
        await f.close();
      }
      const after = sim.crash();
      const out: string[] = [];
      for (const name of await after.list("p"))
        out.push(`${name}:${Buffer.from(await readAll(after, `p/${name}`)).toString("hex")}`);
      return out.join("|");
    }
    const a = await run(42);
    expect(await run(42)).toBe(a);
    const others = await Promise.all([1, 2, 3, 4].map(run));
    expect(others.some((o) => o !== a)).toBe(true);
  });
});

describe("SimStorage: cutting the power at an operation", () => {
  it("scheduleCrash lets n operations run, then every operation fails with PAGELOG_POWER_CUT", async () => {
    const sim = new SimStorage({ seed: 12 });
    const f = await sim.open("a", { create: true }); // op 1
    sim.scheduleCrash({ afterOps: 2 });
    await f.write(0, enc("a")); // op 2
    await f.write(1, enc("b")); // op 3
    await expectCode(f.write(2, enc("c")), ErrorCode.POWER_CUT);
    await expectCode(sim.list(""), ErrorCode.POWER_CUT);
    expect(sim.opCount).toBe(3);
    expect(sim.poweredOff).toBe(true);
    const after = sim.crash(keepEverything);
    expect(new TextDecoder().decode(await readAll(after, "a"))).toBe("ab");
  });

  it("handles from before a crash are dead: they cannot write to the rebooted disk", async () => {
    const sim = new SimStorage({ seed: 13 });
    const f = await durableFile(sim, "a", enc("x"));
    const after = sim.crash();
    await expectCode(f.write(0, enc("y")), ErrorCode.POWER_CUT);
    await expectCode(sim.open("a"), ErrorCode.POWER_CUT);
    expect(() => sim.crash()).toThrow(/already crashed/);
    expect(new TextDecoder().decode(await readAll(after, "a"))).toBe("x");
  });

  it("locks do not survive a crash (the process died)", async () => {
    const sim = new SimStorage({ seed: 14 });
    await sim.lock(".lock");
    await expectCode(sim.lock(".lock"), ErrorCode.LOCKED);
    const after = sim.crash();
    const lock = await after.lock(".lock");
    await lock.release();
  });

  it("a release that could not remove the lock file rejects, and the lock is free again (as FsStorage's)", async () => {
    const sim = new SimStorage({ seed: 14 });
    const lock = await sim.lock(".lock");
    sim.injectFault({ op: "release", code: "EIO" });
    await expectCode(lock.release(), ErrorCode.IO);
    expect((await sim.list("")).includes(".lock")).toBe(true); // the file stayed: a stale lock
    const again = await sim.lock(".lock");
    await again.release();
    expect(await sim.list("")).toEqual([]);
  });
});

describe("SimStorage: faults, write-back and inspection", () => {
  it("injected ENOSPC on write changes nothing and is PAGELOG_NO_SPACE with the OS code in cause", async () => {
    const sim = new SimStorage({ seed: 15 });
    const f = await sim.open("a", { create: true });
    sim.injectFault({ op: "write", path: "a", code: "ENOSPC", times: 2 });
    for (let i = 0; i < 2; i++) {
      const err = await f.write(0, enc("x")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PagelogError);
      expect((err as PagelogError).code).toBe(ErrorCode.NO_SPACE);
      expect(((err as PagelogError).cause as { code: string }).code).toBe("ENOSPC");
    }
    expect(await f.size()).toBe(0);
    await f.write(0, enc("x"));
    expect(await f.size()).toBe(1);
  });

  it("a fault on another path does not fire", async () => {
    const sim = new SimStorage({ seed: 16 });
    sim.injectFault({ op: "open", path: "b", code: "EIO" });
    await sim.open("a", { create: true });
    await expectCode(sim.open("b", { create: true }), ErrorCode.IO);
  });

  it("writeback makes dirty pages durable early, without the size or the name", async () => {
    const sim = new SimStorage({ seed: 17, pageSize: 64, sectorSize: 16 });
    const f = await durableFile(sim, "a", fill(128, 1));
    await f.write(0, fill(128, 2));
    expect(sim.inspect("a").dirtyPages).toEqual([0, 1]);
    expect(sim.writeback({ pages: 1 })).toBe(1);
    expect(sim.inspect("a").dirtyPages.length).toBe(1);
    sim.writeback();
    expect(sim.inspect("a").dirtyPages).toEqual([]);
    const bytes = await readAll(sim.crash(keepNothing), "a");
    expect(bytes.every((b) => b === 2)).toBe(true);
  });

  it("random write-back during operations is seeded", async () => {
    async function dirtyAfter(seed: number) {
      const sim = new SimStorage({ seed, pageSize: 64, sectorSize: 16, writeback: 0.5 });
      const f = await sim.open("a", { create: true });
      for (let i = 0; i < 30; i++) await f.write(i * 64, fill(64, i));
      return sim.inspect("a").dirtyPages.join(",");
    }
    expect(await dirtyAfter(5)).toBe(await dirtyAfter(5));
    expect((await dirtyAfter(5)).split(",").length).toBeLessThan(30);
  });

  it("inspect maps durable, cached-only and page state for the demo", async () => {
    const sim = new SimStorage({ seed: 18, pageSize: 64, sectorSize: 16 });
    const f = await durableFile(sim, "seg.log", fill(100, 7));
    await f.write(100, fill(50, 8));
    const map = sim.inspect("seg.log");
    expect(map).toMatchObject({ size: 150, durableSize: 100, pageSize: 64, sectorSize: 16, dirtyPages: [1, 2] });
    expect(map.ranges).toEqual([
      { start: 0, end: 100, state: "durable" },
      { start: 100, end: 150, state: "cached" },
    ]);
  });

  it("trace records operations with their outcome", async () => {
    const sim = new SimStorage({ seed: 19, traceLimit: 3 });
    const f = await sim.open("a", { create: true });
    sim.injectFault({ op: "sync", code: "EIO" });
    await f.write(0, enc("abc"));
    await f.sync().catch(() => undefined);
    await sim.syncDir("");
    const tail = sim.trace.slice(-3);
    expect(tail.map((e) => [e.seq, e.op, e.path, e.detail, e.error])).toEqual([
      [2, "write", "a", "0+3", undefined],
      [3, "sync", "a", undefined, ErrorCode.IO],
      [4, "syncDir", "", undefined, undefined],
    ]);
  });

  it("pendingState lists what a power cut would decide", async () => {
    const sim = new SimStorage({ seed: 20, pageSize: 64, sectorSize: 16 });
    await sim.mkdir("d");
    const f = await sim.open("d/x", { create: true });
    await f.write(60, fill(10, 1));
    expect(sim.pendingState()).toEqual({
      files: [{ path: "d/x", dirtyPages: [0, 1], sizeDirty: true }],
      dirs: [
        { path: "", pendingChanges: 1 },
        { path: "d", pendingChanges: 1 },
      ],
    });
  });

  it("rejects bad options with TypeErrors naming them", () => {
    expect(() => new SimStorage({ pageSize: 1000, sectorSize: 512 })).toThrow(/pageSize/);
    expect(() => new SimStorage({ writeback: 2 })).toThrow(/writeback/);
    expect(() => new SimStorage({ seed: 1.5 })).toThrow(/seed/);
  });
});

describe("SimStorage: memory, what it forgets", () => {
  const page = 4096;

  it("a removed file is kept until its removal is durable, and forgotten after syncDir", async () => {
    const sim = new SimStorage({ seed: 20 });
    await durableFile(sim, "keep", fill(3 * page, 1));
    await (await durableFile(sim, "gone", fill(5 * page, 2))).close();
    const withBoth = sim.memory();
    expect(withBoth.files).toBe(2);
    await sim.remove("gone");
    // Unsynced: a power cut may undo the removal, so its bytes must still be there.
    expect(sim.memory()).toEqual(withBoth);
    const cut = sim.crash(keepNothing);
    expect(await readAll(cut, "gone")).toEqual(fill(5 * page, 2));

    const sim2 = new SimStorage({ seed: 20 });
    await durableFile(sim2, "keep", fill(3 * page, 1));
    await (await durableFile(sim2, "gone", fill(5 * page, 2))).close();
    await sim2.remove("gone");
    await sim2.syncDir("");
    expect(sim2.memory().files).toBe(1);
    expect(sim2.memory().bytes).toBeLessThan(withBoth.bytes);
    expect(await sim2.crash(keepNothing).list("")).toEqual(["keep"]);
  });

  it("a file replaced by a rename is forgotten once the rename is durable, not before", async () => {
    const sim = new SimStorage({ seed: 21 });
    for (let round = 0; round < 50; round++) {
      const tmp = await sim.open("cp.tmp", { create: true });
      await tmp.truncate(0);
      await tmp.write(0, fill(2 * page, round));
      await tmp.sync();
      await tmp.close();
      await sim.rename("cp.tmp", "cp");
      if (round === 49) {
        // The replaced version is still what a cut before syncDir may find.
        expect(sim.memory().files).toBe(2);
        expect(await readAll(sim.crash(keepNothing), "cp")).toEqual(fill(2 * page, 48));
        return;
      }
      await sim.syncDir("");
      expect(sim.memory().files).toBe(1);
    }
  });

  it("files created and removed inside an unsynced subdirectory go when its removal is durable", async () => {
    const sim = new SimStorage({ seed: 22 });
    await sim.mkdir("d");
    await sim.syncDir("");
    for (const name of ["a", "b"]) {
      const f = await sim.open(`d/${name}`, { create: true });
      await f.write(0, fill(page, 9));
      await f.close();
      await sim.remove(`d/${name}`);
    }
    expect(sim.memory().files).toBe(2); // d's unsynced creations may still come back
    await sim.remove("d");
    expect(sim.memory().files).toBe(2);
    await sim.syncDir("");
    expect(sim.memory()).toEqual({ files: 0, bytes: 0 });
  });

  it("a handle on a file whose removal is durable still reads and writes it", async () => {
    const sim = new SimStorage({ seed: 23 });
    const f = await durableFile(sim, "open", enc("before"));
    await sim.remove("open");
    await sim.syncDir("");
    expect(sim.memory().files).toBe(0);
    await f.write(6, enc(" and after"));
    await f.sync();
    expect(new TextDecoder().decode(await f.read(0, await f.size()))).toBe("before and after");
    expect(sim.writeback()).toBe(0);
  });

  it("a lock file released many times leaves nothing behind once the directory is synced", async () => {
    const sim = new SimStorage({ seed: 24 });
    for (let i = 0; i < 100; i++) await (await sim.lock(".lock")).release();
    expect(sim.memory().files).toBe(100);
    await sim.syncDir("");
    expect(sim.memory().files).toBe(0);
  });
});

describe("SimStorage: randomChooser", () => {
  it("randomChooser(seed): callable with a plain seed, and the same seed gives the same disk", async () => {
    const disk = async (seed: number): Promise<number[]> => {
      const sim = new SimStorage({ pageSize: 64, sectorSize: 16 });
      const f = await sim.open("f", { create: true });
      await f.write(0, new Uint8Array(64 * 8).fill(7));
      await sim.syncDir("");
      const after = sim.crash(randomChooser(seed));
      return [...(await (await after.open("f")).read(0, 64 * 8))];
    };
    expect(await disk(5)).toEqual(await disk(5));
    const seeds = await Promise.all([1, 2, 3, 4, 5, 6].map(disk));
    expect(new Set(seeds.map((d) => d.join())).size).toBeGreaterThan(1);
    expect(() => randomChooser(1.5)).toThrow(TypeError);
  });
});
