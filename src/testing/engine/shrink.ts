/**
 * Shrinking a failing schedule: the same seed (same disk, same cut fraction, same settings)
 * with fewer of its steps. First the shortest failing prefix, then single steps dropped while it
 * still fails. A schedule of chosen steps replays exactly: `--replay SEED --steps 0,2,5`.
 */
import type { CrashTestAdapter } from "./adapter.js";
import { runSchedule } from "./run-schedule.js";
import type { Schedule } from "./schedule.js";
import { violationMessage } from "./violation.js";

interface ShrunkCase {
  /** Indices of the schedule's steps kept, ascending. */
  readonly steps: readonly number[];
  /** How many steps the schedule had. */
  readonly of: number;
  /** The violation the kept steps give (it may differ from the original one's wording). */
  readonly message: string;
}

/** The schedule with only the steps at `indices` (in order). */
export function withSteps(schedule: Schedule, indices: readonly number[]): Schedule {
  for (const i of indices)
    if (!Number.isInteger(i) || i < 0 || i >= schedule.steps.length)
      throw new RangeError(`step ${i} is not a step of schedule ${schedule.seed} (it has ${schedule.steps.length})`);
  return {
    ...schedule,
    steps: indices.map((i) => schedule.steps[i]!),
    stepNumbers: indices.map((i) => schedule.stepNumbers?.[i] ?? i),
  };
}

/** "0-3,5,7" for [0,1,2,3,5,7]; "none" for no step. */
export function formatSteps(indices: readonly number[]): string {
  if (indices.length === 0) return "none";
  const parts: string[] = [];
  for (let i = 0; i < indices.length; i++) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    parts.push(j > i ? `${indices[i]}-${indices[j]}` : `${indices[i]}`);
    i = j;
  }
  return parts.join(",");
}

/** Parses "0-3,5,7" (what formatSteps prints); undefined if malformed. */
export function parseSteps(text: string): number[] | undefined {
  if (text.trim() === "none") return [];
  const out: number[] = [];
  for (const part of text.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) return undefined;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from > 100_000) return undefined;
    for (let i = from; i <= to; i++) out.push(i);
  }
  const sorted = [...new Set(out)].sort((a, b) => a - b);
  return sorted.length === out.length ? sorted : undefined;
}

/**
 * The smallest failing case found by dropping steps of a failing schedule, or undefined if the
 * schedule does not fail when run again (a non-deterministic adapter). At most `budget` runs.
 */
export async function shrinkSchedule(
  adapter: CrashTestAdapter,
  schedule: Schedule,
  budget = 400,
): Promise<ShrunkCase | undefined> {
  let runs = 0;
  const failure = async (indices: readonly number[]): Promise<string | undefined> => {
    runs++;
    try {
      await runSchedule(adapter, withSteps(schedule, indices));
      return undefined;
    } catch (err) {
      return violationMessage(err);
    }
  };
  let keep = schedule.steps.map((_, i) => i);
  let message = await failure(keep);
  if (message === undefined) return undefined;
  for (let n = 0; n < keep.length && runs < budget; n++) {
    const found = await failure(keep.slice(0, n));
    if (found !== undefined) {
      keep = keep.slice(0, n);
      message = found;
      break;
    }
  }
  for (let changed = true; changed && runs < budget;) {
    changed = false;
    for (let i = keep.length - 1; i >= 0 && runs < budget; i--) {
      const trial = [...keep.slice(0, i), ...keep.slice(i + 1)];
      const found = await failure(trial);
      if (found !== undefined) {
        keep = trial;
        message = found;
        changed = true;
      }
    }
  }
  return { steps: keep, of: schedule.steps.length, message };
}
