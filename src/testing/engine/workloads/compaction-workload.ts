/*
 * The compaction workload: a log opened with `cleanupPolicy` "compact" (or "compact,delete"),
 * cleaned by `compact` steps between appends of records whose keys come from a few (so every
 * cleaning has something to drop), tombstones (null values), and clock jumps past
 * `deleteRetentionMs` (so tombstones go too), with the other steps of the swarm's broad mix:
 * flushes (a cleaning only reaches what is durable), truncations into cleaned segments, start
 * moves, crashes, write-back and injected faults. The power cut falls anywhere, inside a cleaning's
 * swap too, and the nested cuts inside the recovery that finishes it. Its own generator, so that
 * the swarm's and the classic workload's seeds keep the schedules they recorded.
 */
import { Prng } from "../../../storage/sim/prng.js";
import type { ExtraStep, LogTuning } from "../adapter.js";
import type { GenerateOptions, RecordShape, Schedule, Step } from "../schedule-types.js";
import { between, type Choices, faultStep, oneOf, pick, record, sectorSizeFor } from "./workload-draws.js";

/** `deleteRetentionMs` values: 0 (a tombstone goes at the second cleaning that reaches it) and short ones. */
const RETENTIONS = [0, 400, 2000] as const;

/** The compaction schedule that `seed` stands for, for an adapter that takes `extraSteps`. */
export function compactionSchedule(seed: number, options: GenerateOptions = {}): Schedule {
  const maxOps = options.maxOps ?? 30;
  const extras = new Set(options.extraSteps ?? []);
  const prng = new Prng(seed);
  const pageSize = oneOf(prng, [64, 256, 4096]);
  const faults = prng.chance(0.25);
  const simSeed = prng.nextU32() & 0x7fffffff;
  const keys = between(prng, 1, 6);
  const tombstones = oneOf(prng, [0, 0.15, 0.4]);
  const retention = oneOf(prng, RETENTIONS);
  const draw = (): RecordShape[] => Array.from({ length: between(prng, 1, 4) }, () => keyed(prng, keys, tombstones));
  const has = (extra: ExtraStep): boolean => extras.has(extra);
  const length = between(prng, Math.ceil(maxOps / 2), maxOps);
  const steps = Array.from({ length }, () => step(prng, { draw, retention, faults, has }));
  const tuning: LogTuning = {
    segmentBytes: oneOf(prng, [200, 300, 600, 1500]),
    indexIntervalBytes: oneOf(prng, [0, 64, 300]),
    maxIndexBytes: oneOf(prng, [48, 10 * 1024 * 1024]),
    flushMessages: oneOf(prng, [-1, -1, 1, 3]),
    flushMs: oneOf(prng, [-1, -1, 300]),
    segmentMs: oneOf(prng, [7 * 24 * 3600 * 1000, 500]),
    checkpointIntervalMs: oneOf(prng, [-1, 0, 500]),
    cleanupPolicy: oneOf(prng, ["compact", "compact", "compact,delete"] as const),
    deleteRetentionMs: retention,
  };
  const sectorSize = sectorSizeFor(prng, pageSize);
  return {
    seed: simSeed,
    steps,
    tuning,
    pageSize,
    sectorSize,
    writeback: oneOf(prng, [0, 0.05, 0.3]),
    cutAt: prng.float(),
    // Half the schedules cut inside a cleaning: its swap is a few operations of a long workload.
    cutInCleaning: prng.chance(0.5),
    nestedCuts: Array.from({ length: between(prng, 0, 3) }, () => between(prng, 0, 40)),
  };
}

/** A record of one of `keys` keys; a tombstone with probability `tombstones` (with a header: its id). */
function keyed(prng: Prng, keys: number, tombstones: number): RecordShape {
  const shape = record(prng);
  const keyId = prng.int(keys);
  if (!prng.chance(tombstones)) return { ...shape, keyed: true, keyId };
  // A tombstone has no value to carry the record's unique id: a header carries it.
  return { ...shape, keyed: true, keyId, tombstone: true, valueBytes: 0, headers: Math.max(1, shape.headers) };
}

interface Draws {
  readonly draw: () => RecordShape[];
  readonly retention: number;
  readonly faults: boolean;
  readonly has: (extra: ExtraStep) => boolean;
}

function step(prng: Prng, { draw, retention, faults, has }: Draws): Step {
  const w = (weight: number, extra: ExtraStep): number => (has(extra) ? weight : 0);
  const choices: Choices<Step> = [
    [8, () => ({ kind: "append", records: draw() })],
    [
      w(2, "concurrentAppends"),
      () => ({ kind: "appendGroup", calls: Array.from({ length: between(prng, 2, 4) }, draw) }),
    ],
    [4, () => ({ kind: "flush" })],
    [w(4, "compact"), () => ({ kind: "compact" })],
    [w(1, "truncate"), () => ({ kind: "truncate", back: between(prng, 0, 6) })],
    [w(1, "deleteBefore"), () => ({ kind: "deleteBefore", forward: between(prng, 0, 4) })],
    [w(1, "checkpoint"), () => ({ kind: "checkpoint" })],
    [1, () => ({ kind: "reopen" })],
    [3, () => ({ kind: "crash" })],
    [1, () => ({ kind: "clock", ms: between(prng, 1, 400) })],
    // Past deleteRetentionMs: the next cleaning may drop the tombstones an earlier one reached.
    [1.5, () => ({ kind: "clock", ms: retention + between(prng, 1, 6000) })],
    [2, () => ({ kind: "writeback", pages: between(prng, 1, 6) })],
    [faults ? w(1, "faults") : 0, () => faultStep(prng)],
  ];
  return pick(prng, choices);
}
