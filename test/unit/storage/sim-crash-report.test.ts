import { describe, expect, it } from "vitest";
import { type CrashChooser, keepEverything, keepNothing, SimStorage } from "../../../src/index.js";

/** Two files with dirty pages and an unsynced size, a directory with a create, a rename and a removal pending. */
async function pendingDisk(): Promise<SimStorage> {
  const sim = new SimStorage({ pageSize: 64, sectorSize: 16 });
  await sim.mkdir("d");
  const a = await sim.open("d/a", { create: true });
  await a.write(0, new Uint8Array(64).fill(1));
  await a.sync();
  const old = await sim.open("d/old", { create: true });
  await old.sync();
  await sim.syncDir("d");
  await sim.syncDir("");
  await a.write(0, new Uint8Array(200).fill(2)); // 4 dirty pages, size 64 -> 200
  const b = await sim.open("d/b", { create: true }); // a create
  await b.write(0, new Uint8Array(10).fill(3)); // 1 dirty page, size 0 -> 10
  await sim.rename("d/b", "d/c"); // a rename
  await sim.remove("d/old"); // a removal
  return sim;
}

describe("SimStorage.lastCrash: what a power cut decided", () => {
  it("is undefined on a storage that never crashed", () => {
    expect(new SimStorage().lastCrash).toBeUndefined();
  });

  it("keepNothing: every dirty page lost, every size undone, every directory change lost, by kind", async () => {
    const sim = await pendingDisk();
    expect(sim.crash(keepNothing).lastCrash).toEqual({
      pagesWritten: 0,
      // Only a is left to decide: b's creation is lost, so no name reaches b. a's size goes back
      // to 64, which holds one of its dirty pages.
      pagesLost: 1,
      pagesTorn: 0,
      sizesKept: 0,
      sizesUndone: 1,
      dirChangesKept: 0,
      createsLost: 1,
      renamesLost: 1,
      removesLost: 1,
    });
  });

  it("keepEverything: every dirty page written, every size kept, every change kept", async () => {
    const sim = await pendingDisk();
    expect(sim.crash(keepEverything).lastCrash).toEqual({
      pagesWritten: 5,
      pagesLost: 0,
      pagesTorn: 0,
      sizesKept: 2,
      sizesUndone: 0,
      dirChangesKept: 3,
      createsLost: 0,
      renamesLost: 0,
      removesLost: 0,
    });
  });

  it("counts torn pages and a kept prefix of the directory's changes, as the chooser decided them", async () => {
    const sim = await pendingDisk();
    const asked: string[] = [];
    const chooser: CrashChooser = {
      pageFate: (path, page, sectors) => {
        asked.push(`${path}#${page}`);
        return { torn: Array.from({ length: sectors }, (_, i) => i === 0) };
      },
      sizeCommitted: () => true,
      dirPrefix: (dir, pending) => (dir === "d" ? 1 : pending),
    };
    const report = sim.crash(chooser).lastCrash!;
    expect(report.pagesTorn).toBe(asked.length);
    expect(report).toMatchObject({ pagesWritten: 0, pagesLost: 0, sizesKept: 2, dirChangesKept: 1 });
    expect(report).toMatchObject({ createsLost: 0, renamesLost: 1, removesLost: 1 });
  });

  it("the seeded default chooser is counted too, and counting changes none of its draws", async () => {
    const one = (await pendingDisk()).crash();
    const two = (await pendingDisk()).crash();
    expect(one.lastCrash).toEqual(two.lastCrash);
    const r = one.lastCrash!;
    expect(r.pagesWritten + r.pagesLost + r.pagesTorn).toBeGreaterThan(0);
    expect(r.sizesKept + r.sizesUndone).toBe(2);
    expect(r.dirChangesKept + r.createsLost + r.renamesLost + r.removesLost).toBeGreaterThanOrEqual(3);
  });
});
