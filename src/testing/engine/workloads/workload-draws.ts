/**
 * The draws a workload generator makes from its seeded PRNG: a weighted choice, one of a list,
 * an integer in a range, and record shapes.
 */
import type { Prng } from "../../../storage/sim/prng.js";
import type { RecordShape, Step } from "../schedule-types.js";

export type Choices<T> = ReadonlyArray<readonly [weight: number, make: () => T]>;

export function pick<T>(prng: Prng, choices: Choices<T>): T {
  const total = choices.reduce((sum, [w]) => sum + w, 0);
  let roll = prng.float() * total;
  for (const [w, make] of choices) {
    if ((roll -= w) < 0) return make();
  }
  return choices[choices.length - 1]![1]();
}

export function oneOf<T>(prng: Prng, values: readonly T[]): T {
  return values[prng.int(values.length)]!;
}

export function between(prng: Prng, min: number, max: number): number {
  return min + prng.int(max - min + 1);
}

export function record(prng: Prng): RecordShape {
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

export function drawRecords(prng: Prng, max: number): RecordShape[] {
  return Array.from({ length: between(prng, 1, max) }, () => record(prng));
}

/** A sector size no larger than the page. */
export function sectorSizeFor(prng: Prng, pageSize: number): number {
  return oneOf(
    prng,
    [16, 64, 512].filter((s) => s <= pageSize),
  );
}

/** An injected I/O fault on the next sync (most often), write or directory sync. */
export function faultStep(prng: Prng): Step {
  return {
    kind: "fault",
    op: oneOf(prng, ["sync", "sync", "write", "syncDir"] as const),
    code: oneOf(prng, ["EIO", "ENOSPC"] as const),
  };
}
