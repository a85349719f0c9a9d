/**
 * Random crash schedules, each generated from one 32-bit seed: workloads that force segment
 * rolls, flush policies, group commits, truncations, start-offset moves, clean reopens, crashes,
 * clock jumps, OS write-back and injected I/O faults, with the power cut at a random storage
 * operation and again, a few levels deep, inside recovery.
 *
 * One generator serves the vitest property and `pagelog fuzz`, so a schedule's seed is all it
 * takes to replay it anywhere: `npx pagelog fuzz --replay <seed>`. It draws from the simulator's
 * PRNG, not fast-check, so the published command needs no test tools.
 */
import { Prng } from "../storage/sim/prng.js";
import type { Command, RecordShape, Schedule } from "./crash-harness.js";

type Pick<T> = ReadonlyArray<readonly [weight: number, make: () => T]>;

function pick<T>(prng: Prng, choices: Pick<T>): T {
  const total = choices.reduce((sum, [w]) => sum + w, 0);
  let roll = prng.float() * total;
  for (const [w, make] of choices) {
    if ((roll -= w) < 0) return make();
  }
  return choices[choices.length - 1]![1]();
}

function oneOf<T>(prng: Prng, values: readonly T[]): T {
  return values[prng.int(values.length)]!;
}

function between(prng: Prng, min: number, max: number): number {
  return min + prng.int(max - min + 1);
}

function record(prng: Prng): RecordShape {
  return {
    // Few distinct sizes: batches of equal size make a stale batch line up exactly after a new
    // one, which is how a recovery truncation that was not made durable resurrects records.
    valueBytes: prng.chance(0.8) ? oneOf(prng, [0, 8, 40]) : between(prng, 0, 700),
    keyed: prng.chance(0.5),
    headers: between(prng, 0, 3),
    // null: the log stamps it; otherwise any offset from the clock, earlier ones included.
    tsDelta: prng.chance(0.5) ? null : between(prng, -5000, 5000),
  };
}

function records(prng: Prng, max: number): RecordShape[] {
  return Array.from({ length: between(prng, 1, max) }, () => record(prng));
}

function command(prng: Prng, faults: boolean): Command {
  const choices: Pick<Command> = [
    [10, () => ({ kind: "append", records: records(prng, 4) })],
    [3, () => ({ kind: "appendGroup", calls: Array.from({ length: between(prng, 2, 6) }, () => records(prng, 3)) })],
    [3, () => ({ kind: "flush" })],
    [1, () => ({ kind: "truncate", back: between(prng, 0, 6) })],
    [1, () => ({ kind: "deleteBefore", forward: between(prng, 0, 6) })],
    [1, () => ({ kind: "checkpoint" })],
    [1, () => ({ kind: "reopen" })],
    [2, () => ({ kind: "crash" })],
    [1, () => ({ kind: "clock", ms: between(prng, 1, 400) })],
    [2, () => ({ kind: "writeback", pages: between(prng, 1, 6) })],
    [
      faults ? 1 : 0,
      () => ({
        kind: "fault",
        op: oneOf(prng, ["sync", "sync", "write", "syncDir"] as const),
        code: oneOf(prng, ["EIO", "ENOSPC"] as const),
      }),
    ],
  ];
  return pick(prng, choices);
}

/** The schedule that `seed` stands for. */
export function generateSchedule(seed: number): Schedule {
  const prng = new Prng(seed);
  const pageSize = oneOf(prng, [64, 256, 4096]);
  const faults = prng.chance(0.3);
  return {
    seed: prng.nextU32() & 0x7fffffff,
    commands: Array.from({ length: between(prng, 1, 30) }, () => command(prng, faults)),
    options: {
      segmentBytes: oneOf(prng, [200, 400, 1000, 4000]),
      indexIntervalBytes: oneOf(prng, [0, 64, 300, 4096]),
      maxIndexBytes: oneOf(prng, [48, 10 * 1024 * 1024]),
      flushMessages: oneOf(prng, [-1, -1, 1, 3]),
      flushMs: oneOf(prng, [-1, -1, 300]),
      segmentMs: oneOf(prng, [7 * 24 * 3600 * 1000, 500]),
    },
    checkpointIntervalMs: oneOf(prng, [-1, 0, 500]),
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

/** The seed of the i-th schedule of a run seeded with `runSeed` (what `--replay` takes). */
export function scheduleSeed(runSeed: number, index: number): number {
  const prng = new Prng(runSeed);
  // Mix the index in through the PRNG, so neighbouring runs share no schedules.
  return (new Prng(prng.nextU32() ^ Math.imul(index + 1, 0x9e3779b1)).nextU32() & 0x7fffffff) >>> 0;
}
