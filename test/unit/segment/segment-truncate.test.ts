/** Segment.truncateTo: whole batches, the new next offset, indexes, reads (Kafka's testTruncate*). */
import { describe, expect, test } from "vitest";
import { encodeBatch } from "../../../src/format/api.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import {
  buildBatches,
  concat,
  firstOffsetAtOrAfter,
  indexPath,
  logPath,
  newSegment,
  openSegment,
  readAllBatches,
  readFile,
  segmentWith,
  simpleSpecs,
  timeIndexPath,
} from "./helpers.js";

/** 1..4 records per batch, timestamps that go up and down, from offset 100. */
const SPECS = Array.from({ length: 14 }, (_, i) => ({
  timestamps: Array.from({ length: 1 + ((i * 3) % 4) }, (_, r) => 5000 + ((i * 71 + r * 29) % 300) - 100),
  valueBytes: 20 + ((i * 17) % 60),
}));
const BASE = 100;
const INTERVAL = 200;

describe("Segment.truncateTo", () => {
  test("truncate: at every offset, next offset, size, reads and indexes are those of the batches kept", async () => {
    const all = buildBatches(SPECS, BASE);
    const end = all.at(-1)!.lastOffset + 1;
    for (let offset = BASE - 2; offset <= end + 1; offset++) {
      const { storage, segment } = await segmentWith(SPECS, BASE, { indexIntervalBytes: INTERVAL });
      const k =
        offset >= end
          ? all.length
          : Math.max(
              0,
              all.findIndex((b) => b.lastOffset >= offset),
            );
      const kept = all.slice(0, k);
      const newNext = await segment.truncateTo(offset);
      const what = `truncateTo(${offset})`;
      // Whole batches: the batch holding `offset` goes, so the new next offset may be below it.
      expect(newNext, what).toBe(k === all.length ? end : all[k]!.baseOffset);
      expect(segment.nextOffset, what).toBe(newNext);
      expect(segment.size, what).toBe(kept.reduce((n, b) => n + b.size, 0));
      expect(await readFile(storage, logPath(BASE)), what).toEqual(concat(kept.map((b) => b.bytes)));
      expect(segment.maxTimestamp, what).toBe(
        kept.length === 0 ? -1 : Math.max(-1, ...kept.map((b) => b.maxTimestamp)),
      );
      if (kept.length === 0) expect(await segment.read(BASE, 1 << 20), what).toBeNull();
      else expect((await segment.read(BASE, 1 << 20))?.bytes, what).toEqual(concat(kept.map((b) => b.bytes)));
      expect(await segment.read(newNext, 1 << 20), what).toBeNull();

      // The offset index is exactly what appending only the kept batches writes.
      const fresh = await segmentWith(SPECS.slice(0, k), BASE, { indexIntervalBytes: INTERVAL });
      expect(await readFile(storage, indexPath(BASE)), what).toEqual(await readFile(fresh.storage, indexPath(BASE)));
      // The time index keeps no entry at or past the cut, and lookups still equal a linear scan.
      for (const e of Array.from({ length: segment.timeIndex.entries }, (_, s) => segment.timeIndex.entry(s)))
        expect(e.offset).toBeLessThan(newNext);
      for (const ts of [-1e6, 4899, 4950, 5000, 5100, 5199, 5200, 1e6]) {
        expect(await segment.offsetForTimestamp(ts), `${what} ts ${ts}`).toBe(firstOffsetAtOrAfter(kept, ts));
      }

      // Re-appending what was cut rebuilds the very same files, and they pass loadClean.
      for (const b of all.slice(k)) await segment.append(b.bytes);
      const original = await segmentWith(SPECS, BASE, { indexIntervalBytes: INTERVAL });
      expect(await readFile(storage, indexPath(BASE)), what).toEqual(await readFile(original.storage, indexPath(BASE)));
      expect(await readFile(storage, timeIndexPath(BASE)), what).toEqual(
        await readFile(original.storage, timeIndexPath(BASE)),
      );
      await segment.close();
      const reopened = await openSegment(storage, BASE, { indexIntervalBytes: INTERVAL });
      expect(await reopened.loadClean(), what).toEqual({ indexesRebuilt: false });
      expect(reopened.nextOffset).toBe(end);
    }
  });

  test("truncate: append two batches, cut the second, 30 times over (Kafka testTruncate)", async () => {
    const { segment } = await newSegment(40, { indexIntervalBytes: 10 });
    for (let offset = 40; offset < 70; offset++) {
      const first = encodeBatch([{ value: "hello", timestamp: offset }], { baseOffset: offset });
      await segment.append(first);
      await segment.append(encodeBatch([{ value: "hello", timestamp: offset }], { baseOffset: offset + 1 }));
      expect((await readAllBatches(segment)).at(-1)?.baseOffset).toBe(offset + 1);
      expect(await segment.truncateTo(offset + 1)).toBe(offset + 1);
      const read = await segment.read(offset, 10_000);
      expect(read?.lastOffset).toBe(offset);
      expect(read?.bytes.subarray(read.bytes.length - first.length)).toEqual(first);
    }
  });

  test("truncate: the largest timestamp and next offset are reloaded (Kafka testReloadLargestTimestampAndNextOffsetAfterTruncation)", async () => {
    const size = buildBatches(simpleSpecs(1))[0]!.size;
    const specs = Array.from({ length: 30 }, (_, i) => ({ timestamps: [(40 + i) * 10] }));
    const { segment } = await segmentWith(specs, 40, { indexIntervalBytes: 2 * size - 1 });
    expect(segment.nextOffset).toBe(70);
    expect(segment.timeIndex.entries).toBe(30 / 2 - 1);
    expect(await segment.truncateTo(41)).toBe(41);
    expect(segment.timeIndex.entries).toBe(0);
    expect(segment.maxTimestamp).toBe(400);
    expect(segment.nextOffset).toBe(41);
  });

  test("truncate: inside a batch cuts the whole batch and returns its base offset", async () => {
    const { segment } = await segmentWith([{ timestamps: [1, 2, 3] }, { timestamps: [4, 5, 6, 7] }], 10);
    expect(await segment.truncateTo(15)).toBe(13);
    expect(segment.nextOffset).toBe(13);
    expect(await segment.truncateTo(11)).toBe(10);
    expect(segment.size).toBe(0);
  });

  test("truncate: an empty segment stays empty and usable (Kafka testTruncateEmptySegment)", async () => {
    const storage = new SimStorage();
    const { segment } = await newSegment(0, {}, storage);
    await segment.close();
    const reopened = await openSegment(storage, 0);
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: false });
    expect(reopened.offsetIndex.sizeInBytes).toBe(0);
    expect(reopened.timeIndex.sizeInBytes).toBe(0);
    expect(await reopened.truncateTo(57)).toBe(0);
    expect(await reopened.truncateTo(0)).toBe(0);
    expect(reopened.size).toBe(0);
    expect(reopened.indexFull).toBe(false);
    expect(reopened.maxTimestamp).toBe(-1);
    expect(await reopened.read(0, 1024)).toBeNull();
    await reopened.append(encodeBatch([{ value: "x", timestamp: 3 }], { baseOffset: 0 }));
    expect(reopened.nextOffset).toBe(1);
  });

  test("truncate: to the base offset or below empties it, and it takes the original offsets again (Kafka testTruncateFull)", async () => {
    for (const to of [0, 39, 40]) {
      const { segment, batches } = await segmentWith([{ timestamps: [1, 2] }, { timestamps: [3] }], 40, {
        indexIntervalBytes: 0,
      });
      expect(await segment.truncateTo(to)).toBe(40);
      expect(segment.size).toBe(0);
      expect(segment.offsetIndex.entries).toBe(0);
      expect(segment.timeIndex.entries).toBe(0);
      expect(segment.indexFull).toBe(false);
      expect(await segment.read(0, 1024)).toBeNull();
      await segment.append(batches[0]!.bytes);
      expect(segment.nextOffset).toBe(42);
    }
  });

  test("truncate: at or past the next offset changes nothing", async () => {
    const { storage, segment } = await segmentWith(SPECS, BASE, { indexIntervalBytes: INTERVAL });
    const before = await readFile(storage, logPath(BASE));
    expect(await segment.truncateTo(segment.nextOffset)).toBe(segment.nextOffset);
    expect(await segment.truncateTo(1e12)).toBe(segment.nextOffset);
    expect(await readFile(storage, logPath(BASE))).toEqual(before);
  });
});
