/**
 * The one workload model: a schedule is a list of steps on a log (appends of records, flushes,
 * truncations, start moves, checkpoints, clean reopens, crashes, clock jumps, OS write-back,
 * injected I/O faults), the log settings it draws, the simulated disk's geometry, and where the
 * power cuts fall. Everything is generated from one 32-bit seed with the simulator's PRNG (no
 * test tools), so a seed is all it takes to replay a schedule anywhere.
 *
 * A step the adapter cannot take (see `ExtraStep`) is never drawn; for pagelog's own `Log`, which
 * takes them all, a seed gives the same schedule it always has (the regression seeds rely on it).
 */
import type { CrashChooser, PendingState } from "../../storage/sim-storage.js";
import { Prng } from "../../storage/sim/prng.js";
import type { ExtraStep, LogTuning } from "./adapter.js";

/** The shape of one generated record: the engine fills in a unique id as its value. */
export interface RecordShape {
  readonly valueBytes: number;
  readonly keyed: boolean;
  readonly headers: number;
  /** null: the log stamps it; else the record's timestamp is the clock's time plus this. */
  readonly tsDelta: number | null;
}

export type Step =
  | { readonly kind: "append"; readonly records: readonly RecordShape[] }
  /** Several appends issued at once (not awaited one by one): pagelog sends them as one group commit. */
  | { readonly kind: "appendGroup"; readonly calls: ReadonlyArray<readonly RecordShape[]> }
  | { readonly kind: "flush" }
  | { readonly kind: "truncate"; readonly back: number }
  | { readonly kind: "deleteBefore"; readonly forward: number }
  | { readonly kind: "checkpoint" }
  | { readonly kind: "reopen" }
  /** Cut the power now (nothing in flight), reboot, reopen, check, and carry on. */
  | { readonly kind: "crash" }
  /** Make the next storage `op` fail with `code`: the call that meets it must fail loudly. */
  | { readonly kind: "fault"; readonly op: "sync" | "write" | "syncDir"; readonly code: "EIO" | "ENOSPC" }
  | { readonly kind: "clock"; readonly ms: number }
  | { readonly kind: "writeback"; readonly pages: number };

export interface Schedule {
  /** Seeds the simulator: write-back choices and every crash fate. */
  readonly seed: number;
  readonly steps: readonly Step[];
  /** The log settings the schedule drew (an adapter may use them). */
  readonly tuning: LogTuning;
  readonly pageSize: number;
  readonly sectorSize: number;
  /** Probability of a random page write-back before each storage operation. */
  readonly writeback: number;
  /**
   * Where the first power cut falls, as a fraction of the workload's storage operations (a dry
   * run with the same seed counts them): 0 cuts before the first, 0.999 just before the last.
   */
  readonly cutAt: number;
  /** Further cuts inside the reopen's own recovery, by operation count, one per level. */
  readonly nestedCuts: readonly number[];
  /**
   * Decides the fates of the first power cut after the workload (default: the seeded random
   * chooser), given what was pending: how the exhaustive test enumerates crash states.
   */
  readonly firstCrash?: (pending: PendingState) => CrashChooser;
}

export interface GenerateOptions {
  /** At most this many steps. @defaultValue 30 */
  readonly maxOps?: number;
  /** The extra steps the adapter takes. @defaultValue none */
  readonly extraSteps?: readonly ExtraStep[];
}

type Choices<T> = ReadonlyArray<readonly [weight: number, make: () => T]>;

function pick<T>(prng: Prng, choices: Choices<T>): T {
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

function step(prng: Prng, faults: boolean, has: (extra: ExtraStep) => boolean): Step {
  // A weight of 0 is never drawn, but the draw is the same: schedules of the full set stay put.
  const w = (weight: number, extra: ExtraStep): number => (has(extra) ? weight : 0);
  const choices: Choices<Step> = [
    [10, () => ({ kind: "append", records: records(prng, 4) })],
    [
      w(3, "concurrentAppends"),
      () => ({ kind: "appendGroup", calls: Array.from({ length: between(prng, 2, 6) }, () => records(prng, 3)) }),
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

/** The schedule that `seed` stands for, for an adapter that takes `extraSteps`. */
export function generateSchedule(seed: number, options: GenerateOptions = {}): Schedule {
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

/** One line for a step, for traces. */
export function describeStep(s: Step): string {
  switch (s.kind) {
    case "append":
      return `append ${s.records.length} record(s) [${s.records.map((r) => r.valueBytes).join(",")}] bytes`;
    case "appendGroup":
      return `${s.calls.length} concurrent appends of [${s.calls.map((c) => c.length).join(",")}] records`;
    case "truncate":
      return `truncateTo(end - ${s.back})`;
    case "deleteBefore":
      return `deleteRecordsBefore(start + ${s.forward})`;
    case "clock":
      return `clock +${s.ms} ms`;
    case "writeback":
      return `OS writes back ${s.pages} page(s)`;
    case "fault":
      return `inject ${s.code} on the next ${s.op}`;
    default:
      return s.kind;
  }
}
