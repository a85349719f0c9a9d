/**
 * Retention on a timer (issue 33, item 2): `retentionCheckIntervalMs`, Kafka's
 * `log.retention.check.interval.ms` (5 minutes), runs time and size retention and the cleaner's
 * due check on a log that does not roll. Elapsed time decides when (a wall clock set back does
 * not hold it off); the timer stops at close. Time is vitest's fake clock, never the wall clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { resolveLogOptions } from "../../../../src/log/options/resolve-log-options.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { settle } from "../gated-storage.js";
import { NAME, expectTypeError } from "../helpers.js";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Fake setTimeout, Date and performance (the log's stopwatch); setImmediate stays real for settle(). */
function fakeTime(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  vi.setSystemTime(100 * DAY);
}

afterEach(() => {
  vi.useRealTimers();
});

/** A log of three closed segments of records stamped `stamp`, and an active one stamped now. */
async function quietLog(options: object, stamp: number) {
  const dir = await LogDir.open(new SimStorage({ seed: 31 }), { checkpointIntervalMs: -1 });
  const log = await dir.log(NAME, { segmentBytes: 200, ...options });
  while (log.segmentCount < 4) await log.append([{ key: "k", value: "v".repeat(40), timestamp: stamp }]);
  await log.append([{ key: "k", value: "now", timestamp: Date.now() }]);
  return { dir, log };
}

describe("retentionCheckIntervalMs: retention without a roll", () => {
  it("time retention deletes the old segments of a log that no longer rolls, within one interval", async () => {
    fakeTime();
    // The records are young when written: the rolls' retention keeps them.
    const { dir, log } = await quietLog({ retentionMs: 10 * MINUTE }, Date.now());
    const segments = log.segmentCount;
    expect(log.startOffset).toBe(0);
    await vi.advanceTimersByTimeAsync(5 * MINUTE); // one check: nothing is old enough yet
    await settle();
    expect(log.segmentCount).toBe(segments);
    await vi.advanceTimersByTimeAsync(10 * MINUTE); // the next checks: the old segments go, not the active one
    await settle();
    expect(log.segmentCount).toBe(1);
    expect(log.startOffset).toBe(log.segmentBaseOffsets[0]);
    await dir.close();
  });

  it("the default is Kafka's 5 minutes; -1 is off", async () => {
    fakeTime();
    expect(resolveLogOptions({}).retentionCheckIntervalMs).toBe(5 * MINUTE);
    const { dir, log } = await quietLog({ retentionMs: MINUTE, retentionCheckIntervalMs: -1 }, Date.now());
    const segments = log.segmentCount;
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    await settle();
    expect(log.segmentCount).toBe(segments);
    await log.applyRetention(); // by hand it still works
    expect(log.segmentCount).toBe(1);
    await dir.close();
  });

  it("elapsed time, not the wall clock: a clock set back a day does not hold the check off", async () => {
    fakeTime();
    // A reader's retention rule that keeps everything, counting the checks that ask it.
    let asked = 0;
    const segmentsToDelete = (): number => (asked++, 0);
    const dir = await LogDir.open(new SimStorage({ seed: 35 }), { checkpointIntervalMs: -1 });
    const log = await dir.log(NAME, {
      retentionMs: DAY,
      retentionCheckIntervalMs: MINUTE,
      policies: { segmentsToDelete },
    });
    await log.append([{ key: "k", value: "v" }]);
    vi.setSystemTime(Date.now() - DAY);
    await vi.advanceTimersByTimeAsync(MINUTE);
    await settle();
    expect(asked).toBe(1); // a minute passed, whatever the wall clock says
    await vi.advanceTimersByTimeAsync(MINUTE);
    await settle();
    expect(asked).toBe(2);
    await dir.close();
  });

  it("stops at close: no timer is left behind", async () => {
    fakeTime();
    const dir = await LogDir.open(new SimStorage({ seed: 33 }), { checkpointIntervalMs: -1 });
    const before = vi.getTimerCount();
    const log = await dir.log(NAME, { retentionMs: DAY, retentionCheckIntervalMs: MINUTE });
    expect(vi.getTimerCount()).toBe(before + 1);
    await log.close();
    expect(vi.getTimerCount()).toBe(before);
    await vi.advanceTimersByTimeAsync(10 * MINUTE); // nothing runs on the closed log
    expect(log.status).toBe("closed");
    await dir.close();
  });

  it("a log with nothing for it to do (retention off, no cleaner) arms no check: the timers' part is not loaded", async () => {
    fakeTime();
    const dir = await LogDir.open(new SimStorage({ seed: 34 }), { checkpointIntervalMs: -1 });
    const before = vi.getTimerCount();
    const plain = await dir.log(NAME, { retentionCheckIntervalMs: MINUTE });
    expect(vi.getTimerCount()).toBe(before);
    const compacted = await dir.log("compacted-0", { cleanupPolicy: "compact", retentionCheckIntervalMs: MINUTE });
    expect(vi.getTimerCount()).toBe(before + 1); // the cleaner's due check: time alone may make a cleaning due
    await compacted.close();
    await plain.close();
    expect(vi.getTimerCount()).toBe(before);
    await dir.close();
  });

  it("a bad value is a TypeError naming the option", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 34 }));
    for (const bad of [0, -2, 1.5, "5", null, Number.NaN, 2 ** 31])
      await expectTypeError(
        () => dir.log(NAME, { retentionCheckIntervalMs: bad as never }),
        "retentionCheckIntervalMs",
      );
    for (const good of [1, 2 ** 31 - 1, -1])
      expect(resolveLogOptions({ retentionCheckIntervalMs: good })).toBeDefined();
    await dir.close();
  });
});
