/**
 * The roll flush (issue 33, item 1), as Kafka's `UnifiedLog.roll` schedules
 * `flushUptoOffsetExclusive(newSegment.baseOffset)`: with flushing off (the default), a roll makes
 * the sealed segment durable in the background and the recovery point then moves to the new
 * segment's base. Appends never wait for it; rolls during it queue at most one more; a durable
 * follower, `compact()` and an unclean restart all see it without any `flush()`.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { keepEverything, keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";
import { gated, settle } from "../gated-storage.js";
import { NAME, appendBatches, expectedAt, openSim, readAll, recordAt } from "../helpers.js";

const SMALL = { segmentBytes: 300 };

/** Appends one record at a time until the log has rolled `rolls` times; returns how many records. */
async function appendRolls(log: Log, rolls: number): Promise<number> {
  const target = log.segmentCount + rolls;
  while (log.segmentCount < target) await log.append([recordAt(log.endOffset)]);
  return log.endOffset;
}

/** The recovery point reaching the active segment's base, without a flush() (rejects after 5 s). */
function rollFlushed(log: Log): Promise<number> {
  const base = log.segmentBaseOffsets.at(-1)!;
  return log.waitFor(base - 1, { durable: true, signal: AbortSignal.timeout(5000) });
}

describe("roll flush: the recovery point moves on every roll", () => {
  it("with flushing off, rolls alone move the recovery point to the active segment's base, never past it", async () => {
    const sim = new SimStorage({ seed: 11 });
    const dir = await LogDir.open(sim, { log: SMALL });
    const log = await dir.log(NAME);
    await appendRolls(log, 4);
    expect(await rollFlushed(log)).toBe(log.segmentBaseOffsets.at(-1));
    expect(log.recoveryPoint).toBe(log.segmentBaseOffsets.at(-1));
    expect(log.recoveryPoint).toBeLessThan(log.endOffset); // the active segment is not flushed
    // What the recovery point claims is on the disk: a power cut that keeps nothing unsynced keeps it.
    const durable = log.recoveryPoint;
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect(after.endOffset).toBeGreaterThanOrEqual(durable);
    expect((await readAll(after)).slice(0, durable)).toEqual(Array.from({ length: durable }, (_, i) => expectedAt(i)));
  });

  it("an append never waits for it: with every fsync held, appends across 10 rolls resolve; one roll flush at a time", async () => {
    const sim = new SimStorage({ seed: 12 });
    const gate = gated(sim);
    const dir = await LogDir.open(gate.storage, { log: SMALL, checkpointIntervalMs: -1 });
    const log = await dir.log(NAME);
    gate.shut();
    await appendRolls(log, 10); // would hang here if an append waited for a roll's fsync
    await settle();
    expect(gate.waiting).toBe(1); // the first roll flush, at its first fsync; the other rolls only queued
    expect(log.recoveryPoint).toBe(0);
    gate.open();
    await rollFlushed(log);
    expect(log.recoveryPoint).toBe(log.segmentBaseOffsets.at(-1));
    await dir.close();
  });

  it("a durable follower is woken by rolls alone (no flush())", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 13 }), { log: SMALL });
    const log = await dir.log(NAME);
    const follower = log.records({ follow: true, durable: true, signal: AbortSignal.timeout(5000) });
    const first = follower.next();
    await appendRolls(log, 2);
    expect((await first).value).toMatchObject({ offset: 0 });
    const base = log.segmentBaseOffsets.at(-1)!;
    for (let offset = 1; offset < base; offset++) expect((await follower.next()).value).toMatchObject({ offset });
    await follower.return();
    await dir.close();
  });

  it("a clean close() still flushes everything, the active segment too", async () => {
    const sim = new SimStorage({ seed: 14 });
    const dir = await LogDir.open(sim, { log: SMALL });
    const log = await dir.log(NAME);
    const model = await appendBatches(log, 25);
    expect(log.segmentCount).toBeGreaterThan(3);
    await dir.close(); // right after the last roll: its flush may still be running
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect(after.recovery.clean).toBe(true);
    expect(await readAll(after)).toEqual(model);
  });

  it("an unclean restart after 30 rolls walks at most the last two segments (the checkpoint followed the roll flushes)", async () => {
    const sim = new SimStorage({ seed: 15 });
    const dir = await LogDir.open(sim, { log: SMALL, checkpointIntervalMs: 0 });
    const log = await dir.log(NAME);
    const end = await appendRolls(log, 30);
    await rollFlushed(log);
    await dir.checkpoint(); // (interval 0 checkpoints after each roll flush; this one waits for the last)
    const crashed = await openSim(sim.crash(keepEverything));
    const after = await crashed.log(NAME, SMALL);
    expect(after.recovery.clean).toBe(false);
    // The active segment, and the one holding the last durable record (the loader walks it when
    // the recovery point is exactly a base: its indexes may be the lazily synced ones).
    expect(crashed.recovery.segmentsScanned).toBeLessThanOrEqual(2);
    expect(crashed.recovery.bytesScanned).toBeLessThanOrEqual(2 * SMALL.segmentBytes);
    expect(after.endOffset).toBe(end);
  });
});

describe("compact() after rolls", () => {
  const COMPACT = { ...SMALL, cleanupPolicy: "compact" as const, backgroundCleaning: false };

  it("cleans with no explicit flush()", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 21 }), { log: COMPACT });
    const log = await dir.log(NAME);
    for (let i = 0; i < 60; i++) await log.append([{ key: `k${i % 3}`, value: `v${i}` }]);
    expect(log.segmentCount).toBeGreaterThan(3);
    const result = await log.compact();
    expect(result.segmentsCleaned).toBeGreaterThan(0);
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    expect(result.cleanPoint).toBe(log.segmentBaseOffsets.at(-1));
    expect(result.reason).toBeUndefined();
    await dir.close();
  });

  it("says why it cleaned nothing: no-closed-segment, already-clean, min-compaction-lag", async () => {
    const sim = new SimStorage({ seed: 22 });
    const dir = await LogDir.open(sim, { log: COMPACT });
    const log = await dir.log(NAME);
    await log.append([{ key: "a", value: "1" }]);
    expect(await log.compact()).toMatchObject({ segmentsCleaned: 0, reason: "no-closed-segment" });
    for (let i = 0; i < 30; i++) await log.append([{ key: `k${i % 3}`, value: `v${i}` }]);
    expect((await log.compact()).segmentsCleaned).toBeGreaterThan(0);
    expect(await log.compact()).toMatchObject({ segmentsCleaned: 0, reason: "already-clean" });
    await dir.close();

    const clock = { now: () => 10_000 };
    const lagged = await LogDir.open(new SimStorage({ seed: 23 }), {
      log: { ...COMPACT, clock, minCompactionLagMs: 60_000 },
    });
    const young = await lagged.log(NAME);
    for (let i = 0; i < 30; i++) await young.append([{ key: `k${i % 3}`, value: `v${i}` }]);
    expect(await young.compact()).toMatchObject({ segmentsCleaned: 0, reason: "min-compaction-lag" });
    await lagged.close();
  });
});
