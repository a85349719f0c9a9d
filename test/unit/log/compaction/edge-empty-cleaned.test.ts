/**
 * Edges of a compacted log's gaps (issue 22, Deliver 5): cleaned segments left without a single
 * record (every key in them deleted, the tombstones gone `deleteRetentionMs` later), so a gap
 * runs over whole segments, and a log that ends in such a gap (a truncateTo into it). Kafka's
 * Cleaner.cleanSegments swaps a cleaned segment in whatever it retained (an empty one stays until
 * retention deletes it); pagelog keeps it too, as its first and last batches, empty, so the
 * segments still continue one another. read, readBatches, records (and a follower),
 * offsetForTimestamp, truncateTo, verify, dump and a reopen (clean, and after a crash) all agree.
 */
import { describe, expect, it } from "vitest";
import { decodeBatch } from "../../../../src/format/api.js";
import { type DumpSink, streamDump, type DumpedBatch } from "../../../../src/inspect/dump-model.js";
import { verifyDir } from "../../../../src/inspect/verify-dir.js";
import { readCheckpoint } from "../../../../src/log/checkpoints/checkpoint-read.js";
import { CLEANER_CHECKPOINT } from "../../../../src/log/checkpoints/cleaner-checkpoint.js";
import type { Log, LogRecord } from "../../../../src/log/log.js";
import { keepEverything, type SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, freshLog, openSim, plain, readAll, type PlainRecord } from "../helpers.js";

const KEYS = 4;
const clock = { t: 0, now: () => clock.t };
const OPTIONS = { cleanupPolicy: "compact", segmentBytes: 400, deleteRetentionMs: 1000, clock } as const;

/** Appends one record per batch (timestamp 1000 + offset); returns what was appended. */
async function append(log: Log, key: (o: number) => string, value: (o: number) => string | null, n: number) {
  const out: PlainRecord[] = [];
  for (let i = 0; i < n; i++) {
    const o = log.endOffset;
    await log.append([{ key: key(o), value: value(o), timestamp: 1000 + o }]);
    out.push({ offset: o, timestamp: 1000 + o, key: key(o), value: value(o), headers: [] });
  }
  await log.flush();
  return out;
}

/**
 * Values of KEYS keys, then a tombstone for each, then records of keys of their own; cleaned
 * twice (the second past deleteRetentionMs): the segments that held the first two parts keep no
 * record. Returns the log, its storage and the offsets [from, to) of the gap.
 */
async function emptiedLog(): Promise<{ sim: SimStorage; log: Log; close: () => Promise<void>; gap: [number, number] }> {
  clock.t = 2000;
  const { sim, dir, log } = await freshLog(OPTIONS);
  await append(
    log,
    (o) => `k${o % KEYS}`,
    (o) => `v${o}`,
    30,
  );
  await append(
    log,
    (o) => `k${o % KEYS}`,
    () => null,
    KEYS * 6,
  );
  const gapEnd = log.endOffset;
  await append(
    log,
    (o) => `own${o}`,
    (o) => `v${o}`,
    12,
  );
  await log.compact(); // the values go; the tombstones stay through the first cleaning
  clock.t += 1_000_000;
  await append(
    log,
    (o) => `own${o}`,
    (o) => `v${o}`,
    12,
  );
  const second = await log.compact();
  expect(second.tombstonesRemoved).toBeGreaterThan(0);
  return { sim, log, close: () => dir.close(), gap: [0, gapEnd] };
}

async function dumpBatches(sim: SimStorage, cleanPoint: number | undefined): Promise<DumpedBatch[]> {
  const batches: DumpedBatch[] = [];
  const sink: DumpSink = {
    logStart: () => undefined,
    batch: (b) => void batches.push(b),
    logEnd: () => undefined,
    indexStart: () => undefined,
    entry: () => undefined,
    indexEnd: () => undefined,
  };
  await streamDump(sim, NAME, undefined, true, sink, undefined, cleanPoint);
  return batches;
}

describe("a compacted log whose cleaned segments hold no record", () => {
  it("reads, looks up, verifies, dumps and reopens across a gap of whole segments", async () => {
    const { sim, log, close, gap } = await emptiedLog();
    const left = await readAll(log);
    expect(left[0]!.offset).toBeGreaterThanOrEqual(gap[1]); // nothing below the gap's end is left
    const emptied = log.segmentBaseOffsets.filter((b) => b < gap[1]);
    expect(emptied.length).toBeGreaterThan(0); // kept, empty, as Kafka keeps them
    expect(log.startOffset).toBe(0);
    // A read anywhere in the gap returns the records from the first one after it.
    for (const at of [0, 1, Math.floor(gap[1] / 2), gap[1] - 1]) {
      const got = (await log.read(at, { maxRecords: 2 })).map(plain);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(left.slice(0, got.length));
    }
    // readBatches in the gap: whole batches, CRC-valid, none with a record.
    const raw = await log.readBatches(1);
    expect(raw.length).toBeGreaterThan(0);
    for (let p = 0; p < raw.length;) {
      const size = 12 + new DataView(raw.buffer, raw.byteOffset + p + 8, 4).getInt32(0);
      const batch = await decodeBatch(raw.subarray(p, p + size));
      for (const r of batch.records) expect(r.offset).toBeGreaterThanOrEqual(gap[1]);
      p += size;
    }
    expect(await log.offsetForTimestamp(0)).toBe(left[0]!.offset);
    expect(await log.offsetForTimestamp(1000 + 3)).toBe(left[0]!.offset);
    const follower = log.records({ from: 0, follow: true });
    expect(plain((await follower.next()).value as LogRecord)).toEqual(left[0]);
    await follower.return();
    await close();

    const report = await verifyDir(sim, undefined);
    expect(report.problems).toEqual([]);
    // dump takes the clean point as the loader does: the gaps below it are no problem, and
    // without it each one is reported.
    const cleanPoint = (await readCheckpoint(sim, CLEANER_CHECKPOINT)).get(NAME);
    expect(cleanPoint).toBeGreaterThan(gap[1]);
    const dumped = await dumpBatches(sim, cleanPoint);
    expect(dumped.flatMap((b) => b.problems)).toEqual([]);
    expect((await dumpBatches(sim, undefined)).flatMap((b) => b.problems).length).toBeGreaterThan(0);
    expect(dumped.flatMap((b) => b.records ?? []).map((r) => r.offset)).toEqual(left.map((r) => r.offset));

    const again = await (await openSim(sim)).log(NAME, OPTIONS);
    expect(await readAll(again)).toEqual(left);
    const crashed = await (await openSim(sim.crash(keepEverything))).log(NAME, OPTIONS);
    expect(await readAll(crashed)).toEqual(left);
    expect(crashed.endOffset).toBe(log.endOffset);
  });

  it("a log that ends in the gap (a truncateTo into it): empty reads, a follower waits, appends go on", async () => {
    const { sim, log, close, gap } = await emptiedLog();
    const to = gap[1] - 3;
    await log.truncateTo(to);
    expect(log.endOffset).toBe(to);
    expect(await readAll(log)).toEqual([]);
    expect(await log.read(0)).toEqual([]);
    expect(await log.read(to)).toEqual([]);
    expect(await log.offsetForTimestamp(0)).toBeNull();
    const follower = log.records({ from: 0, follow: true });
    const waiting = follower.next();
    const { baseOffset } = await log.append([{ key: "after", value: "gap", timestamp: 9 }]);
    expect(baseOffset).toBe(to);
    expect(((await waiting).value as LogRecord).offset).toBe(to);
    await follower.return();
    await log.truncateTo(to); // the end in the gap once more, and so it is closed and reopened
    await log.flush();
    await close();
    expect((await verifyDir(sim, undefined)).problems).toEqual([]);
    const reopened = await openSim(sim);
    const again = await reopened.log(NAME, OPTIONS);
    expect([again.endOffset, await readAll(again)]).toEqual([to, []]);
    await reopened.close();
    const crashed = await (await openSim(sim.crash(keepEverything))).log(NAME, OPTIONS);
    expect([crashed.endOffset, await readAll(crashed)]).toEqual([to, []]);
    expect((await crashed.append([{ key: "k", value: "v" }])).baseOffset).toBe(to);
  });
});
