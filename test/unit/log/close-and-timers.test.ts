/**
 * close() called twice, and the two timers (LogDir's checkpoint interval, Log's flushMs): a
 * timer never queues work behind unfinished work of its own kind, however slow the disk. The
 * disk is held by a gate on every fsync; time is vitest's fake clock, never the wall clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLEAN_SHUTDOWN_FILE, LogDir, RECOVERY_POINT_CHECKPOINT } from "../../../src/log/log-dir.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { gated, settle } from "./gated-storage.js";
import { NAME, expectCode, recordAt } from "./helpers.js";
import { ErrorCode } from "../../../src/errors.js";

const CHECKPOINT_TMP = `${RECOVERY_POINT_CHECKPOINT}.tmp`;

/**
 * Fake setTimeout/setInterval, Date and performance (flushMs measures elapsed time with
 * `performance.now()`); setImmediate stays real so `settle()` works.
 */
function fakeTime(): void {
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("close() twice", () => {
  it("LogDir: a second close() while the first runs is the same promise; when it resolves the marker is there and the lock free", async () => {
    const sim = new SimStorage({ seed: 1 });
    const gate = gated(sim);
    const dir = await LogDir.open(gate.storage);
    const log = await dir.log(NAME);
    await log.append([recordAt(0)]);
    gate.shut();
    const first = dir.close();
    await settle();
    expect(gate.waiting).toBeGreaterThan(0); // the first close is inside its fsyncs
    const second = dir.close();
    const third = dir[Symbol.asyncDispose]();
    expect(second).toBe(first);
    expect(third).toBe(first);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    await settle();
    expect(secondDone).toBe(false); // never before the first
    gate.open();
    await second;
    expect(await sim.stat(CLEAN_SHUTDOWN_FILE)).not.toBeNull();
    const again = await LogDir.open(sim); // not PAGELOG_LOCKED
    expect(again.clean).toBe(true);
    expect((await again.log(NAME)).endOffset).toBe(1);
    await again.close();
    expect(dir.close()).toBe(first); // also after it finished
  });

  it("LogDir: a failed close rejects every later call the same way", async () => {
    const sim = new SimStorage({ seed: 2 });
    const dir = await LogDir.open(sim);
    const log = await dir.log(NAME);
    await log.append([recordAt(0)]);
    sim.injectFault({ op: "sync", code: "EIO" });
    const first = dir.close();
    const second = dir.close();
    expect(second).toBe(first);
    await expect(first).rejects.toBeDefined();
    await expect(dir.close()).rejects.toBe(await first.catch((e: unknown) => e));
  });

  it("Log: every close() and asyncDispose after the first returns the first's promise", async () => {
    const sim = new SimStorage({ seed: 3 });
    const gate = gated(sim);
    const dir = await LogDir.open(gate.storage);
    const log = await dir.log(NAME);
    await log.append([recordAt(0)]);
    gate.shut();
    const first = log.close();
    await settle();
    expect(log.close()).toBe(first);
    expect(log[Symbol.asyncDispose]()).toBe(first);
    let done = false;
    void log.close().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    gate.open();
    await first;
    expect(log.status).toBe("closed");
    await dir.close();
  });
});

describe("timers never queue behind their own unfinished work", () => {
  it("checkpoint timer (checkpointIntervalMs 1): while a checkpoint hangs in its fsync no other is queued, and flush() waits behind at most that one", async () => {
    fakeTime();
    const sim = new SimStorage({ seed: 4 });
    const gate = gated(sim);
    const dir = await LogDir.open(gate.storage, { checkpointIntervalMs: 1 });
    const log = await dir.log(NAME);
    await log.append([recordAt(0)]);
    await log.flush();
    gate.shut();
    vi.advanceTimersByTime(1); // the timer's first checkpoint starts and hangs in its fsync
    await settle();
    expect(gate.waiting).toBe(1);
    const before = gate.opened.get(CHECKPOINT_TMP) ?? 0;
    vi.advanceTimersByTime(500); // 500 more ticks of a 1 ms interval while the disk is stuck
    await settle();
    await log.append([recordAt(1)]);
    const flushing = log.flush();
    await settle();
    gate.open();
    await flushing;
    await settle();
    // The hung checkpoint, then at most one more (the flush's, or the timer's next tick): never 500.
    expect((gate.opened.get(CHECKPOINT_TMP) ?? 0) - before).toBeLessThanOrEqual(2);
    // It still runs on time once the disk answers: a quiet log's flushed data gets checkpointed.
    await log.append([recordAt(2)]);
    await log.flush();
    vi.advanceTimersByTime(1);
    await settle();
    const text = new TextDecoder().decode(sim.durableBytes(RECOVERY_POINT_CHECKPOINT));
    expect(text).toBe("0\n1\norders 0 3\n");
    await dir.close();
  });

  it("checkpoint requests that pile up while one runs share one checkpoint", async () => {
    const sim = new SimStorage({ seed: 5 });
    const gate = gated(sim);
    const dir = await LogDir.open(gate.storage, { checkpointIntervalMs: -1 });
    const log = await dir.log(NAME);
    await log.append([recordAt(0)]);
    gate.shut();
    const running = dir.checkpoint();
    await settle();
    const waiting = Array.from({ length: 50 }, () => dir.checkpoint());
    expect(new Set(waiting).size).toBe(1);
    gate.open();
    await Promise.all([running, ...waiting]);
    expect(gate.opened.get(CHECKPOINT_TMP)).toBe(2);
    await dir.close();
  });

  it("flush timer (flushMs 1): while a timed flush hangs in its fsync no other is queued", async () => {
    fakeTime();
    const sim = new SimStorage({ seed: 6 });
    const gate = gated(sim);
    // Interval 0: a checkpoint after every flush, so the number of flushes shows in the checkpoints.
    const dir = await LogDir.open(gate.storage, { checkpointIntervalMs: 0 });
    const log = await dir.log(NAME, { flushMs: 1 });
    await log.append([recordAt(0)]); // flushMs not yet passed: no flush
    gate.shut();
    vi.advanceTimersByTime(1); // the timed flush starts and hangs in its fsync
    await settle();
    expect(gate.waiting).toBe(1); // (0 means no checkpoint timer: only the flush is waiting)
    const before = gate.opened.get(CHECKPOINT_TMP) ?? 0;
    vi.advanceTimersByTime(500);
    await settle();
    gate.open();
    await settle();
    expect(log.recoveryPoint).toBe(1);
    // One timed flush and its checkpoint (and perhaps one more timed tick): never 500.
    expect((gate.opened.get(CHECKPOINT_TMP) ?? 0) - before).toBeLessThanOrEqual(2);
    // And it keeps flushing a log that went quiet.
    await log.append([recordAt(1)]);
    vi.advanceTimersByTime(1);
    await settle();
    expect(log.recoveryPoint).toBe(2);
    await dir.close();
  });

  it("flush timer: the wall clock set back an hour does not hold the timed flush off for an hour", async () => {
    const timers = ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] as const;
    // With performance faked too, and without (the timer then goes by its own schedule alone).
    for (const toFake of [[...timers, "performance" as const], [...timers]]) {
      vi.useFakeTimers({ toFake });
      const sim = new SimStorage({ seed: 8 });
      const dir = await LogDir.open(sim, { checkpointIntervalMs: -1 });
      const log = await dir.log(NAME, { flushMs: 1000 });
      vi.advanceTimersByTime(500);
      await log.append([recordAt(0)]);
      vi.setSystemTime(Date.now() - 3_600_000);
      await log.append([recordAt(1)]);
      expect(log.recoveryPoint).toBe(0);
      vi.advanceTimersByTime(1000);
      await settle();
      expect(log.recoveryPoint, `faking ${toFake.join(",")}`).toBe(2);
      await dir.close();
      vi.useRealTimers();
    }
  });

  it("options: checkpointIntervalMs beyond setTimeout's limit, fractional, a string or null is a TypeError naming it", async () => {
    const sim = new SimStorage({ seed: 7 });
    for (const bad of [2 ** 31, 1.5, "5", null, Number.NaN, Number.POSITIVE_INFINITY, -2]) {
      await expect(LogDir.open(sim, { checkpointIntervalMs: bad as never })).rejects.toThrow(/checkpointIntervalMs/);
    }
    for (const good of [0, 1, 2 ** 31 - 1, -1]) await (await LogDir.open(sim, { checkpointIntervalMs: good })).close();
    await expectCode(async () => {
      const dir = await LogDir.open(sim);
      await dir.close();
      await dir.log(NAME);
    }, ErrorCode.CLOSED);
  });
});
