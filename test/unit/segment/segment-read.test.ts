/** Segment read path and append: whole batches, maxBytes, corruption on read, offset checks. */
import { describe, expect, test } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { CRC_OFFSET, PARTITION_LEADER_EPOCH_OFFSET, encodeBatch } from "../../../src/format/api.js";
import {
  buildBatches,
  concat,
  decodeAll,
  expectBytes,
  logPath,
  newSegment,
  openSegment,
  readAllBatches,
  readFile,
  rejectsWith,
  segmentWith,
  simpleSpecs,
  writeFile,
} from "./helpers.js";

/** Batches of 1, 2, 3, 4, 1, 2, … records from offset 40; interval small enough to index some. */
const SPECS = Array.from({ length: 12 }, (_, i) => ({
  timestamps: Array.from({ length: 1 + (i % 4) }, (_, r) => 2000 + i * 10 + r),
  valueBytes: 30,
}));

describe("Segment.read", () => {
  test("read: the first batch returned is the one holding the offset, for every offset", async () => {
    const { segment, batches } = await segmentWith(SPECS, 40, { indexIntervalBytes: 150 });
    expect(segment.offsetIndex.entries).toBeGreaterThan(2);
    for (let offset = 40; offset < segment.nextOffset; offset++) {
      const k = batches.findIndex((b) => b.lastOffset >= offset);
      const read = await segment.read(offset, Number.MAX_SAFE_INTEGER);
      expect(read?.position, `offset ${offset}`).toBe(batches[k]!.position);
      expect(read?.firstOffset).toBe(batches[k]!.baseOffset);
      expect(read?.lastOffset).toBe(segment.nextOffset - 1);
      expect(read?.bytes).toEqual(concat(batches.slice(k).map((b) => b.bytes)));
    }
  });

  test("read: an offset below the segment's base reads from its first batch (Kafka testReadBeforeFirstOffset)", async () => {
    const { segment, batches } = await segmentWith(SPECS.slice(0, 3), 40);
    const read = await segment.read(3, 1 << 20);
    expect(read?.firstOffset).toBe(40);
    expect(read?.bytes).toEqual(concat(batches.map((b) => b.bytes)));
  });

  test("read: at least one whole batch, even when it is larger than maxBytes", async () => {
    const { segment, batches } = await segmentWith(SPECS, 40, { indexIntervalBytes: 150 });
    for (const maxBytes of [0, 1, batches[3]!.size - 1]) {
      const read = await segment.read(batches[3]!.baseOffset + 1, maxBytes);
      expect(read?.bytes).toEqual(batches[3]!.bytes);
      expect(read?.lastOffset).toBe(batches[3]!.lastOffset);
    }
  });

  test("read: stops before the batch that would exceed maxBytes", async () => {
    const { segment, batches } = await segmentWith(SPECS, 40, { indexIntervalBytes: 150 });
    const three = batches[2]!.size + batches[3]!.size + batches[4]!.size;
    const atThree = await segment.read(batches[2]!.baseOffset, three);
    expect((await decodeAll(atThree!.bytes)).map((b) => b.baseOffset)).toEqual(
      [2, 3, 4].map((i) => batches[i]!.baseOffset),
    );
    const belowThree = await segment.read(batches[2]!.baseOffset, three - 1);
    expect(belowThree?.bytes).toEqual(concat([batches[2]!.bytes, batches[3]!.bytes]));
    expect(belowThree?.lastOffset).toBe(batches[3]!.lastOffset);
  });

  test("read: at or past the end is null, on an empty segment too (Kafka testReadOnEmptySegment)", async () => {
    const empty = await newSegment(40);
    expect(await empty.segment.read(40, 300)).toBeNull();
    expect(await empty.segment.read(0, 300)).toBeNull();
    const { segment } = await segmentWith(SPECS.slice(0, 2), 40);
    expect(segment.nextOffset).toBe(43);
    expect(await segment.read(43, 300)).toBeNull();
    expect(await segment.read(1000, 300)).toBeNull();
    expect((await segment.read(42, 300))?.firstOffset).toBe(41);
  });

  test("read: a flipped byte anywhere in the batch holding the offset is PAGELOG_CORRUPT naming the file and position", async () => {
    // Interval 150: some batches start at an index entry, some are reached by scanning.
    const { segment, batches, storage } = await segmentWith(SPECS.slice(0, 6), 40, { indexIntervalBytes: 150 });
    expect(segment.offsetIndex.entries).toBeGreaterThan(1);
    for (const [k, victim] of batches.entries()) {
      for (let i = 0; i < victim.size; i++) {
        // The partition leader epoch is the one field a v2 batch's CRC does not cover and whose
        // value no reader can check (Kafka rewrites it in place on the leader): not damage to detect.
        if (i >= PARTITION_LEADER_EPOCH_OFFSET && i < PARTITION_LEADER_EPOCH_OFFSET + 4) continue;
        const what = `batch ${k} byte ${i}`;
        const at = victim.position + i;
        const original = (await readFile(storage, logPath(40)))[at]!;
        await writeFile(storage, logPath(40), at, new Uint8Array([original ^ 0x10]));
        const err = await rejectsWith(segment.read(victim.baseOffset, 1 << 20), ErrorCode.CORRUPT, what);
        expect(err.path, what).toBe(logPath(40));
        expect(err.message, what).toContain(`at byte ${victim.position}`);
        // A read that starts earlier hands on the batches before the damaged one, and stops there.
        if (k > 0)
          expectBytes((await segment.read(40, 1 << 20))?.bytes, concat(batches.slice(0, k).map((b) => b.bytes)), what);
        await writeFile(storage, logPath(40), at, new Uint8Array([original]));
      }
    }
    expect((await readAllBatches(segment)).length).toBe(6);
  });

  test("read: a CRC-field flip is reported with the segment path and the batch's byte position", async () => {
    const { segment, batches, storage } = await segmentWith(SPECS.slice(0, 3), 40);
    await writeFile(storage, logPath(40), batches[2]!.position + CRC_OFFSET, new Uint8Array([0]));
    const err = await rejectsWith(segment.read(batches[2]!.lastOffset, 100), ErrorCode.CORRUPT);
    expect(err.message).toContain(logPath(40));
    expect(err.message).toContain(`byte ${batches[2]!.position}`);
  });
});

describe("Segment.append", () => {
  test("append: a batch whose base offset does not continue the segment is a RangeError", async () => {
    const { segment } = await segmentWith(SPECS.slice(0, 2), 40);
    const sizeBefore = segment.size;
    for (const base of [0, 39, 40, 42, 44, 1000]) {
      await expect(segment.append(encodeBatch([{ value: "x", timestamp: 1 }], { baseOffset: base }))).rejects.toThrow(
        RangeError,
      );
    }
    const empty = await newSegment(40);
    await expect(empty.segment.append(encodeBatch([{ value: "x" }], { baseOffset: 0 }))).rejects.toThrow(RangeError);
    await expect(empty.segment.append(encodeBatch([{ value: "x" }], { baseOffset: 41 }))).rejects.toThrow(RangeError);
    expect(segment.size).toBe(sizeBefore);
    expect(segment.nextOffset).toBe(43);
    await segment.append(encodeBatch([{ value: "x", timestamp: 1 }], { baseOffset: 43 }));
    expect(segment.nextOffset).toBe(44);
  });

  test("append: bytes that are not exactly one batch are a RangeError", async () => {
    const { segment } = await newSegment(0);
    const batch = encodeBatch([{ value: "x" }], { baseOffset: 0 });
    await expect(segment.append(concat([batch, new Uint8Array(3)]))).rejects.toThrow(RangeError);
    expect(segment.size).toBe(0);
  });

  test("append: nextOffset, size and maxTimestamp advance (Kafka testNextOffsetCalculation)", async () => {
    const { segment } = await newSegment(40);
    expect(segment.nextOffset).toBe(40);
    const [b] = buildBatches([{ timestamps: [5, 9, 7] }], 40);
    await segment.append(b!.bytes);
    expect(segment.nextOffset).toBe(43);
    expect(segment.size).toBe(b!.size);
    expect(segment.maxTimestamp).toBe(9);
  });

  test("read: records read back equal what was appended, through a reopen with loadClean", async () => {
    const { storage, segment, batches } = await segmentWith(simpleSpecs(30, 3, 50, 0), 0, { indexIntervalBytes: 500 });
    await segment.close();
    const reopened = await openSegment(storage, 0, { indexIntervalBytes: 500 });
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: false });
    expect(reopened.nextOffset).toBe(90);
    expect(reopened.size).toBe(batches.reduce((n, b) => n + b.size, 0));
    expect(reopened.maxTimestamp).toBe(1000 + 10 * 89);
    const decoded = await readAllBatches(reopened);
    expect(decoded.flatMap((b) => b.records.map((r) => [r.offset, r.timestamp]))).toEqual(
      Array.from({ length: 90 }, (_, i) => [i, 1000 + 10 * i]),
    );
  });
});
