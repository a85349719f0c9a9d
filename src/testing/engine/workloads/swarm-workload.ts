/**
 * The swarm workload (the default): each seed first draws a focus, which reweights the steps and
 * the settings, then a schedule as the classic workload does but with that mix. One broad mix
 * finds the common paths and dilutes the rare ones: a recovery cut followed by appends of the
 * same size and another crash, a failed fsync followed by a flush and a crash, a clean restart
 * followed by a crash before the next checkpoint. Swarm testing (Groce et al., 2012) gives each
 * of them schedules of its own, so every recovery decision fires within a few dozen schedules of
 * any run seed (`pagelog fuzz` prints the reach; scripts/broken-reach.mjs measures the catches).
 */
import { Prng } from "../../../storage/sim/prng.js";
import type { ExtraStep, LogTuning } from "../adapter.js";
import type { GenerateOptions, RecordShape, Schedule, Step } from "../schedule-types.js";
import { between, type Choices, oneOf, pick, record, drawRecords } from "./workload-draws.js";

/** The steps the swarm draws (`compact` is the compaction workload's). */
type Kind = Exclude<Step["kind"], "compact">;

interface Mix {
  /** Weight of each step kind (a step the adapter does not take weighs 0). */
  readonly steps: Readonly<Record<Kind, number>>;
  readonly pageSizes: readonly number[];
  readonly writebacks: readonly number[];
  /** Probability that the schedule injects faults at all. */
  readonly faults: number;
  /** Probability that an append repeats the schedule's one record shape and count. */
  readonly repeat: number;
  readonly segmentBytes: readonly number[];
  readonly indexIntervals: readonly number[];
  readonly flushMessages: readonly number[];
  readonly checkpointIntervals: readonly number[];
}

const BROAD: Mix = {
  steps: {
    append: 10,
    appendGroup: 3,
    flush: 3,
    truncate: 1,
    deleteBefore: 1,
    checkpoint: 1,
    reopen: 1,
    crash: 2,
    clock: 1,
    writeback: 2,
    fault: 1,
  },
  pageSizes: [64, 256, 4096],
  writebacks: [0, 0.05, 0.3],
  faults: 0.3,
  repeat: 0,
  segmentBytes: [200, 400, 1000, 4000],
  indexIntervals: [0, 64, 300, 4096],
  flushMessages: [-1, -1, 1, 3],
  checkpointIntervals: [-1, 0, 500],
};

/** The mixes a seed chooses from, each aimed at paths the broad one reaches rarely. */
const FOCI: ReadonlyArray<readonly [weight: number, mix: Mix]> = [
  [2, BROAD],
  // A recovery cut, then appends that line up with the batches it cut, then another crash: a cut
  // that was not made durable comes back as stale batches that look valid.
  [
    2,
    {
      ...BROAD,
      steps: { ...BROAD.steps, appendGroup: 1, flush: 1, truncate: 0.5, reopen: 0.5, crash: 5, writeback: 5, fault: 0 },
      pageSizes: [64, 256],
      writebacks: [0.05, 0.3],
      repeat: 0.85,
      flushMessages: [-1],
    },
  ],
  // Injected faults, each followed soon by a flush and a crash: a failed fsync must never count.
  [
    1,
    {
      ...BROAD,
      steps: { ...BROAD.steps, flush: 5, crash: 3, fault: 4 },
      faults: 1,
    },
  ],
  // A fault that fails a call, then a reboot (the failed fsync's pages never reach the disk, so
  // recovery cuts back to the recovery point), then appends that flush by count and roll: a
  // recovery commit that was not made durable shows as a stale index after the next crash.
  [
    1,
    {
      ...BROAD,
      steps: {
        ...BROAD.steps,
        appendGroup: 1,
        truncate: 0,
        deleteBefore: 0,
        checkpoint: 0,
        reopen: 0,
        crash: 0,
        writeback: 0,
        fault: 2,
      },
      faults: 1,
      segmentBytes: [400, 1000],
      indexIntervals: [0, 64],
      flushMessages: [1, 3],
      checkpointIntervals: [0],
    },
  ],
  // Clean restarts followed by crashes: the clean-shutdown marker's removal must be durable.
  [
    1,
    {
      ...BROAD,
      steps: { ...BROAD.steps, flush: 1, reopen: 5, crash: 4, writeback: 3 },
      checkpointIntervals: [-1, 500],
    },
  ],
  // Truncations and start moves, cut anywhere: interrupted cuts, leftovers, starting over.
  [
    1,
    {
      ...BROAD,
      steps: { ...BROAD.steps, truncate: 4, deleteBefore: 3, crash: 3, writeback: 3 },
      repeat: 0.5,
    },
  ],
];

/** What the adapter takes: a step kind it cannot take is never drawn. */
const EXTRA_OF: Partial<Record<Kind, ExtraStep>> = {
  appendGroup: "concurrentAppends",
  truncate: "truncate",
  deleteBefore: "deleteBefore",
  checkpoint: "checkpoint",
  fault: "faults",
};

/** The swarm schedule that `seed` stands for, for an adapter that takes `extraSteps`. */
export function swarmSchedule(seed: number, options: GenerateOptions = {}): Schedule {
  const maxOps = options.maxOps ?? 30;
  const extras = new Set(options.extraSteps ?? []);
  const prng = new Prng(seed);
  const mix = pick(
    prng,
    FOCI.map(([w, m]) => [w, () => m]),
  );
  return scheduleOfMix(prng, mix, maxOps, extras);
}

/** The rest of a swarm schedule, once its mix is drawn. */
function scheduleOfMix(prng: Prng, mix: Mix, maxOps: number, extras: ReadonlySet<ExtraStep>): Schedule {
  const pageSize = oneOf(prng, mix.pageSizes);
  const faults = prng.chance(mix.faults);
  const simSeed = prng.nextU32() & 0x7fffffff;
  const repeated = { shape: record(prng), count: between(prng, 1, 3) };
  const weight = (kind: Kind): number => {
    const extra = EXTRA_OF[kind];
    if (kind === "fault" && !faults) return 0;
    return extra === undefined || extras.has(extra) ? mix.steps[kind] : 0;
  };
  const draw = (): RecordShape[] =>
    prng.chance(mix.repeat) ? Array.from({ length: repeated.count }, () => repeated.shape) : drawRecords(prng, 4);
  // Longer workloads than the classic one's 1..maxOps: a focus needs several cycles to bite.
  const length = between(prng, Math.ceil(maxOps / 2), maxOps);
  const steps = Array.from({ length }, () => step(prng, weight, draw));
  return {
    seed: simSeed,
    steps,
    tuning: tuning(prng, mix),
    pageSize,
    sectorSize: oneOf(
      prng,
      [16, 64, 512].filter((s) => s <= pageSize),
    ),
    writeback: oneOf(prng, mix.writebacks),
    cutAt: prng.float(),
    nestedCuts: Array.from({ length: between(prng, 0, 3) }, () => between(prng, 0, 60)),
  };
}

function tuning(prng: Prng, mix: Mix): LogTuning {
  return {
    segmentBytes: oneOf(prng, mix.segmentBytes),
    indexIntervalBytes: oneOf(prng, mix.indexIntervals),
    maxIndexBytes: oneOf(prng, [48, 10 * 1024 * 1024]),
    flushMessages: oneOf(prng, mix.flushMessages),
    flushMs: oneOf(prng, [-1, -1, 300]),
    segmentMs: oneOf(prng, [7 * 24 * 3600 * 1000, 500]),
    checkpointIntervalMs: oneOf(prng, mix.checkpointIntervals),
  };
}

function step(prng: Prng, weight: (kind: Kind) => number, draw: () => RecordShape[]): Step {
  const choices: Choices<Step> = [
    [weight("append"), () => ({ kind: "append", records: draw() })],
    [weight("appendGroup"), () => ({ kind: "appendGroup", calls: Array.from({ length: between(prng, 2, 6) }, draw) })],
    [weight("flush"), () => ({ kind: "flush" })],
    [weight("truncate"), () => ({ kind: "truncate", back: between(prng, 0, 6) })],
    [weight("deleteBefore"), () => ({ kind: "deleteBefore", forward: between(prng, 0, 6) })],
    [weight("checkpoint"), () => ({ kind: "checkpoint" })],
    [weight("reopen"), () => ({ kind: "reopen" })],
    [weight("crash"), () => ({ kind: "crash" })],
    [weight("clock"), () => ({ kind: "clock", ms: between(prng, 1, 400) })],
    [weight("writeback"), () => ({ kind: "writeback", pages: between(prng, 1, 6) })],
    [
      weight("fault"),
      () => ({
        kind: "fault",
        op: oneOf(prng, ["sync", "sync", "write", "syncDir"] as const),
        code: oneOf(prng, ["EIO", "ENOSPC"] as const),
      }),
    ],
  ];
  return pick(prng, choices);
}
