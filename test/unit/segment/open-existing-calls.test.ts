/*
 * What opening an existing segment asks of the storage: a lazy segment's first use pays every
 * path call (FsStorage checks the root and makes a syscall or two for each), so an existing
 * segment's index files are opened, not stat-ed first; a missing one is still found missing
 * (rebuilt on load, created on its first write, or in memory when read-only).
 */
import { describe, expect, it } from "vitest";
import { Segment } from "../../../src/segment/segment.js";
import type { Storage } from "../../../src/storage/storage.js";
import { DIR, OPTIONS, indexPath, segmentWith, timeIndexPath } from "./helpers.js";

/** `storage` with its `stat` calls counted. */
function countingStats(storage: Storage): { storage: Storage; stats: string[] } {
  const stats: string[] = [];
  const stat = (path: string) => {
    stats.push(path);
    return storage.stat(path);
  };
  const counted = new Proxy(storage, {
    get(target, key) {
      if (key === "stat") return stat;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { storage: counted, stats };
}

describe("Segment.openExisting: storage calls", () => {
  const specs = [
    { timestamps: [5, 7], valueBytes: 40 },
    { timestamps: [9], valueBytes: 10 },
  ];

  for (const mode of ["existing", "readOnly"] as const) {
    const open = (s: Storage) =>
      mode === "existing" ? Segment.openExisting(s, DIR, 0, OPTIONS) : Segment.openReadOnly(s, DIR, 0, OPTIONS);

    it(`${mode}: opens its three files without a stat, and loads as before`, async () => {
      const { storage, segment } = await segmentWith(specs);
      await segment.close();
      const { storage: counted, stats } = countingStats(storage);
      const reopened = await open(counted);
      try {
        expect(stats).toEqual([]);
        expect(await reopened.planLoadClean()).toEqual({ indexesRebuilt: false });
        expect(reopened.nextOffset).toBe(3);
        expect(reopened.maxTimestamp).toBe(9);
        expect(await reopened.offsetForTimestamp(8)).toBe(2);
      } finally {
        await reopened.close();
      }
    });

    it(`${mode}: a missing index file is still found missing and rebuilt`, async () => {
      const { storage, segment } = await segmentWith(specs, 0, { indexIntervalBytes: 1 });
      await segment.close();
      await storage.remove(indexPath());
      await storage.remove(timeIndexPath());
      const reopened = await open(storage);
      try {
        expect(await reopened.planLoadClean()).toEqual({ indexesRebuilt: true });
        expect(reopened.maxTimestamp).toBe(9);
        expect((await reopened.read(2, 1))?.firstOffset).toBe(2);
        expect(await reopened.offsetForTimestamp(6)).toBe(1);
      } finally {
        await reopened.close();
      }
    });
  }
});
