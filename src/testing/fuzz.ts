/**
 * The fuzz loop behind `pagelog fuzz` and the crash property: generate schedule after schedule
 * from one run seed, run each through the crash harness, count, and collect violations with the
 * one command that replays each.
 */
import type { BrokenVariant } from "./broken/variants.js";
import { runSchedule } from "./crash-harness.js";
import { type CrashTestAdapter, type CrashTestProgress, crashTest } from "./crash-test.js";
import { generateSchedule, scheduleSeed } from "./crash-workload.js";
import { type CrashTestViolation, violationMessage } from "./violation.js";

export interface FuzzOptions {
  /** Seeds the whole run: schedule i has seed `scheduleSeed(seed, i)`. */
  readonly seed: number;
  /** Stop after this many schedules (crashTest's name for it). @defaultValue unlimited (then `minutes` must be set) */
  readonly schedules?: number;
  /** Stop after this many minutes. */
  readonly minutes?: number;
  /** Run a deliberately broken log instead of the real one (the suite must catch it). */
  readonly brokenVariant?: BrokenVariant;
  /** Stop at the first violation (crashTest's option). @defaultValue true */
  readonly failFast?: boolean;
  /** Called after every schedule (the CLI draws its progress line from it). */
  readonly onProgress?: (progress: FuzzProgress) => void;
}

/** crashTest's progress, with the time the run has taken. */
export interface FuzzProgress extends CrashTestProgress {
  readonly elapsedMs: number;
}

/** A violation of a fuzz run: crashTest's, with the schedule's index in the run (`seed` is what `--replay` takes). */
export interface FuzzViolation extends CrashTestViolation {
  /** Its index in the run. */
  readonly index: number;
}

export interface FuzzReport extends FuzzProgress {
  readonly seed: number;
  readonly violationList: readonly FuzzViolation[];
}

/** The command that replays one schedule. */
export function replayCommand(scheduleSeed: number, brokenVariant?: BrokenVariant): string {
  return `npx pagelog fuzz --replay ${scheduleSeed}${brokenVariant === undefined ? "" : ` --broken ${brokenVariant}`}`;
}

/** Runs one schedule by its seed; rejects with a CrashViolation if a guarantee breaks. */
export async function replay(seedOfSchedule: number, brokenVariant?: BrokenVariant) {
  const schedule = generateSchedule(seedOfSchedule);
  return runSchedule(brokenVariant === undefined ? schedule : { ...schedule, brokenVariant });
}

/** What one schedule contributes to a run: its counts and any violations. */
interface ScheduleResult {
  readonly powerCuts: number;
  readonly recordsRecovered: number;
  readonly violations: ReadonlyArray<{ readonly message: string; readonly replay: string }>;
}

/**
 * The loop both fuzzers share: schedule seeds from the run seed, until the count, the deadline or
 * (with `failFast`) the first violation; progress after every schedule.
 */
async function runSchedules(
  options: {
    seed: number;
    schedules?: number;
    minutes?: number;
    failFast?: boolean;
    onProgress?: (p: FuzzProgress) => void;
  },
  what: string,
  runOne: (seed: number) => Promise<ScheduleResult>,
): Promise<FuzzReport> {
  if (options.schedules === undefined && options.minutes === undefined)
    throw new TypeError(`${what} needs schedules or minutes`);
  const started = Date.now();
  const deadline = options.minutes === undefined ? Infinity : started + options.minutes * 60_000;
  const runs = options.schedules ?? Infinity;
  const failFast = options.failFast ?? true;
  const violations: FuzzViolation[] = [];
  let schedules = 0;
  let powerCuts = 0;
  let recordsRecovered = 0;
  const progress = (): FuzzProgress => ({
    schedules,
    powerCuts,
    recordsRecovered,
    violations: violations.length,
    elapsedMs: Date.now() - started,
  });
  for (let index = 0; index < runs && Date.now() < deadline; index++) {
    const seed = scheduleSeed(options.seed, index);
    const result = await runOne(seed);
    powerCuts += result.powerCuts;
    recordsRecovered += result.recordsRecovered;
    for (const v of result.violations) violations.push({ seed, index, message: v.message, replay: v.replay });
    schedules++;
    options.onProgress?.(progress());
    if (violations.length > 0 && failFast) break;
  }
  return { ...progress(), seed: options.seed, violationList: violations };
}

export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  return runSchedules(options, "fuzz", async (seed) => {
    try {
      const outcome = await replay(seed, options.brokenVariant);
      return { powerCuts: outcome.powerCuts, recordsRecovered: outcome.recordsRecovered, violations: [] };
    } catch (err) {
      return {
        powerCuts: 0,
        recordsRecovered: 0,
        violations: [{ message: violationMessage(err), replay: replayCommand(seed, options.brokenVariant) }],
      };
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Any log: `pagelog fuzz --adapter ./my-log.mjs` drives crashTest's engine schedule by schedule.

export interface AdapterFuzzOptions {
  /** Seeds the whole run: schedule i has seed `scheduleSeed(seed, i)`, which `crashTest` replays alone. */
  readonly seed: number;
  /** Stop after this many schedules (crashTest's name for it). @defaultValue unlimited (then `minutes` must be set) */
  readonly schedules?: number;
  /** Stop after this many minutes. */
  readonly minutes?: number;
  /** At most this many steps per workload (crashTest's `maxOps`). @defaultValue 30 */
  readonly maxOps?: number;
  /** Stop at the first violation (crashTest's option). @defaultValue true */
  readonly failFast?: boolean;
  /** The command that replays one schedule. @defaultValue the `crashTest(...)` call */
  readonly replayCommand?: (scheduleSeed: number) => string;
  /** Called after every schedule. */
  readonly onProgress?: (progress: FuzzProgress) => void;
}

/**
 * Fuzzes any `CrashTestAdapter` with crashTest's engine: one `crashTest(adapter, { seed, schedules:
 * 1 })` per schedule seed, so every violation is replayed by its own seed alone.
 */
export async function fuzzAdapter(adapter: CrashTestAdapter, options: AdapterFuzzOptions): Promise<FuzzReport> {
  const maxOps = options.maxOps ?? 30;
  return runSchedules(options, "fuzzAdapter", async (seed) => {
    const summary = await crashTest(adapter, { seed, schedules: 1, maxOps, throwOnViolation: false });
    return {
      powerCuts: summary.powerCuts,
      recordsRecovered: summary.recordsRecovered,
      violations: summary.violations.map((v) => ({
        message: v.message,
        replay: options.replayCommand?.(seed) ?? v.replay,
      })),
    };
  });
}
