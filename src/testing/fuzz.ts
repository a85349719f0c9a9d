/**
 * `pagelog fuzz` and the crash properties: the crash engine's run loop on pagelog's `Log` with
 * the settings each schedule draws (or on a deliberately broken variant of it), and on any
 * adapter (`pagelog fuzz --adapter`). A schedule's seed is all it takes to replay it:
 * `npx pagelog fuzz --replay <seed>`.
 */
import { brokenAdapter, type BrokenVariant, variantWorkload } from "./broken/variants.js";
import type { CrashTestAdapter, ExtraStep } from "./engine/adapter.js";
import { type CrashTestProgress, type RunReport, runSchedules } from "./engine/run-loop.js";
import { runSchedule, type ScheduleOutcome } from "./engine/run-schedule.js";
import { generateSchedule, type Schedule, type Workload } from "./engine/schedule.js";
import { tunedPagelogAdapter } from "./pagelog-adapter.js";
import { withPolicies } from "./with-policies.js";
import type { CoursePolicies } from "../policies/policy-types.js";
import { formatSteps, withSteps } from "./engine/shrink.js";

export type { CrashTestProgress as FuzzProgress, RunReport as FuzzReport } from "./engine/run-loop.js";

/** The options of a run: crashTest's vocabulary, plus a deadline. */
interface FuzzOptions {
  /** Seeds the whole run: schedule 0 runs this seed, the others' are drawn from it. */
  readonly seed: number;
  /** Stop after this many schedules. @defaultValue unlimited (then `minutes` must be set) */
  readonly schedules?: number;
  /** Stop after this many minutes. */
  readonly minutes?: number;
  /** At most this many steps per workload. @defaultValue 30 */
  readonly maxOps?: number;
  /** The workload generator (`--workload`). @defaultValue "swarm" ("compaction" for a compaction broken variant) */
  readonly workload?: Workload;
  /** Stop at the first violation. @defaultValue true */
  readonly failFast?: boolean;
  /** Called after every schedule (the CLI draws its progress line from it). */
  readonly onProgress?: (progress: CrashTestProgress) => void;
}

interface PagelogFuzzOptions extends FuzzOptions {
  /** Run a deliberately broken log instead of the real one (the suite must catch it). */
  readonly brokenVariant?: BrokenVariant;
  /** The directory's descriptor bound (small values make the pool evict and reopen all the time). */
  readonly maxOpenFiles?: number;
  /** Run the Log on a reader's course policies (`pagelog fuzz --policies`). */
  readonly policies?: Partial<CoursePolicies>;
}

/** The adapter `pagelog fuzz` runs: the real log with each schedule's settings (on the policies given), or a broken one. */
export function fuzzedLog(
  brokenVariant?: BrokenVariant,
  maxOpenFiles?: number,
  policies?: Partial<CoursePolicies>,
): CrashTestAdapter {
  if (brokenVariant !== undefined && policies !== undefined)
    throw new TypeError("a broken variant runs pagelog's own policies: give one or the other");
  return brokenVariant === undefined
    ? withPolicies(tunedPagelogAdapter(maxOpenFiles === undefined ? {} : { maxOpenFiles }), policies)
    : brokenAdapter(brokenVariant);
}

/** What a replay command carries besides the seed. */
interface ReplayArgs {
  readonly brokenVariant?: BrokenVariant | undefined;
  readonly maxOps?: number | undefined;
  readonly workload?: Workload | undefined;
  /** The module of `--policies`, as given. */
  readonly policiesPath?: string | undefined;
  /** Only these steps of the schedule (a shrunk case). */
  readonly steps?: readonly number[] | undefined;
}

/** A path as one shell word. */
export function shellWord(text: string): string {
  return /^[\w./@:-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The command that replays one schedule. */
export function replayCommand(scheduleSeed: number, brokenVariant?: BrokenVariant, maxOps?: number): string;
export function replayCommand(scheduleSeed: number, args: ReplayArgs): string;
export function replayCommand(scheduleSeed: number, second?: BrokenVariant | ReplayArgs, maxOpsArg?: number): string {
  const args: ReplayArgs = typeof second === "object" ? second : { brokenVariant: second, maxOps: maxOpsArg };
  const { brokenVariant, maxOps, policiesPath, steps, workload } = args;
  return (
    `npx pagelog fuzz` +
    (policiesPath === undefined ? "" : ` --policies ${shellWord(policiesPath)}`) +
    ` --replay ${scheduleSeed}` +
    (steps === undefined ? "" : ` --steps ${formatSteps(steps)}`) +
    (brokenVariant === undefined ? "" : ` --broken ${brokenVariant}`) +
    (maxOps === undefined || maxOps === 30 ? "" : ` --max-ops ${maxOps}`) +
    (workload === undefined || workload === "swarm" ? "" : ` --workload ${workload}`)
  );
}

/** The schedule a seed stands for, for an adapter (`workload`: the generator, swarm by default). */
export function scheduleFor(adapter: CrashTestAdapter, seed: number, maxOps?: number, workload?: Workload): Schedule {
  const extraSteps: readonly ExtraStep[] = adapter.extraSteps ?? [];
  return generateSchedule(seed, {
    extraSteps,
    ...(maxOps === undefined ? {} : { maxOps }),
    ...(workload === undefined ? {} : { workload }),
  });
}

/** Runs one schedule of pagelog's log by its seed; rejects with a CrashViolation if a guarantee breaks. */
export async function replay(
  seed: number,
  brokenVariant?: BrokenVariant,
  options: {
    maxOpenFiles?: number;
    maxOps?: number;
    policies?: Partial<CoursePolicies>;
    steps?: readonly number[];
    /** The generator the seed goes through (regression seeds recorded before the swarm: classic). */
    workload?: Workload;
  } = {},
): Promise<ScheduleOutcome> {
  const adapter = fuzzedLog(brokenVariant, options.maxOpenFiles, options.policies);
  const schedule = scheduleFor(adapter, seed, options.maxOps, options.workload ?? variantWorkload(brokenVariant));
  return runSchedule(adapter, options.steps === undefined ? schedule : withSteps(schedule, options.steps));
}

/** `pagelog fuzz`: pagelog's log (or a broken variant), schedule after schedule. */
export async function fuzz(options: PagelogFuzzOptions): Promise<RunReport> {
  const maxOps = options.maxOps ?? 30;
  // A compaction variant's bug is only reached by the compaction workload: its default.
  const workload = options.workload ?? variantWorkload(options.brokenVariant);
  return runSchedules(fuzzedLog(options.brokenVariant, options.maxOpenFiles, options.policies), {
    ...options,
    maxOps,
    workload,
    failFast: options.failFast ?? true,
    replay: (seed) => replayCommand(seed, { brokenVariant: options.brokenVariant, maxOps, workload }),
  });
}

interface AdapterFuzzOptions extends FuzzOptions {
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
