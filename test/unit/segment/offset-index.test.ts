/** The .index file: Kafka's 8-byte entries, the sparse rule, floor lookup, truncation, sanity checks. */
import { checkIndex } from "../../../src/segment/load/index-checks.js";
import { describe, expect, test } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { OffsetIndex } from "../../../src/segment/offset-index.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { expectCode } from "../format/helpers.js";
import {
  DIR,
  OPTIONS,
  buildBatches,
  indexPath,
  logPath,
  offsetEntries,
  openSegment,
  readAllBatches,
  readFile,
  replaceFile,
  segmentWith,
  simpleSpecs,
  timeIndexPath,
  writeFile,
} from "./helpers.js";

/** Big-endian int32 bytes. */
const be32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** The sparse rule, written independently: the entries appending `sizes` must produce. */
function expectedEntries(
  batches: ReadonlyArray<{ lastOffset: number; position: number; size: number }>,
  interval: number,
  base: number,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let since = 0;
  for (const b of batches) {
    if (since > interval) {
      out.push([b.lastOffset - base, b.position]);
      since = 0;
    }
    since += b.size;
  }
  return out;
}

describe("OffsetIndex: entry format", () => {
  test("index: 8-byte entries hold the batch's relative LAST offset and its start position, big-endian", async () => {
    // Base 100; batches of 3 records; interval 0 indexes every batch but the first.
    const { storage, segment, batches } = await segmentWith(simpleSpecs(3, 3), 100, { indexIntervalBytes: 0 });
    const [, b1, b2] = batches;
    // Batch 1 holds 103..105, batch 2 holds 106..108: relative last offsets 5 and 8.
    const expected = new Uint8Array([...be32(5), ...be32(b1!.position), ...be32(8), ...be32(b2!.position)]);
    expect(await readFile(storage, indexPath(100))).toEqual(expected);
    expect(b1!.position).toBe(b1!.size); // the second batch starts right after the first
    expect(segment.offsetIndex.entry(0)).toEqual({ offset: 105, position: b1!.position });
    expect(segment.offsetIndex.entry(1)).toEqual({ offset: 108, position: b2!.position });
  });

  test("index: the first batch never gets an entry, even with indexIntervalBytes 0", async () => {
    const { storage } = await segmentWith(simpleSpecs(1, 5), 0, { indexIntervalBytes: 0 });
    expect((await readFile(storage, indexPath())).length).toBe(0);
  });
});

describe("OffsetIndex: the sparse rule", () => {
  test("sparse: an entry only when MORE than indexIntervalBytes were written since the last one", async () => {
    const size = buildBatches(simpleSpecs(1))[0]!.size;
    // Exactly 2 batches' worth is not more than 2 * size: the entry comes before the 4th batch.
    const atEqual = await segmentWith(simpleSpecs(10), 0, { indexIntervalBytes: 2 * size });
    expect(offsetEntries(await readFile(atEqual.storage, indexPath()))).toEqual([
      [3, 3 * size],
      [6, 6 * size],
      [9, 9 * size],
    ]);
    // One byte less and two batches are more than the interval: every second batch.
    const below = await segmentWith(simpleSpecs(10), 0, { indexIntervalBytes: 2 * size - 1 });
    expect(offsetEntries(await readFile(below.storage, indexPath()))).toEqual([
      [2, 2 * size],
      [4, 4 * size],
      [6, 6 * size],
      [8, 8 * size],
    ]);
  });

  test("sparse: batches of mixed sizes index exactly where the rule says", async () => {
    const specs = [3, 1, 40, 2, 1, 1, 60, 5, 1, 9, 2, 30].map((n, i) => ({
      timestamps: Array.from({ length: n }, () => 5000 + i),
      valueBytes: 20 + 7 * i,
    }));
    for (const interval of [0, 1, 100, 500, 1500, 100_000]) {
      const { storage, batches } = await segmentWith(specs, 7, { indexIntervalBytes: interval });
      expect(offsetEntries(await readFile(storage, indexPath(7))), `interval ${interval}`).toEqual(
        expectedEntries(batches, interval, 7),
      );
    }
  });

  test("index: indexFull once maxIndexBytes worth of offset entries were added, and no entry after that", async () => {
    // 36 bytes: 4 offset entries; the time index (3 entries of 12, one kept for seal) is not the
    // limit: with one timestamp throughout it only ever gets one entry.
    const specs = Array.from({ length: 8 }, () => ({ timestamps: [7] }));
    const { segment, batches } = await segmentWith(specs, 0, { indexIntervalBytes: 0, maxIndexBytes: 36 });
    expect(segment.timeIndex.entries).toBe(1);
    expect(segment.offsetIndex.entries).toBe(4);
    expect(segment.offsetIndex.isFull).toBe(true);
    expect(segment.indexFull).toBe(true);
    for (const b of batches) expect((await segment.read(b.baseOffset, 1))?.position).toBe(b.position);
  });
});

describe("OffsetIndex: lookup and truncation", () => {
  test("lookup: floor of the target among the entries, the segment start below the first", async () => {
    const { segment, batches } = await segmentWith(simpleSpecs(6, 2), 50, { indexIntervalBytes: 0 });
    // Entries for batches 1..5: last offsets 53, 55, 57, 59, 61.
    const index = segment.offsetIndex;
    expect(index.lookup(0)).toEqual({ offset: 50, position: 0 });
    expect(index.lookup(50)).toEqual({ offset: 50, position: 0 });
    expect(index.lookup(52)).toEqual({ offset: 50, position: 0 });
    expect(index.lookup(53)).toEqual({ offset: 53, position: batches[1]!.position });
    expect(index.lookup(54)).toEqual({ offset: 53, position: batches[1]!.position });
    expect(index.lookup(56)).toEqual({ offset: 55, position: batches[2]!.position });
    expect(index.lookup(61)).toEqual({ offset: 61, position: batches[5]!.position });
    expect(index.lookup(1e9)).toEqual({ offset: 61, position: batches[5]!.position });
  });

  test("truncate: truncateTo(offset) drops entries at or above it, in memory and in the file", async () => {
    const { storage, segment } = await segmentWith(simpleSpecs(6, 2), 50, { indexIntervalBytes: 0 });
    const index = segment.offsetIndex;
    await index.truncateTo(58); // keeps 53, 55, 57
    expect(index.entries).toBe(3);
    expect(offsetEntries(await readFile(storage, indexPath(50))).map(([o]) => o)).toEqual([3, 5, 7]);
    await index.truncateTo(57); // drops 57 itself
    expect(index.lastOffset).toBe(55);
    await index.truncateTo(0);
    expect(index.entries).toBe(0);
    expect((await readFile(storage, indexPath(50))).length).toBe(0);
    expect(index.lookup(60)).toEqual({ offset: 50, position: 0 });
  });

  test("index: append refuses an offset that does not increase", async () => {
    const { segment } = await segmentWith(simpleSpecs(3), 0, { indexIntervalBytes: 0 });
    await expect(segment.offsetIndex.append(2, 999)).rejects.toThrow(RangeError);
    await expect(segment.offsetIndex.append(-1, 999)).rejects.toThrow(RangeError);
  });
});

describe("OffsetIndex: sanity check", () => {
  /** A 3-batch segment (offsets 10..12) on disk with an .index of the given bytes. */
  async function withIndexBytes(bytes: Uint8Array) {
    const { storage, segment, batches } = await segmentWith(simpleSpecs(3), 10, { indexIntervalBytes: 0 });
    await segment.flush();
    await segment.close();
    await replaceFile(storage, indexPath(10), bytes);
    const file = await storage.open(indexPath(10));
    const index = await OffsetIndex.open(file, 10, OPTIONS.maxIndexBytes);
    await index.load(); // indexes read their entries on first use; checkIndex needs them
    const logSize = batches.reduce((n, b) => n + b.size, 0);
    return { storage, index, batches, logSize };
  }

  const entry = (rel: number, pos: number): number[] => [...be32(rel), ...be32(pos)];

  const cases: Array<[string, (p: number[]) => number[]]> = [
    ["size not a multiple of 8", (p) => [...entry(1, p[1]!), 0, 0, 0]],
    ["offsets not strictly increasing", (p) => [...entry(1, p[1]!), ...entry(1, p[2]!)]],
    ["offsets decreasing", (p) => [...entry(2, p[2]!), ...entry(1, p[1]!)]],
    ["offset below the base offset", (p) => entry(-1, p[1]!)],
    ["offset past the segment end", (p) => entry(3, p[1]!)],
    ["position past the log end", (p) => entry(1, p[3]!)],
    ["positions not increasing", (p) => [...entry(1, p[2]!), ...entry(2, p[1]!)]],
  ];

  for (const [name, make] of cases) {
    test(`sanity: ${name} is PAGELOG_CORRUPT naming the .index, and loadClean rebuilds it`, async () => {
      const built = buildBatches(simpleSpecs(3), 10);
      const positions = [...built.map((b) => b.position), built.reduce((n, b) => n + b.size, 0)];
      const { storage, index, logSize } = await withIndexBytes(new Uint8Array(make(positions)));
      let thrown: unknown;
      try {
        checkIndex(index, logSize, 13);
      } catch (err) {
        thrown = err;
      }
      expectCode(() => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value unchanged
        if (thrown !== undefined) throw thrown;
      }, ErrorCode.CORRUPT);
      expect((thrown as { path: string }).path).toBe(indexPath(10));
      await index.close();

      const segment = await openSegment(storage, 10, { indexIntervalBytes: 0 });
      expect(await segment.loadClean()).toEqual({ indexesRebuilt: true });
      expect(offsetEntries(await readFile(storage, indexPath(10)))).toEqual([
        [1, positions[1]],
        [2, positions[2]],
      ]);
      expect(segment.nextOffset).toBe(13);
      expect((await readAllBatches(segment)).map((b) => b.baseOffset)).toEqual([10, 11, 12]);
    });
  }

  test("sanity: the entries appending wrote pass", async () => {
    const { storage, segment } = await segmentWith(simpleSpecs(3), 10, { indexIntervalBytes: 0 });
    await segment.close();
    const reopened = await openSegment(storage, 10, { indexIntervalBytes: 0 });
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: false });
  });
});

describe("OffsetIndex: rebuilt from the log", () => {
  const specs = Array.from({ length: 60 }, (_, i) => ({
    timestamps: Array.from({ length: 1 + (i % 4) }, (_, r) => 10_000 + ((i * 37 + r * 11) % 500)),
    valueBytes: 10 + ((i * 13) % 90),
  }));

  test("rebuild: loadClean without index files and recover() both give the bytes appending wrote", async () => {
    const { storage, segment } = await segmentWith(specs, 1000, { indexIntervalBytes: 300 });
    await segment.seal(); // the last time entry that recovery also adds
    await segment.flush();
    await segment.close();
    const index = await readFile(storage, indexPath(1000));
    const timeIndex = await readFile(storage, timeIndexPath(1000));
    expect(index.length).toBeGreaterThan(8 * 10);
    expect(timeIndex.length).toBeGreaterThan(12 * 3);

    await storage.remove(indexPath(1000));
    await storage.remove(timeIndexPath(1000));
    const clean = await openSegment(storage, 1000, { indexIntervalBytes: 300 });
    expect(await clean.loadClean()).toEqual({ indexesRebuilt: true });
    expect(await readFile(storage, indexPath(1000))).toEqual(index);
    expect(await readFile(storage, timeIndexPath(1000))).toEqual(timeIndex);
    await clean.close();

    await replaceFile(storage, indexPath(1000), new Uint8Array(0));
    await replaceFile(storage, timeIndexPath(1000), new Uint8Array(0));
    const recovered = await openSegment(storage, 1000, { indexIntervalBytes: 300 });
    await recovered.recover();
    expect(await readFile(storage, indexPath(1000))).toEqual(index);
    expect(await readFile(storage, timeIndexPath(1000))).toEqual(timeIndex);
  });

  test("close: index files hold only their used entries (no preallocation)", async () => {
    const storage = new SimStorage();
    const { segment } = await segmentWith(specs, 0, { indexIntervalBytes: 300, maxIndexBytes: 1 << 20 }, storage);
    await segment.seal();
    await segment.flush();
    const entries = segment.offsetIndex.entries;
    const timeEntries = segment.timeIndex.entries;
    await segment.close();
    expect((await storage.stat(indexPath()))?.size).toBe(8 * entries);
    expect((await storage.stat(timeIndexPath()))?.size).toBe(12 * timeEntries);
    expect((await storage.stat(logPath()))?.size).toBe(segment.size);
    expect((await storage.list(DIR)).length).toBe(3);
  });

  test("open: missing index files are created empty; garbage appended to an index is caught", async () => {
    const { storage, segment } = await segmentWith(simpleSpecs(20, 1, 300), 0, { indexIntervalBytes: 1000 });
    await segment.close();
    const before = await readFile(storage, indexPath());
    await writeFile(storage, indexPath(), before.length, new Uint8Array([1, 2, 3, 4, 5]));
    const reopened = await openSegment(storage, 0, { indexIntervalBytes: 1000 });
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: true });
    expect(await readFile(storage, indexPath())).toEqual(before);
  });
});
