/**
 * The one run loop: schedule seeds from a run seed, each schedule generated for the adapter and
 * run by `runSchedule`, until a count, a deadline or (with `failFast`) the first violation;
 * progress after every schedule. `crashTest`, `pagelog fuzz` and the crash properties all go
 * through it, with one option vocabulary.
 */
import { Prng } from "../../storage/sim/prng.js";
import type { CrashTestAdapter } from "./adapter.js";
import { type Reach, sumReach } from "./reach.js";
import { runSchedule } from "./run-schedule.js";
import { generateSchedule, type Workload } from "./schedule.js";
import { violationMessage } from "./violation.js";

/** How far a `crashTest` run is, passed to `onProgress` after every schedule. */
export interface CrashTestProgress {
  /** Schedules finished so far. */
  readonly schedules: number;
  /** Power cuts so far (every schedule has at least one). */
  readonly powerCuts: number;
  /** Records the reopened logs held after their final recovery, summed. */
  readonly recordsRecovered: number;
  /** Violations found so far. */
  readonly violations: number;
  /** Time the run has taken so far. */
  readonly elapsedMs: number;
}

/** One schedule that broke a guarantee, as a run reports it. */
export interface CrashTestViolation {
  /** The schedule's seed: it replays that schedule alone. */
  readonly seed: number;
  /** Its index in the run. */
  readonly index: number;
  /** What broke, then the last steps of the schedule. */
  readonly message: string;
  /** The call or command that replays it. */
  readonly replay: string;
}

interface RunLoopOptions {
  /** Schedule 0 runs this seed itself; the others' seeds are drawn from it. */
  readonly seed: number;
  /** Stop after this many schedules. @defaultValue unlimited (then `minutes` must be set) */
  readonly schedules?: number;
  /** Stop after this many minutes. */
  readonly minutes?: number;
  /** At most this many steps per workload. */
  readonly maxOps: number;
  /** The workload generator. @defaultValue "swarm" */
  readonly workload?: Workload | undefined;
  /** Stop at the first violation. */
  readonly failFast: boolean;
  readonly onProgress?: (progress: CrashTestProgress) => void;
  /** The call or command that replays the schedule with this seed. */
  readonly replay: (scheduleSeed: number) => string;
}

export interface RunReport extends CrashTestProgress {
  readonly seed: number;
  readonly violationList: readonly CrashTestViolation[];
  /** How often each decision fired over the schedules that passed (see reach.ts). */
  readonly reach: Reach;
}

/** The seeds of a run: its own seed first (so a violation's seed replays it as schedule 0), then drawn ones. */
function* scheduleSeeds(runSeed: number): Generator<number> {
  yield runSeed;
  const prng = new Prng(runSeed);
  for (;;) yield prng.nextU32() & 0x7fffffff;
}

export async function runSchedules(adapter: CrashTestAdapter, options: RunLoopOptions): Promise<RunReport> {
  if (options.schedules === undefined && options.minutes === undefined)
    throw new TypeError("a run needs schedules or minutes");
  const started = Date.now();
  const deadline = options.minutes === undefined ? Infinity : started + options.minutes * 60_000;
  const runs = options.schedules ?? Infinity;
  const violations: CrashTestViolation[] = [];
  let schedules = 0;
  let powerCuts = 0;
  let recordsRecovered = 0;
  let reach: Reach = {};
  const progress = (): CrashTestProgress => ({
    schedules,
    powerCuts,
    recordsRecovered,
    violations: violations.length,
    elapsedMs: Date.now() - started,
  });
  const seeds = scheduleSeeds(options.seed);
  for (let index = 0; index < runs && Date.now() < deadline; index++) {
    const seed = seeds.next().value as number;
    const schedule = generateSchedule(seed, {
      maxOps: options.maxOps,
      extraSteps: adapter.extraSteps ?? [],
      ...(options.workload === undefined ? {} : { workload: options.workload }),
    });
    try {
      const outcome = await runSchedule(adapter, schedule);
      powerCuts += outcome.powerCuts;
      recordsRecovered += outcome.recordsRecovered;
      reach = sumReach(reach, outcome.reach);
    } catch (err) {
      violations.push({ seed, index, message: violationMessage(err), replay: options.replay(seed) });
    }
    schedules++;
    options.onProgress?.(progress());
    if (violations.length > 0 && options.failFast) break;
  }
  return { ...progress(), seed: options.seed, violationList: violations, reach };
}
