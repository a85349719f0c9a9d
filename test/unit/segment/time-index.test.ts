/** The .timeindex file: Kafka's 12-byte entries, strict lookup, truncation, sanity checks. */
import { checkIndex } from "../../../src/segment/load/index-checks.js";
import { describe, expect, test } from "vitest";
import { ErrorCode, isPagelogError } from "../../../src/errors.js";
import { TimeIndex } from "../../../src/segment/time-index.js";
import {
  OPTIONS,
  buildBatches,
  openSegment,
  readAllBatches,
  readFile,
  replaceFile,
  segmentWith,
  simpleSpecs,
  timeEntries,
  timeIndexPath,
} from "./helpers.js";

/** Big-endian int64 bytes of a safe integer. */
function be64(n: number): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt(n));
  return [...bytes];
}
const be32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

describe("TimeIndex: entry format", () => {
  test("timeindex: 12-byte entries hold the running max timestamp and its batch's relative last offset", async () => {
    // Base 100, batches of 2 records, interval 0: an entry before every batch but the first,
    // added only when the running max timestamp grows.
    const specs = [
      { timestamps: [5000, 4000] }, // 100..101, max 5000
      { timestamps: [3000, 3500] }, // 102..103, max still 5000 (from 101)
      { timestamps: [6000, 7000] }, // 104..105, max 7000
      { timestamps: [-20, 7000] }, // 106..107, max 7000 (not later: no entry)
      { timestamps: [1_700_000_000_123, 1] }, // 108..109
    ];
    const { storage, segment } = await segmentWith(specs, 100, { indexIntervalBytes: 0 });
    const expected = new Uint8Array([
      ...be64(5000),
      ...be32(1),
      ...be64(7000),
      ...be32(5),
      ...be64(1_700_000_000_123),
      ...be32(9),
    ]);
    expect(await readFile(storage, timeIndexPath(100))).toEqual(expected);
    expect(segment.timeIndex.entry(2)).toEqual({ timestamp: 1_700_000_000_123, offset: 109 });
    expect(segment.maxTimestamp).toBe(1_700_000_000_123);
  });

  test("timeindex: seal() adds the segment's max timestamp once, as Kafka's onBecomeInactiveSegment", async () => {
    const { storage, segment } = await segmentWith(
      [{ timestamps: [10] }, { timestamps: [30] }, { timestamps: [20] }, { timestamps: [50] }],
      0,
      { indexIntervalBytes: 1 << 20 },
    );
    expect(segment.timeIndex.entries).toBe(0);
    await segment.seal();
    await segment.seal();
    expect(timeEntries(await readFile(storage, timeIndexPath()))).toEqual([[50, 3]]);
  });
});

describe("TimeIndex: full", () => {
  test("timeindex: a full time index keeps its last slot for seal(), so a sealed full segment loads clean as it is", async () => {
    // 72 bytes: 9 offset entries, 6 time entries, the last kept for seal (Kafka's TimeIndex.isFull).
    const specs = Array.from({ length: 12 }, (_, i) => ({ timestamps: [100 * i] }));
    const { storage, segment } = await segmentWith(specs, 0, { indexIntervalBytes: 0, maxIndexBytes: 72 });
    expect(segment.timeIndex.entries).toBe(5);
    expect(segment.timeIndex.isFull).toBe(true);
    expect(segment.indexFull).toBe(true);
    await segment.seal();
    expect(timeEntries(await readFile(storage, timeIndexPath())).at(-1)).toEqual([1100, 11]);
    await segment.close();
    const reopened = await openSegment(storage, 0, { indexIntervalBytes: 0, maxIndexBytes: 72 });
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: false });
    for (let i = 0; i < 12; i++) expect(await reopened.offsetForTimestamp(100 * i - 1)).toBe(i);
    await reopened.close();
    const recovered = await openSegment(storage, 0, { indexIntervalBytes: 0, maxIndexBytes: 72 });
    await recovered.recover();
    expect(recovered.timeIndex.entries).toBe(6);
    await recovered.close();
    expect(await (await openSegment(storage, 0, { indexIntervalBytes: 0, maxIndexBytes: 72 })).loadClean()).toEqual({
      indexesRebuilt: false,
    });
  });
});

describe("TimeIndex: lookup and truncation", () => {
  test("lookupBefore is strict: the last entry with a timestamp below the target", async () => {
    const { segment } = await segmentWith(
      [
        { timestamps: [100] },
        { timestamps: [200] },
        { timestamps: [200] },
        { timestamps: [300] },
        { timestamps: [400] },
      ],
      0,
      { indexIntervalBytes: 0 },
    );
    // Entries: (200, 1), (300, 3), (400, 4).
    const index = segment.timeIndex;
    expect(index.lookupBefore(200)).toBeUndefined();
    expect(index.lookupBefore(201)).toEqual({ timestamp: 200, offset: 1 });
    expect(index.lookupBefore(300)).toEqual({ timestamp: 200, offset: 1 });
    expect(index.lookupBefore(301)).toEqual({ timestamp: 300, offset: 3 });
    expect(index.lookupBefore(1e12)).toEqual({ timestamp: 400, offset: 4 });
    expect(index.lookupBefore(-1e12)).toBeUndefined();
  });

  test("offsetForTimestamp: Kafka's testFindOffsetByTimestamp scenarios", async () => {
    // Offsets 40..49 with timestamps offset * 10; interval: an entry every second batch.
    const size = buildBatches(simpleSpecs(1))[0]!.size;
    const specs = Array.from({ length: 10 }, (_, i) => ({ timestamps: [(40 + i) * 10] }));
    const { segment } = await segmentWith(specs, 40, { indexIntervalBytes: 2 * size - 1 });
    expect(segment.maxTimestamp).toBe(490);
    expect(await segment.offsetForTimestamp(420)).toBe(42); // indexed
    expect(await segment.offsetForTimestamp(421)).toBe(43);
    expect(await segment.offsetForTimestamp(430)).toBe(43); // not indexed
    expect(await segment.offsetForTimestamp(431)).toBe(44);
    expect(await segment.offsetForTimestamp(491)).toBeNull();
    expect(await segment.offsetForTimestamp(401)).toBe(41);
    expect(await segment.offsetForTimestamp(399)).toBe(40);
  });

  test("offsetForTimestamp: an earlier record with exactly the target timestamp is found", async () => {
    // 0:500, 1:100, 2:500 (the entry for 500 points at 0), target 500 must answer 0.
    const { segment } = await segmentWith(
      [{ timestamps: [500] }, { timestamps: [100] }, { timestamps: [500, 600] }, { timestamps: [700] }],
      0,
      { indexIntervalBytes: 0 },
    );
    expect(await segment.offsetForTimestamp(500)).toBe(0);
    expect(await segment.offsetForTimestamp(501)).toBe(3);
    expect(await segment.offsetForTimestamp(101)).toBe(0);
    expect(await segment.offsetForTimestamp(650)).toBe(4);
  });

  test("truncate: truncateTo(offset) drops entries whose offset is at or above it", async () => {
    const { storage, segment } = await segmentWith(
      [{ timestamps: [1] }, { timestamps: [2] }, { timestamps: [3] }, { timestamps: [4] }],
      10,
      { indexIntervalBytes: 0 },
    );
    expect(timeEntries(await readFile(storage, timeIndexPath(10)))).toEqual([
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
    await segment.timeIndex.truncateTo(12);
    expect(timeEntries(await readFile(storage, timeIndexPath(10)))).toEqual([[2, 1]]);
    await segment.timeIndex.truncateTo(10);
    expect(segment.timeIndex.entries).toBe(0);
    expect(segment.timeIndex.lastEntry).toBeUndefined();
  });

  test("timeindex: maybeAppend skips a timestamp that is not later than the last entry's", async () => {
    const { segment } = await segmentWith([{ timestamps: [1] }, { timestamps: [2] }], 0, { indexIntervalBytes: 0 });
    await segment.timeIndex.maybeAppend(2, 1);
    await segment.timeIndex.maybeAppend(1, 1);
    expect(segment.timeIndex.entries).toBe(1);
  });
});

describe("TimeIndex: sanity check", () => {
  const entry = (ts: number, rel: number): number[] => [...be64(ts), ...be32(rel)];
  const cases: Array<[string, number[]]> = [
    ["size not a multiple of 12", [...entry(1000, 1), 7]],
    ["timestamps decreasing", [...entry(1020, 1), ...entry(1010, 2)]],
    ["offsets decreasing", [...entry(1010, 2), ...entry(1020, 1)]],
    ["offset below the base offset", entry(1010, -1)],
    ["offset past the segment end", entry(1010, 3)],
    ["a timestamp beyond Number.MAX_SAFE_INTEGER", [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, ...be32(1)]],
  ];

  for (const [name, bytes] of cases) {
    test(`sanity: ${name} is PAGELOG_CORRUPT naming the .timeindex, and loadClean rebuilds it`, async () => {
      const { storage, segment, batches } = await segmentWith(simpleSpecs(3), 10, { indexIntervalBytes: 0 });
      await segment.seal();
      await segment.flush();
      const good = await readFile(storage, timeIndexPath(10));
      await segment.close();
      await replaceFile(storage, timeIndexPath(10), new Uint8Array(bytes));
      const index = await TimeIndex.open(await storage.open(timeIndexPath(10)), 10, OPTIONS.maxIndexBytes);
      await index.load();
      let thrown: unknown;
      try {
        checkIndex(
          index,
          batches.reduce((n, b) => n + b.size, 0),
          13,
        );
      } catch (err) {
        thrown = err;
      }
      expect(isPagelogError(thrown, ErrorCode.CORRUPT), String(thrown)).toBe(true);
      expect((thrown as { path: string }).path).toBe(timeIndexPath(10));
      await index.close();

      const reopened = await openSegment(storage, 10, { indexIntervalBytes: 0 });
      expect(await reopened.loadClean()).toEqual({ indexesRebuilt: true });
      expect(await readFile(storage, timeIndexPath(10))).toEqual(good);
      expect(reopened.maxTimestamp).toBe(1020);
      expect(await reopened.offsetForTimestamp(1005)).toBe(11);
      expect((await readAllBatches(reopened)).length).toBe(3);
    });
  }
});
