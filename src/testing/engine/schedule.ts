/**
 * The one workload model: a schedule is a list of steps on a log (appends of records, flushes,
 * truncations, start moves, checkpoints, clean reopens, crashes, clock jumps, OS write-back,
 * injected I/O faults), the log settings it draws, the simulated disk's geometry, and where the
 * power cuts fall. Everything is generated from one 32-bit seed with the simulator's PRNG (no
 * test tools), so a seed is all it takes to replay a schedule anywhere.
 *
 * Three generators: the swarm workload (swarm-workload.ts, the default), where each seed first
 * draws a focus that reweights steps and settings, the classic one (classic-workload.ts), whose
 * draws are frozen: the regression seeds replay through it, and the compaction one
 * (compaction-workload.ts), a compacted log cleaned by `compact` steps. A step the adapter cannot take
 * (see `ExtraStep`) is never drawn; for pagelog's own `Log`, which takes them all, a classic seed
 * gives the same schedule it always has.
 */
import { classicSchedule } from "./workloads/classic-workload.js";
import { compactionSchedule } from "./workloads/compaction-workload.js";
import type { GenerateOptions, RecordShape, Schedule, Step } from "./schedule-types.js";
import { swarmSchedule } from "./workloads/swarm-workload.js";

export type { GenerateOptions, RecordShape, Schedule, Step, Workload } from "./schedule-types.js";

/** The schedule that `seed` stands for, for an adapter that takes `extraSteps`. */
export function generateSchedule(seed: number, options: GenerateOptions = {}): Schedule {
  switch (options.workload ?? "swarm") {
    case "classic":
      return classicSchedule(seed, options);
    case "compaction":
      return compactionSchedule(seed, options);
    case "swarm":
      return swarmSchedule(seed, options);
  }
}

/** One line for a step, for traces. */
export function describeStep(s: Step): string {
  switch (s.kind) {
    case "append":
      return `append ${s.records.length} record(s) [${s.records.map(describeShape).join(",")}] bytes`;
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

/** A record shape's value size, with its key and "del" for a tombstone in a compaction workload. */
function describeShape(r: RecordShape): string {
  if (r.keyId === undefined) return String(r.valueBytes);
  return `k${r.keyId}:${r.tombstone === true ? "del" : r.valueBytes}`;
}
