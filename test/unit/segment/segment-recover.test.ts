/**
 * Segment.recover and loadClean on damaged files: the recovery scenarios of Kafka's
 * LogSegmentTest, plus every way a tail can be torn. Set up, damage the files directly, reopen,
 * assert exactly what survives.
 */
import { describe, expect, test, vi } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { BATCH_HEADER_SIZE, CRC_OFFSET, LENGTH_OFFSET, encodeBatch } from "../../../src/format/api.js";
import type { Segment } from "../../../src/segment/segment.js";
import { SimStorage, keepNothing } from "../../../src/storage/sim-storage.js";
import type { Storage } from "../../../src/storage/storage.js";
import { seededBytes } from "../../support/seeded-bytes.js";
import {
  DIR,
  type ModelBatch,
  buildBatches,
  concat,
  indexPath,
  logPath,
  newSegment,
  openSegment,
  readAllBatches,
  readFile,
  rejectsWith,
  replaceFile,
  segmentWith,
  simpleSpecs,
  timeIndexPath,
  writeFile,
} from "./helpers.js";

/** Deterministic "nonsense" bytes (Kafka's writeNonsenseToFile, but reproducible). */
const nonsense = seededBytes;

/** 8 batches of 1..3 records from offset 0. */
const SPECS = Array.from({ length: 8 }, (_, i) => ({
  timestamps: Array.from({ length: 1 + (i % 3) }, (_, r) => 7000 + i * 10 + r),
  valueBytes: 25,
}));
const INTERVAL = 150;

/** A closed segment of SPECS on `storage`, returned with its model. */
async function closedSegment(
  storage: Storage = new SimStorage(),
  base = 0,
): Promise<{ storage: Storage; batches: ModelBatch[]; size: number }> {
  const { segment, batches } = await segmentWith(SPECS, base, { indexIntervalBytes: INTERVAL }, storage);
  await segment.flush();
  await segment.close();
  return { storage, batches, size: batches.reduce((n, b) => n + b.size, 0) };
}

async function reopen(storage: Storage, base = 0, options = {}): Promise<Segment> {
  return openSegment(storage, base, { indexIntervalBytes: INTERVAL, ...options });
}

/** Asserts the segment holds exactly `kept` (bytes, offsets, indexes as appending them builds). */
async function expectExactly(
  storage: Storage,
  segment: Segment,
  kept: readonly ModelBatch[],
  what: string,
): Promise<void> {
  expect(segment.size, what).toBe(kept.reduce((n, b) => n + b.size, 0));
  expect(segment.nextOffset, what).toBe(kept.length === 0 ? segment.baseOffset : kept.at(-1)!.lastOffset + 1);
  expect(await readFile(storage, logPath(segment.baseOffset)), what).toEqual(concat(kept.map((b) => b.bytes)));
  const fresh = await segmentWith(SPECS.slice(0, kept.length), segment.baseOffset, { indexIntervalBytes: INTERVAL });
  expect(await readFile(storage, indexPath(segment.baseOffset)), what).toEqual(
    await readFile(fresh.storage, indexPath(segment.baseOffset)),
  );
  await fresh.segment.seal(); // recovery adds the segment's last time entry, as Kafka's does
  expect(await readFile(storage, timeIndexPath(segment.baseOffset)), what).toEqual(
    await readFile(fresh.storage, timeIndexPath(segment.baseOffset)),
  );
}

describe("recover: corrupt indexes (Kafka testRecoveryFixesCorrupt*)", () => {
  test("recover: fixes a corrupt index (garbage bytes written into .index)", async () => {
    const { storage, batches } = await closedSegment();
    const index = await readFile(storage, indexPath());
    expect(index.length).toBeGreaterThan(8 * 2);
    await writeFile(storage, indexPath(), 5, nonsense(index.length - 5, 1));
    const segment = await reopen(storage);
    const report = await segment.recover();
    expect(report.truncatedBytes).toBe(0);
    await expectExactly(storage, segment, batches, "after recover");
    for (let offset = 0; offset < segment.nextOffset; offset++) {
      const read = await segment.read(offset, 1);
      expect(read?.firstOffset).toBe(batches.find((b) => b.lastOffset >= offset)!.baseOffset);
    }
  });

  test("recover: fixes a corrupt time index", async () => {
    const specs = Array.from({ length: 100 }, (_, i) => ({ timestamps: [i * 10] }));
    const { storage, segment } = await segmentWith(specs, 0, { indexIntervalBytes: 10 });
    await segment.close();
    const timeIndex = await readFile(storage, timeIndexPath());
    await writeFile(storage, timeIndexPath(), 5, nonsense(timeIndex.length - 5, 2));
    const recovered = await reopen(storage, 0, { indexIntervalBytes: 10 });
    await recovered.recover();
    for (let i = 0; i < 100; i++) {
      expect(await recovered.offsetForTimestamp(i * 10)).toBe(i);
      if (i < 99) expect(await recovered.offsetForTimestamp(i * 10 + 1)).toBe(i + 1);
    }
    expect(await recovered.offsetForTimestamp(991)).toBeNull();
  });

  test("loadClean: garbage written into .index or .timeindex is detected and rebuilt", async () => {
    for (const path of [indexPath(), timeIndexPath()]) {
      const { storage, batches } = await closedSegment();
      const good = await readFile(storage, path);
      await writeFile(storage, path, 5, nonsense(good.length - 5, 3));
      const segment = await reopen(storage);
      expect(await segment.loadClean(), path).toEqual({ indexesRebuilt: true });
      await expectExactly(storage, segment, batches, path);
    }
  });
});

describe("recover: a damaged log keeps exactly the batches before the damage", () => {
  test("recover: garbage from inside batch k leaves exactly batches before k, for every k", async () => {
    const model = buildBatches(SPECS);
    const inBatch = [0, 1, 7, 8, 11, 12, 16, 17, 20, 21, 40, BATCH_HEADER_SIZE - 1, BATCH_HEADER_SIZE];
    for (let k = 0; k < model.length; k++) {
      for (const i of [...inBatch, model[k]!.size - 1]) {
        const { storage, batches, size } = await closedSegment();
        const position = batches[k]!.position + i;
        await writeFile(storage, logPath(), position, nonsense(size - position, 1 + k * 100 + i));
        const segment = await reopen(storage);
        const report = await segment.recover();
        const what = `garbage from byte ${i} of batch ${k}`;
        expect(report.validBytes, what).toBe(batches[k]!.position);
        expect(report.truncatedBytes, what).toBe(size - batches[k]!.position);
        expect(report.lastOffset, what).toBe(k === 0 ? -1 : batches[k - 1]!.lastOffset);
        expect(report.stop.reason, what).toBeDefined();
        await expectExactly(storage, segment, batches.slice(0, k), what);
      }
    }
  });

  test("recover: a flipped CRC-covered byte in batch k cuts batch k and everything after it", async () => {
    const model = buildBatches(SPECS);
    for (let k = 0; k < model.length; k++) {
      const { storage, batches } = await closedSegment();
      const at = batches[k]!.position + BATCH_HEADER_SIZE + 3;
      const byte = (await readFile(storage, logPath()))[at]!;
      await writeFile(storage, logPath(), at, new Uint8Array([byte ^ 0x01]));
      const segment = await reopen(storage);
      const report = await segment.recover();
      expect(report.stop.reason).toBe("bad-crc");
      await expectExactly(storage, segment, batches.slice(0, k), `flip in batch ${k}`);
    }
  });

  test("recover: a batch cut short by any number of bytes is removed", async () => {
    const model = buildBatches(SPECS);
    const last = model.at(-1)!;
    for (let cut = 1; cut <= last.size; cut++) {
      const { storage, batches, size } = await closedSegment();
      await replaceFile(storage, logPath(), (await readFile(storage, logPath())).subarray(0, size - cut));
      const segment = await reopen(storage);
      const report = await segment.recover();
      expect(report.truncatedBytes, `cut ${cut}`).toBe(last.size - cut);
      expect(report.validBytes).toBe(last.position);
      expect(report.stop.reason).toBe(cut === last.size ? undefined : last.size - cut < 17 ? "short-header" : "short");
      await expectExactly(storage, segment, batches.slice(0, -1), `cut ${cut}`);
    }
  });

  test("recover: 0 to 17 trailing zero bytes (and more) are removed", async () => {
    for (const zeros of [...Array.from({ length: 18 }, (_, n) => n), 18, 60, 61, 62, 4096]) {
      const { storage, batches, size } = await closedSegment();
      await writeFile(storage, logPath(), size, new Uint8Array(zeros));
      const segment = await reopen(storage);
      const report = await segment.recover();
      expect(report, `${zeros} zeros`).toMatchObject({ validBytes: size, truncatedBytes: zeros });
      expect(report.stop.reason).toBe(zeros === 0 ? undefined : zeros < 17 ? "short-header" : "too-small");
      await expectExactly(storage, segment, batches, `${zeros} zeros`);
    }
  });

  for (const maxBatchBytes of [1048588, Number.MAX_SAFE_INTEGER]) {
    // maxBatchBytes limits appends only: whatever it is, the walk rejects the batch because the
    // file does not hold it, and never reads the declared length.
    test(`recover: a huge length field (0x7fffffff) is rejected without reading it (maxBatchBytes ${maxBatchBytes})`, async () => {
      const { storage, batches, size } = await closedSegment();
      const huge = encodeBatch([{ value: "x".repeat(100), timestamp: 1 }], {
        baseOffset: batches.at(-1)!.lastOffset + 1,
      });
      new DataView(huge.buffer).setInt32(LENGTH_OFFSET, 0x7fffffff);
      await writeFile(storage, logPath(), size, huge);
      const segment = await reopen(storage, 0, { maxBatchBytes });
      const reads = vi.spyOn(segment.log, "read");
      const report = await segment.recover();
      expect(report.stop.reason).toBe("short");
      expect(report.truncatedBytes).toBe(huge.length);
      for (const [, length] of reads.mock.calls) expect(length).toBeLessThanOrEqual(size + huge.length);
      await expectExactly(storage, segment, batches, "huge length");
    });
  }

  test("recover: a length field smaller than a batch header is cut", async () => {
    for (const length of [-0x80000000, -1, 0, 1, 48, 49]) {
      const { storage, batches, size } = await closedSegment();
      const bad = encodeBatch([{ value: "x", timestamp: 1 }], { baseOffset: batches.at(-1)!.lastOffset + 1 });
      new DataView(bad.buffer).setInt32(LENGTH_OFFSET, length);
      await writeFile(storage, logPath(), size, bad);
      const segment = await reopen(storage);
      const report = await segment.recover();
      expect(report.stop.reason, `length ${length}`).toBe(length < 49 ? "too-small" : "bad-crc");
      expect(report.truncatedBytes).toBe(bad.length);
      await expectExactly(storage, segment, batches, `length ${length}`);
    }
  });

  test("recover: a CRC-valid batch with the wrong base offset after valid ones (stale data) is cut", async () => {
    const model = buildBatches(SPECS);
    const next = model.at(-1)!.lastOffset + 1;
    for (const base of [0, 2, next - 1, next + 1, next + 1000]) {
      const { storage, batches, size } = await closedSegment();
      const stale = encodeBatch([{ value: "stale", timestamp: 99_999 }], { baseOffset: base });
      await writeFile(storage, logPath(), size, stale);
      const segment = await reopen(storage);
      const report = await segment.recover();
      expect(report, `base ${base}`).toMatchObject({
        validBytes: size,
        truncatedBytes: stale.length,
        lastOffset: next - 1,
        maxTimestamp: 7071,
      });
      expect(report.stop.reason).toBe("offset-gap");
      await expectExactly(storage, segment, batches, `stale base ${base}`);
    }
    // The control: a batch that does continue the log is kept.
    const { storage, size } = await closedSegment();
    await writeFile(storage, logPath(), size, encodeBatch([{ value: "next", timestamp: 1 }], { baseOffset: next }));
    expect((await (await reopen(storage)).recover()).truncatedBytes).toBe(0);
  });

  test("recover: a first batch that does not start at the segment's base offset is cut", async () => {
    const { storage, size } = await closedSegment(new SimStorage(), 0);
    await storage.rename(logPath(0), logPath(5));
    const segment = await reopen(storage, 5);
    const report = await segment.recover();
    expect(report).toMatchObject({ validBytes: 0, truncatedBytes: size, lastOffset: 4, maxTimestamp: -1 });
    expect(segment.size).toBe(0);
  });
});

describe("recover: report and durability", () => {
  test("recover: report fields are exact for empty, clean and torn segments", async () => {
    const empty = await newSegment(30);
    expect(await empty.segment.recover()).toEqual({
      validBytes: 0,
      truncatedBytes: 0,
      lastOffset: 29,
      maxTimestamp: -1,
      stop: { position: 0, reason: undefined, detail: "end of file" },
    });

    const { storage, batches, size } = await closedSegment(new SimStorage(), 30);
    const clean = await reopen(storage, 30);
    expect(await clean.recover()).toEqual({
      validBytes: size,
      truncatedBytes: 0,
      lastOffset: batches.at(-1)!.lastOffset,
      maxTimestamp: 7071,
      stop: { position: size, reason: undefined, detail: "end of file" },
    });
    await clean.close();

    await replaceFile(
      storage,
      logPath(30),
      (await readFile(storage, logPath(30))).subarray(0, batches[5]!.position + 70),
    );
    const torn = await reopen(storage, 30);
    const report = await torn.recover();
    expect(report).toMatchObject({
      validBytes: batches[5]!.position,
      truncatedBytes: 70,
      lastOffset: batches[4]!.lastOffset,
      maxTimestamp: 7041,
    });
    expect(report.stop).toMatchObject({ position: batches[5]!.position, reason: "short" });
    // The recovered segment takes the append that continues it.
    await torn.append(encodeBatch([{ value: "after", timestamp: 1 }], { baseOffset: batches[4]!.lastOffset + 1 }));
    expect(torn.nextOffset).toBe(batches[4]!.lastOffset + 2);
  });

  test("recover: the truncation is durable: after a crash that keeps nothing unsynced the cut bytes do not come back", async () => {
    const sim = new SimStorage();
    const { segment, batches } = await segmentWith(SPECS, 0, { indexIntervalBytes: INTERVAL }, sim);
    await segment.flush();
    await sim.syncDir("");
    await sim.syncDir(DIR);
    // Durable damage after the valid batches: a stale CRC-valid batch, then a torn one.
    const size = segment.size;
    const stale = encodeBatch([{ value: "stale", timestamp: 1 }], { baseOffset: 1 });
    const file = await sim.open(logPath());
    await file.write(size, concat([stale, stale.subarray(0, 40)]));
    await file.sync();
    await file.close();
    await segment.close();

    const recovered = await reopen(sim);
    expect((await recovered.recover()).truncatedBytes).toBe(stale.length + 40);
    const after = sim.crash(keepNothing);
    expect((await after.stat(logPath()))?.size).toBe(size);
    const again = await reopen(after);
    expect((await again.recover()).truncatedBytes).toBe(0);
    await expectExactly(after, again, batches, "after the crash");
    // The rebuilt indexes were made durable too: a clean load trusts them as they are.
    const clean = await reopen(after);
    expect(await clean.loadClean()).toEqual({ indexesRebuilt: false });
  });
});

describe("loadClean: a damaged tail is corruption, not a torn write", () => {
  const damages: Array<[string, (log: Uint8Array, last: ModelBatch) => Uint8Array]> = [
    ["the last batch cut short by 1 byte", (log) => log.subarray(0, log.length - 1)],
    ["the last batch cut to 10 bytes", (log, last) => log.subarray(0, last.position + 10)],
    ["5 trailing zero bytes", (log) => concat([log, new Uint8Array(5)])],
    ["30 trailing zero bytes", (log) => concat([log, new Uint8Array(30)])],
    ["a flipped CRC byte in the last batch", (log, last) => flip(log, last.position + CRC_OFFSET)],
    ["a flipped record byte in the last batch", (log, last) => flip(log, last.position + last.size - 2)],
    ["a flipped baseOffset byte in the last batch", (log, last) => flip(log, last.position + 7)],
    [
      "a stale CRC-valid batch after the last",
      (log) => concat([log, encodeBatch([{ value: "stale", timestamp: 1 }], { baseOffset: 3 })]),
    ],
  ];

  function flip(log: Uint8Array, at: number): Uint8Array {
    const out = log.slice();
    out[at] = out[at]! ^ 0x40;
    return out;
  }

  for (const withIndexes of [true, false]) {
    for (const [name, damage] of damages) {
      test(`loadClean: ${name} is PAGELOG_CORRUPT naming the .log (${withIndexes ? "indexes present" : "no index files"})`, async () => {
        const { storage, batches } = await closedSegment();
        await replaceFile(storage, logPath(), damage(await readFile(storage, logPath()), batches.at(-1)!));
        if (!withIndexes) {
          await storage.remove(indexPath());
          await storage.remove(timeIndexPath());
        }
        const segment = await reopen(storage);
        const err = await rejectsWith(segment.loadClean(), ErrorCode.CORRUPT, name);
        expect(err.path).toBe(logPath());
      });
    }
  }

  test("loadClean: an intact segment loads with the same state appending left", async () => {
    const { storage, segment, batches } = await segmentWith(SPECS, 0, { indexIntervalBytes: INTERVAL });
    const state = { size: segment.size, next: segment.nextOffset, max: segment.maxTimestamp };
    await segment.close();
    const reopened = await reopen(storage);
    expect(await reopened.loadClean()).toEqual({ indexesRebuilt: false });
    expect({ size: reopened.size, next: reopened.nextOffset, max: reopened.maxTimestamp }).toEqual(state);
    expect((await readAllBatches(reopened)).map((b) => b.baseOffset)).toEqual(batches.map((b) => b.baseOffset));
    // And further appends index exactly as if it had never been closed.
    const more = buildBatches([...SPECS, ...simpleSpecs(10, 2, 40)]).slice(SPECS.length);
    for (const b of more) await reopened.append(b.bytes);
    const straight = await segmentWith([...SPECS, ...simpleSpecs(10, 2, 40)], 0, { indexIntervalBytes: INTERVAL });
    expect(await readFile(storage, indexPath())).toEqual(await readFile(straight.storage, indexPath()));
    expect(await readFile(storage, timeIndexPath())).toEqual(await readFile(straight.storage, timeIndexPath()));
  });
});
