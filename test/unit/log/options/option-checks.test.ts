/**
 * Options that used to be accepted and then misbehave: a `crc32c` that is not CRC-32C, a clock
 * whose `now()` throws or answers nonsense, a `maxBatchBytes` below the smallest batch, and
 * `flushMs` measured by wall-clock differences (a clock set back held flushes off).
 */
import CRC32 from "crc-32";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { crc32c } from "../../../../src/format/crc32c.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, expectCode, expectTypeError, freshLog, openSim, readAll } from "../helpers.js";

/** Resolves with "pending" if `p` has not settled within a few turns of the event loop. */
async function settledOrPending(p: Promise<unknown>): Promise<"resolved" | "rejected" | "pending"> {
  const outcome = p.then(
    () => "resolved" as const,
    () => "rejected" as const,
  );
  const pending = new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), 200));
  return Promise.race([outcome, pending]);
}

describe("option crc32c must be CRC-32C", () => {
  it("a function that is not CRC-32C is a TypeError naming crc32c, before anything is created", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim);
    const bad: Array<[string, unknown]> = [
      ["constant 0", () => 0],
      ["async", async (b: Uint8Array) => crc32c(b)],
      ["a string", (b: Uint8Array) => String(crc32c(b))],
      ["a hex string", (b: Uint8Array) => `0x${crc32c(b).toString(16)}`],
      ["plain CRC-32", (b: Uint8Array) => CRC32.buf(b) >>> 0],
      ["a bigint", (b: Uint8Array) => BigInt(crc32c(b))],
      ["one off", (b: Uint8Array) => (crc32c(b) + 1) >>> 0],
      ["a fraction", (b: Uint8Array) => crc32c(b) + 0.5],
      ["beyond uint32", (b: Uint8Array) => crc32c(b) + 2 ** 32],
      ["right for the check vector only", (b: Uint8Array) => (b.length === 9 ? 0xe3069283 : crc32c(b) ^ 1)],
      [
        "throws",
        () => {
          throw new Error("no native module");
        },
      ],
      ["no return", () => undefined],
    ];
    for (const [what, fn] of bad) {
      const err = await dir.log(NAME, { crc32c: fn as never }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(TypeError);
      expect((err as Error).message, what).toContain("crc32c");
    }
    await expectTypeError(() => LogDir.open(sim, { log: { crc32c: () => 0 } }), "crc32c");
    await expectTypeError(() => dir.log(NAME, { crc32c: (b: Uint8Array) => CRC32.buf(b) >>> 0 }), "plain CRC-32");
    await expectTypeError(() => dir.log(NAME, { crc32c: CRC32.buf }), "plain CRC-32"); // signed, as crc-32 returns it
    expect(await sim.list("")).not.toContain(NAME);
    await dir.close();
  });

  it("a correct one (unsigned, or the same 32 bits signed) is used, and the log reads back without it", async () => {
    for (const fn of [(b: Uint8Array) => crc32c(b), (b: Uint8Array) => crc32c(b) | 0]) {
      let calls = 0;
      const counted = (b: Uint8Array): number => {
        calls++;
        return fn(b);
      };
      const { sim, dir, log } = await freshLog({ crc32c: counted });
      const before = calls;
      await log.append([{ value: "checked" }]);
      expect(calls).toBeGreaterThan(before);
      await dir.close();
      const again = await openSim(sim);
      expect((await readAll(await again.log(NAME))).map((r) => r.value)).toEqual(["checked"]);
      await again.close();
    }
  });
});

describe("option maxBatchBytes", () => {
  it("below the smallest batch (68 bytes: the header and one empty record) is a TypeError", async () => {
    const sim = new SimStorage({ seed: 2 });
    const dir = await LogDir.open(sim);
    for (const bad of [0, 1, 12, 60, 61, 62, 67])
      await expectTypeError(() => dir.log(NAME, { maxBatchBytes: bad }), "maxBatchBytes");
    await expectTypeError(() => LogDir.open(sim, { log: { maxBatchBytes: 67 } }), "maxBatchBytes");
    const log = await dir.log(NAME, { maxBatchBytes: 68 });
    expect(await log.append([{ value: null }])).toEqual({ baseOffset: 0, lastOffset: 0 });
    await expectCode(() => log.append([{ value: "a" }]), ErrorCode.RECORD_TOO_LARGE);
    await dir.close();
  });
});

describe("option clock: a now() that throws or answers nonsense", () => {
  /** A clock that answers `answer()` when set, and the time otherwise. */
  function flakyClock() {
    const state = { t: 1_000_000, answer: undefined as undefined | (() => unknown) };
    const clock = { now: () => (state.answer === undefined ? state.t : state.answer()) as number };
    return { state, clock };
  }
  const BAD_ANSWERS: Array<[string, () => unknown]> = [
    [
      "throws",
      () => {
        throw new Error("clock broke");
      },
    ],
    ["NaN", () => Number.NaN],
    ["Infinity", () => Number.POSITIVE_INFINITY],
    ["a string", () => "1000"],
    ["a promise", () => Promise.resolve(1000)],
    ["a fraction", () => 1000.5],
    ["undefined", () => undefined],
  ];

  it("append rejects with a TypeError naming the clock (never hangs), and the log stays usable", async () => {
    for (const [what, answer] of BAD_ANSWERS) {
      const { state, clock } = flakyClock();
      const { dir, log } = await freshLog({ clock, flushMessages: 1 });
      await log.append([{ value: "before" }]);
      state.answer = answer;
      const appending = log.append([{ value: "lost" }]);
      const concurrent = log.append([{ value: "lost too" }]); // the same group
      expect(await settledOrPending(appending), what).toBe("rejected");
      await expectTypeError(() => appending, "clock");
      await expectTypeError(() => concurrent, "clock");
      await expectTypeError(() => log.flush(), "clock");
      await expectTypeError(() => log.truncateTo(0), "clock");
      await expectTypeError(() => log.applyRetention(), "clock");
      expect(log.status, what).toBe("open");
      expect(log.endOffset).toBe(1);
      state.answer = undefined;
      expect(await log.append([{ value: "after" }])).toEqual({ baseOffset: 1, lastOffset: 1 });
      expect((await readAll(log)).map((r) => r.value)).toEqual(["before", "after"]);
      await dir.close();
    }
  });

  it("a log still closes cleanly with a clock that throws, and opening a log with one is a TypeError", async () => {
    const { state, clock } = flakyClock();
    const sim = new SimStorage({ seed: 3 });
    const dir = await LogDir.open(sim, { log: { clock }, checkpointIntervalMs: 0 });
    const log = await dir.log(NAME);
    await log.append([{ value: "kept" }]);
    state.answer = BAD_ANSWERS[0]![1];
    await expectTypeError(() => dir.log("other-0"), "clock");
    await dir.close(); // flushes and writes the marker without reading the clock
    expect(log.status).toBe("closed");
    const again = await openSim(sim);
    expect(again.clean).toBe(true);
    expect((await readAll(await again.log(NAME))).map((r) => r.value)).toEqual(["kept"]);
    await again.close();
    state.answer = BAD_ANSWERS[0]![1];
    await expectTypeError(() => LogDir.open(sim, { log: { clock } }), "clock");
    await (await LogDir.open(sim)).close(); // that failed open left the lock free
  });

  it("a clock that throws after a flush's fsyncs never fails the log (the directory's checkpoint reads it too)", async () => {
    let reads = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const clock = {
      now: () => {
        if (++reads >= failFrom) throw new Error("late clock failure");
        return 5000;
      },
    };
    const sim = new SimStorage({ seed: 4 });
    const dir = await LogDir.open(sim, { log: { clock }, checkpointIntervalMs: 0 });
    const log = await dir.log(NAME, { flushMessages: 1 });
    await log.append([{ value: "a" }]);
    // Each later read fails in turn: whichever read it is, the call fails, the log does not.
    for (let skip = 0; skip < 4; skip++) {
      failFrom = reads + 1 + skip;
      await log.append([{ value: `b${skip}` }]).catch((e: unknown) => expect(e).toBeInstanceOf(TypeError));
      await log.flush().catch((e: unknown) => expect(e).toBeInstanceOf(TypeError));
      failFrom = Number.POSITIVE_INFINITY;
      expect(log.status).toBe("open");
    }
    await log.append([{ value: "z" }]);
    await log.flush();
    expect(log.recoveryPoint).toBe(log.endOffset);
    await dir.close();
  });
});

describe("flushMs and segmentMs measure elapsed time", () => {
  it("an injected clock set back an hour does not hold flushes off for an hour", async () => {
    const t0 = 1_700_000_000_000;
    let t = t0;
    const { sim, log } = await freshLog({ flushMs: 1000, clock: { now: () => t } });
    await log.append([{ value: "a" }]);
    expect(log.recoveryPoint).toBe(0);
    t = t0 - 3_600_000; // set back an hour
    await log.append([{ value: "b" }]);
    expect(log.recoveryPoint).toBe(0); // no time passed
    t += 999;
    await log.append([{ value: "c" }]);
    expect(log.recoveryPoint).toBe(0);
    t += 1;
    await log.append([{ value: "d" }]); // 1000 ms after the last flush, by elapsed time
    expect(log.recoveryPoint).toBe(4);
    expect((await readAll(await (await openSim(sim.crash(keepNothing))).log(NAME))).map((r) => r.value)).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
  });

  it("an injected clock set back does not hold a segmentMs roll off either", async () => {
    const t0 = 1_700_000_000_000;
    let t = t0;
    const { log } = await freshLog({ segmentMs: 1000, clock: { now: () => t } });
    await log.append([{ value: "a" }]);
    t = t0 - 3_600_000;
    await log.append([{ value: "b" }]);
    t += 1000;
    await log.append([{ value: "c" }]);
    expect(log.segmentCount).toBe(2);
    expect(log.segmentBaseOffsets).toEqual([0, 2]);
  });
});
