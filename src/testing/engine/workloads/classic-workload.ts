/**
 * The classic workload: the one step mix and settings of the first engine. Its draws are a
 * format: the regression seeds (test/property/log-crash.test.ts) replay through it, so changing
 * any draw here changes the schedules they recorded.
 */
import { Prng } from "../../../storage/sim/prng.js";
import type { ExtraStep, LogTuning } from "../adapter.js";
import type { GenerateOptions, Schedule, Step } from "../schedule-types.js";
import { between, type Choices, oneOf, pick, drawRecords } from "./workload-draws.js";

function step(prng: Prng, faults: boolean, has: (extra: ExtraStep) => boolean): Step {
  // A weight of 0 is never drawn, but the draw is the same: schedules of the full set stay put.
  const w = (weight: number, extra: ExtraStep): number => (has(extra) ? weight : 0);
  const choices: Choices<Step> = [
    [10, () => ({ kind: "append", records: drawRecords(prng, 4) })],
    [
      w(3, "concurrentAppends"),
      () => ({ kind: "appendGroup", calls: Array.from({ length: between(prng, 2, 6) }, () => drawRecords(prng, 3)) }),
    ],
    [3, () => ({ kind: "flush" })],
    [w(1, "truncate"), () => ({ kind: "truncate", back: between(prng, 0, 6) })],
    [w(1, "deleteBefore"), () => ({ kind: "deleteBefore", forward: between(prng, 0, 6) })],
    [w(1, "checkpoint"), () => ({ kind: "checkpoint" })],
    [1, () => ({ kind: "reopen" })],
    [2, () => ({ kind: "crash" })],
    [1, () => ({ kind: "clock", ms: between(prng, 1, 400) })],
    [2, () => ({ kind: "writeback", pages: between(prng, 1, 6) })],
    [
      faults ? w(1, "faults") : 0,
      () => ({
        kind: "fault",
        op: oneOf(prng, ["sync", "sync", "write", "syncDir"] as const),
        code: oneOf(prng, ["EIO", "ENOSPC"] as const),
      }),
    ],
  ];
  return pick(prng, choices);
}

/** The classic schedule that `seed` stands for, for an adapter that takes `extraSteps`. */
export function classicSchedule(seed: number, options: GenerateOptions = {}): Schedule {
  const maxOps = options.maxOps ?? 30;
  const extras = new Set(options.extraSteps ?? []);
  const prng = new Prng(seed);
  const pageSize = oneOf(prng, [64, 256, 4096]);
  const faults = prng.chance(0.3);
  // The order of the draws below is the schedule format: changing it changes every seed's schedule.
  const simSeed = prng.nextU32() & 0x7fffffff;
  const steps = Array.from({ length: between(prng, 1, maxOps) }, () => step(prng, faults, (e) => extras.has(e)));
  const tuning: LogTuning = {
    segmentBytes: oneOf(prng, [200, 400, 1000, 4000]),
    indexIntervalBytes: oneOf(prng, [0, 64, 300, 4096]),
    maxIndexBytes: oneOf(prng, [48, 10 * 1024 * 1024]),
    flushMessages: oneOf(prng, [-1, -1, 1, 3]),
    flushMs: oneOf(prng, [-1, -1, 300]),
    segmentMs: oneOf(prng, [7 * 24 * 3600 * 1000, 500]),
    checkpointIntervalMs: oneOf(prng, [-1, 0, 500]),
  };
  return {
    seed: simSeed,
    steps,
    tuning,
    pageSize,
    sectorSize: oneOf(
      prng,
      [16, 64, 512].filter((s) => s <= pageSize),
    ),
    writeback: oneOf(prng, [0, 0.05, 0.3]),
    cutAt: prng.float(),
    nestedCuts: Array.from({ length: between(prng, 0, 3) }, () => between(prng, 0, 60)),
  };
}
