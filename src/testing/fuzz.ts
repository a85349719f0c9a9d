/**
 * `pagelog fuzz` and the crash properties: the crash engine's run loop on pagelog's `Log` with
 * the settings each schedule draws (or on a deliberately broken variant of it), and on any
 * adapter (`pagelog fuzz --adapter`). A schedule's seed is all it takes to replay it:
 * `npx pagelog fuzz --replay <seed>`.
 */
import { brokenAdapter, type BrokenVariant } from "./broken/variants.js";
import type { CrashTestAdapter, ExtraStep } from "./engine/adapter.js";
import { type CrashTestProgress, type RunReport, runSchedules } from "./engine/run-loop.js";
import { runSchedule, type ScheduleOutcome } from "./engine/run-schedule.js";
import { generateSchedule, type Schedule } from "./engine/schedule.js";
import { tunedPagelogAdapter } from "./pagelog-adapter.js";

export type { CrashTestProgress as FuzzProgress, RunReport as FuzzReport } from "./engine/run-loop.js";

/** The options of a run: crashTest's vocabulary, plus a deadline. */
export interface FuzzOptions {
  /** Seeds the whole run: schedule 0 runs this seed, the others' are drawn from it. */
  readonly seed: number;
  /** Stop after this many schedules. @defaultValue unlimited (then `minutes` must be set) */
  readonly schedules?: number;
  /** Stop after this many minutes. */
  readonly minutes?: number;
  /** At most this many steps per workload. @defaultValue 30 */
  readonly maxOps?: number;
  /** Stop at the first violation. @defaultValue true */
  readonly failFast?: boolean;
  /** Called after every schedule (the CLI draws its progress line from it). */
  readonly onProgress?: (progress: CrashTestProgress) => void;
}

export interface PagelogFuzzOptions extends FuzzOptions {
  /** Run a deliberately broken log instead of the real one (the suite must catch it). */
  readonly brokenVariant?: BrokenVariant;
  /** The directory's descriptor bound (small values make the pool evict and reopen all the time). */
  readonly maxOpenFiles?: number;
}

/** The adapter `pagelog fuzz` runs: the real log with each schedule's settings, or a broken one. */
export function fuzzedLog(brokenVariant?: BrokenVariant, maxOpenFiles?: number): CrashTestAdapter {
  return brokenVariant === undefined ? tunedPagelogAdapter({ maxOpenFiles }) : brokenAdapter(brokenVariant);
}

/** The command that replays one schedule. */
export function replayCommand(scheduleSeed: number, brokenVariant?: BrokenVariant, maxOps?: number): string {
  return (
    `npx pagelog fuzz --replay ${scheduleSeed}` +
    (brokenVariant === undefined ? "" : ` --broken ${brokenVariant}`) +
    (maxOps === undefined || maxOps === 30 ? "" : ` --max-ops ${maxOps}`)
  );
}

/** The schedule a seed stands for, for an adapter. */
export function scheduleFor(adapter: CrashTestAdapter, seed: number, maxOps?: number): Schedule {
  const extraSteps: readonly ExtraStep[] = adapter.extraSteps ?? [];
  return generateSchedule(seed, { extraSteps, ...(maxOps === undefined ? {} : { maxOps }) });
}

/** Runs one schedule of pagelog's log by its seed; rejects with a CrashViolation if a guarantee breaks. */
export async function replay(
  seed: number,
  brokenVariant?: BrokenVariant,
  options: { maxOpenFiles?: number; maxOps?: number } = {},
): Promise<ScheduleOutcome> {
  const adapter = fuzzedLog(brokenVariant, options.maxOpenFiles);
  return runSchedule(adapter, scheduleFor(adapter, seed, options.maxOps));
}

/** `pagelog fuzz`: pagelog's log (or a broken variant), schedule after schedule. */
export async function fuzz(options: PagelogFuzzOptions): Promise<RunReport> {
  const maxOps = options.maxOps ?? 30;
  return runSchedules(fuzzedLog(options.brokenVariant, options.maxOpenFiles), {
    ...options,
    maxOps,
    failFast: options.failFast ?? true,
    replay: (seed) => replayCommand(seed, options.brokenVariant, maxOps),
  });
}

export interface AdapterFuzzOptions extends FuzzOptions {
  /** The command that replays one schedule. @defaultValue the `crashTest(...)` call */
  readonly replayCommand?: (scheduleSeed: number) => string;
}

/** `pagelog fuzz --adapter`: any adapter, schedule after schedule; each violation replays by its own seed. */
export async function fuzzAdapter(adapter: CrashTestAdapter, options: AdapterFuzzOptions): Promise<RunReport> {
  const maxOps = options.maxOps ?? 30;
  return runSchedules(adapter, {
    ...options,
    maxOps,
    failFast: options.failFast ?? true,
    replay:
      options.replayCommand ??
      ((seed) => `crashTest(${adapter.name}, { seed: ${seed}, schedules: 1, maxOps: ${maxOps} })`),
  });
}
