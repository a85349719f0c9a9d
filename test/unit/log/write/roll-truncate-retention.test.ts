/**
 * Rolling segments, truncateTo, deleteRecordsBefore and retention: UnifiedLogTest's scenarios,
 * each checked again after a power cut that keeps nothing unsynced.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { retentionDeleteCount, type SegmentSummary } from "../../../../src/log/policies/retention.js";
import { keepNothing } from "../../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectedAt,
  freshLog,
  openSim,
  plain,
  readAll,
  recordAt,
  segPath,
} from "../helpers.js";

/** A clock a test moves by hand. */
function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe("roll", () => {
  it("roll: size-based: a segment never grows past segmentBytes, and every record reads back", async () => {
    const probe = await freshLog();
    await probe.log.append([recordAt(0, undefined, 100)]);
    const batchBytes = probe.log.size;
    const segmentBytes = batchBytes * 3 + 10; // three batches fit, the fourth rolls
    const { sim, dir, log } = await freshLog({ segmentBytes });
    const model = await appendBatches(log, 10, 1, 100);
    expect(log.segmentBaseOffsets).toEqual([0, 3, 6, 9]);
    for (const base of log.segmentBaseOffsets)
      expect((await sim.stat(segPath(base, ".log")))!.size).toBeLessThanOrEqual(segmentBytes);
    expect(await readAll(log)).toEqual(model);
    await dir.close();
    const after = await (await openSim(sim)).log(NAME, { segmentBytes });
    expect(after.segmentBaseOffsets).toEqual([0, 3, 6, 9]);
    expect(await readAll(after)).toEqual(model);
  });

  it("roll: a batch larger than segmentBytes goes alone into a new segment", async () => {
    const { log } = await freshLog({ segmentBytes: 200 });
    await appendBatches(log, 1);
    await log.append([recordAt(1, undefined, 500)]);
    await appendBatches(log, 1);
    expect(log.segmentBaseOffsets).toEqual([0, 1, 2]);
    expect((await readAll(log)).map((r) => r.offset)).toEqual([0, 1, 2]);
  });

  it("roll: rolled segments are durable after a flush (the directory is synced)", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 12);
    await log.flush();
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, { segmentBytes: 300 });
    expect(after.segmentBaseOffsets).toEqual(log.segmentBaseOffsets);
    expect(await readAll(after)).toEqual(model);
  });

  it("roll: time-based: the active segment rolls once segmentMs passed, not before", async () => {
    const clock = manualClock();
    const { log } = await freshLog({ segmentMs: 1000, clock });
    await appendBatches(log, 2);
    clock.advance(999);
    await appendBatches(log, 1);
    expect(log.segmentCount).toBe(1);
    clock.advance(1);
    await appendBatches(log, 1);
    expect(log.segmentBaseOffsets).toEqual([0, 3]);
    clock.advance(500);
    await appendBatches(log, 1);
    expect(log.segmentBaseOffsets).toEqual([0, 3]);
    clock.advance(500);
    await appendBatches(log, 1);
    expect(log.segmentBaseOffsets).toEqual([0, 3, 5]);
  });

  it("roll: time-based roll never leaves an empty segment behind when the log is idle", async () => {
    const clock = manualClock();
    const { log } = await freshLog({ segmentMs: 10, clock });
    clock.advance(100);
    await appendBatches(log, 1); // the active segment is empty: it takes the batch, no roll
    expect(log.segmentBaseOffsets).toEqual([0]);
  });

  it("roll: index-full: a tiny maxIndexBytes rolls when the index has no room, and lookups stay exact", async () => {
    // One offset-index entry (8 bytes) and one time-index entry (12 bytes) per segment.
    const options = { maxIndexBytes: 12, indexIntervalBytes: 0 };
    const { sim, dir, log } = await freshLog(options);
    const model = await appendBatches(log, 9);
    expect(log.segmentCount).toBeGreaterThan(2);
    for (const base of log.segmentBaseOffsets) {
      expect((await sim.stat(segPath(base, ".index")))!.size).toBeLessThanOrEqual(12);
      expect((await sim.stat(segPath(base, ".timeindex")))!.size).toBeLessThanOrEqual(12);
    }
    expect(await readAll(log)).toEqual(model);
    for (const m of model) expect(await log.offsetForTimestamp(m.timestamp)).toBe(m.offset);
    await dir.close();
    const after = await (await openSim(sim)).log(NAME, options);
    expect(after.recovery.indexesRebuilt).toBe(0);
    expect(await readAll(after)).toEqual(model);
  });
});

describe("truncateTo", () => {
  it("truncateTo: at batch boundaries, across segments", async () => {
    const { log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 12);
    const segments = log.segmentBaseOffsets;
    const cut = segments[1]! + 1;
    await log.truncateTo(cut);
    expect(log.endOffset).toBe(cut);
    expect(log.segmentBaseOffsets).toEqual(segments.slice(0, 2));
    expect(await readAll(log)).toEqual(model.slice(0, cut));
    expect((await log.append([recordAt(cut)])).baseOffset).toBe(cut);
  });

  it("truncateTo: in the middle of a multi-record batch keeps the records below, with keys, values, headers and timestamps", async () => {
    const { sim, log } = await freshLog();
    const model = await appendBatches(log, 3, 5); // batches [0,4] [5,9] [10,14]
    await log.truncateTo(7);
    expect(log.endOffset).toBe(7);
    expect(await readAll(log)).toEqual(model.slice(0, 7));
    expect((await log.append([recordAt(7)])).baseOffset).toBe(7);
    expect(await readAll(log)).toEqual([...model.slice(0, 7), expectedAt(7)]);
    // Dropped records never come back: truncateTo was durable, the append after it is not.
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME);
    expect(await readAll(after)).toEqual(model.slice(0, 7));
  });

  it("truncateTo: inside the first batch of the log keeps its leading records", async () => {
    const { log } = await freshLog();
    const model = await appendBatches(log, 1, 4);
    await log.truncateTo(1);
    expect(await readAll(log)).toEqual(model.slice(0, 1));
    await log.truncateTo(0);
    expect([log.endOffset, log.size]).toEqual([0, 0]);
  });

  it("truncateTo: durable when it resolves: dropped records and deleted segments do not come back after a crash", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 15, 2);
    await log.flush();
    const segments = log.segmentBaseOffsets;
    const cut = segments[1]! + 1; // inside the second segment's first batch
    await log.truncateTo(cut);
    const rebooted = sim.crash(keepNothing);
    for (const base of segments.slice(2))
      expect(await rebooted.stat(segPath(base, ".log")), `segment ${base}`).toBeNull();
    const after = await (await openSim(rebooted)).log(NAME, { segmentBytes: 300 });
    expect(after.endOffset).toBe(cut);
    expect(after.segmentBaseOffsets).toEqual(segments.slice(0, 2));
    expect(await readAll(after)).toEqual(model.slice(0, cut));
  });

  it("truncateTo: at or past the end is a no-op; below the start offset is PAGELOG_OFFSET_OUT_OF_RANGE; bad offsets are TypeErrors", async () => {
    const { log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 10);
    await log.truncateTo(10);
    await log.truncateTo(50);
    expect(await readAll(log)).toEqual(model);
    await log.deleteRecordsBefore(4);
    await expectCode(() => log.truncateTo(3), ErrorCode.OFFSET_OUT_OF_RANGE);
    for (const bad of [-1, 1.5, Number.NaN, "3"])
      await expect(log.truncateTo(bad as number)).rejects.toThrow(TypeError);
    expect(log.status).toBe("open");
    expect(await readAll(log)).toEqual(model.slice(4));
  });
});

describe("deleteRecordsBefore", () => {
  it("deleteRecordsBefore: moves the start offset, deletes whole segments below it, never the active one", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 12);
    const segments = log.segmentBaseOffsets;
    const target = segments[2]! + 1;
    await log.deleteRecordsBefore(target);
    expect(log.startOffset).toBe(target);
    expect(log.segmentBaseOffsets).toEqual(segments.slice(2));
    for (const base of segments.slice(0, 2)) expect(await sim.stat(segPath(base, ".log"))).toBeNull();
    expect(await readAll(log)).toEqual(model.slice(target));
    expect((await log.read(target, { maxRecords: 1 })).map(plain)).toEqual([model[target]]);
    await expectCode(() => log.read(target - 1), ErrorCode.OFFSET_OUT_OF_RANGE);
    // Lower than the start: nothing happens.
    await log.deleteRecordsBefore(1);
    expect(log.startOffset).toBe(target);
    // Up to the end: every segment but the active one goes; the log is empty and still appends.
    await log.deleteRecordsBefore(log.endOffset);
    expect(log.segmentBaseOffsets).toEqual(segments.slice(-1));
    expect(log.startOffset).toBe(12);
    expect(await readAll(log)).toEqual([]);
    expect((await log.append([recordAt(12)])).baseOffset).toBe(12);
    await expectCode(() => log.deleteRecordsBefore(log.endOffset + 1), ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it("deleteRecordsBefore: survives a crash: the start offset is checkpointed, the segments stay deleted", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 12);
    await log.flush();
    const segments = log.segmentBaseOffsets;
    const target = segments[1]! + 2;
    await log.deleteRecordsBefore(target);
    const rebooted = sim.crash(keepNothing);
    expect(await rebooted.stat(segPath(segments[0]!, ".log"))).toBeNull();
    const after = await (await openSim(rebooted)).log(NAME, { segmentBytes: 300 });
    expect(after.startOffset).toBe(target);
    expect(after.segmentBaseOffsets).toEqual(segments.slice(1));
    expect(await readAll(after)).toEqual(model.slice(target));
  });
});

describe("retention", () => {
  it("retention: by bytes deletes the oldest whole segments, never the active one", async () => {
    const probe = await freshLog();
    await probe.log.append([recordAt(0)]);
    const batch = probe.log.size;
    const options = { segmentBytes: batch * 2, retentionBytes: batch * 4 };
    const { sim, log } = await freshLog(options);
    const model = await appendBatches(log, 9); // segments [0,1] [2,3] [4,5] [6,7] [8]: retention runs at each roll
    await log.applyRetention();
    // As Kafka: whole segments go while the log stays at or above retentionBytes without them.
    expect(log.size - batch * 2).toBeLessThan(batch * 4);
    expect(log.segmentBaseOffsets).toEqual([4, 6, 8]);
    expect(log.startOffset).toBe(4);
    expect(await readAll(log)).toEqual(model.slice(4));
    await log.flush();
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, options);
    expect(after.startOffset).toBe(4);
    expect(await readAll(after)).toEqual(model.slice(4));
  });

  it("retention: by bytes with retentionBytes 0 keeps the active segment", async () => {
    const { log } = await freshLog({ segmentBytes: 300, retentionBytes: 0 });
    await appendBatches(log, 10);
    await log.applyRetention();
    expect(log.segmentCount).toBe(1);
    expect(log.startOffset).toBe(log.segmentBaseOffsets[0]);
  });

  it("retention: by time deletes the prefix of segments whose newest record is too old, never the active one", async () => {
    const clock = { now: () => 0 }; // nothing expires while appending (retention also runs at each roll)
    const { log } = await freshLog({ segmentBytes: 100, retentionMs: 1000, clock }); // one batch per segment
    // Timestamps: old, old, new, old (a late record), new...: only a prefix goes.
    const stamps = [100, 200, 9_500, 300, 9_600, 100];
    for (const [i, ts] of stamps.entries()) await log.append([recordAt(i, ts)]);
    expect(log.segmentCount).toBe(6);
    clock.now = () => 10_000;
    await log.applyRetention();
    expect(log.segmentBaseOffsets).toEqual([2, 3, 4, 5]);
    expect(log.startOffset).toBe(2);
    // Everything expired: all but the active segment go.
    clock.now = () => 1_000_000;
    await log.applyRetention();
    expect(log.segmentBaseOffsets).toEqual([5]);
    expect((await readAll(log)).map((r) => r.offset)).toEqual([5]);
  });

  it("retention: off by default: nothing is ever deleted", async () => {
    const clock = { now: () => 1e15 };
    const { log } = await freshLog({ segmentBytes: 100, clock });
    await appendBatches(log, 6);
    await log.applyRetention();
    expect(log.segmentCount).toBe(6);
    expect(log.startOffset).toBe(0);
  });
});

describe("segmentsToDelete", () => {
  const seg = (baseOffset: number, size: number, maxTimestamp: number): SegmentSummary => ({
    baseOffset,
    size,
    maxTimestamp,
  });
  const segs = [seg(0, 100, 10), seg(10, 100, 20), seg(20, 100, 30), seg(30, 100, 40)];

  it("segmentsToDelete: -1 turns each limit off", () => {
    expect(retentionDeleteCount(segs, { retentionBytes: -1, retentionMs: -1, now: 1e12 })).toBe(0);
  });

  it("segmentsToDelete: never the active (last) segment, even when everything is expired or over size", () => {
    expect(retentionDeleteCount(segs, { retentionBytes: 0, retentionMs: -1, now: 0 })).toBe(3);
    expect(retentionDeleteCount(segs, { retentionBytes: -1, retentionMs: 0, now: 1e12 })).toBe(3);
    expect(retentionDeleteCount([seg(0, 1000, 1)], { retentionBytes: 0, retentionMs: 0, now: 1e12 })).toBe(0);
    expect(retentionDeleteCount([], { retentionBytes: 0, retentionMs: 0, now: 1e12 })).toBe(0);
  });

  it("segmentsToDelete: by bytes, only as many as needed to get under the limit", () => {
    expect(retentionDeleteCount(segs, { retentionBytes: 400, retentionMs: -1, now: 0 })).toBe(0);
    expect(retentionDeleteCount(segs, { retentionBytes: 399, retentionMs: -1, now: 0 })).toBe(0); // dropping 100 would go to 300 < 399? no: excess is 1, a whole segment is 100
    expect(retentionDeleteCount(segs, { retentionBytes: 300, retentionMs: -1, now: 0 })).toBe(1);
    expect(retentionDeleteCount(segs, { retentionBytes: 250, retentionMs: -1, now: 0 })).toBe(1);
    expect(retentionDeleteCount(segs, { retentionBytes: 200, retentionMs: -1, now: 0 })).toBe(2);
  });

  it("segmentsToDelete: by time, a prefix only: an expired segment after a live one stays", () => {
    const mixed = [seg(0, 1, 10), seg(1, 1, 500), seg(2, 1, 10), seg(3, 1, 10)];
    expect(retentionDeleteCount(mixed, { retentionBytes: -1, retentionMs: 100, now: 200 })).toBe(1);
    expect(retentionDeleteCount(mixed, { retentionBytes: -1, retentionMs: 100, now: 1000 })).toBe(3);
    // Exactly at the limit is kept (Kafka deletes when now - maxTimestamp > retention.ms).
    expect(
      retentionDeleteCount([seg(0, 1, 100), seg(1, 1, 100)], { retentionBytes: -1, retentionMs: 100, now: 200 }),
    ).toBe(0);
    // An empty segment (maxTimestamp -1) counts as expired.
    expect(
      retentionDeleteCount([seg(0, 0, -1), seg(1, 1, 100)], { retentionBytes: -1, retentionMs: 100, now: 200 }),
    ).toBe(1);
  });

  it("segmentsToDelete: both limits: a segment goes if either says so, still a prefix", () => {
    expect(retentionDeleteCount(segs, { retentionBytes: 300, retentionMs: 15, now: 40 })).toBe(2);
    expect(retentionDeleteCount(segs, { retentionBytes: 100, retentionMs: 1000, now: 40 })).toBe(3);
  });
});

describe("memory: only the active segment's indexes stay loaded", () => {
  it("memory: old segments' indexes are released after open and roll, loaded on a read, and let go again", async () => {
    const { SimStorage } = await import("../../../../src/storage/sim-storage.js");
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const { HookedStorage } = await import("../../../../src/testing/hooked-storage.js");
    const sim = new SimStorage({ seed: 9 });
    let dir = await LogDir.open(sim);
    let log = await dir.log("m-0", { segmentBytes: 300, indexIntervalBytes: 0 });
    for (let i = 0; i < 40; i++) await log.append([{ value: `value ${i}`.padEnd(60, ".") }]);
    expect(log.segmentCount).toBeGreaterThan(6);
    await dir.close();

    // An index in memory is never read again: which `.index` files a read reads says which
    // segments' indexes were not in memory before it.
    const indexReads: string[] = [];
    const observed = new HookedStorage(sim, (op, run) => {
      if (op.kind === "read" && op.path.endsWith(".index")) indexReads.push(op.path);
      return run();
    });
    dir = await LogDir.open(observed);
    // A budget of 1 byte: only the old segment read last keeps its indexes in memory.
    log = await dir.log("m-0", { segmentBytes: 300, indexIntervalBytes: 0, indexCacheBytes: 1 });
    const bases = log.segmentBaseOffsets;
    /** Whether reading the first record of the segment at `base` had to load its index. */
    const loads = async (base: number): Promise<boolean> => {
      indexReads.length = 0;
      expect((await log.read(base, { maxRecords: 1 }))[0]?.offset).toBe(base);
      return indexReads.some((path) => path.endsWith(`${String(base).padStart(20, "0")}.index`));
    };
    // After open only the active segment's indexes are in memory.
    expect(await loads(bases.at(-1)!)).toBe(false);
    // Reading old segments loads their indexes; over the budget the least recently read go.
    for (const base of bases.slice(0, 4)) expect(await loads(base)).toBe(true);
    expect(await loads(bases[3]!)).toBe(false); // the last one read stayed
    expect(await loads(bases[1]!)).toBe(true); // let go
    expect(await loads(bases[1]!)).toBe(false);
    expect(await loads(bases[3]!)).toBe(true); // let go for 1
    expect(await loads(bases.at(-1)!)).toBe(false); // the active segment's indexes are never let go
    // Lookups still agree with a scan after indexes were released and read back.
    for (let offset = 0; offset < 40; offset++)
      expect((await log.read(offset, { maxRecords: 1 }))[0]?.offset).toBe(offset);
    await dir.close();

    // With the default budget (8 MiB) every old segment read keeps its small indexes.
    dir = await LogDir.open(observed);
    log = await dir.log("m-0", { segmentBytes: 300, indexIntervalBytes: 0 });
    for (const base of bases.slice(0, -1)) expect(await loads(base)).toBe(true);
    for (const base of bases.slice(0, -1)) expect(await loads(base)).toBe(false);
    await dir.close();
  });
});
