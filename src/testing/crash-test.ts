/**
 * `crashTest(adapter, options)`: the power-cut fuzzer, for any log that stores its bytes through
 * pagelog's `Storage` interface — pagelog's own `Log` (see `pagelogAdapter`) or one a reader
 * writes for the chapter.
 *
 * Each schedule is a seeded random workload — appends, flushes, clean close + reopen, OS
 * write-back of random dirty pages, clock jumps, power cuts between calls, and whatever extra
 * steps the adapter takes (concurrent appends, truncation, start moves, checkpoints, injected
 * I/O faults) — run on a fresh `SimStorage`, with the power cut at a random storage operation
 * (counted by a dry run of the same seed), often again while the reopen recovers. After every
 * reboot the log is checked against a model (src/testing/engine/model.ts):
 *
 * - **prefix**: exactly the first n records appended, in order: nothing never appended, no hole,
 *   no duplicate (the call in flight at the cut may be there in whole or in part);
 * - **durability**: n covers every record appended before a `flush()` or `close()` resolved, or
 *   that the log itself claimed durable (`durableEnd`);
 * - **no resurrection**: after a crash the model becomes what survived, and every record is
 *   unique, so a record lost in one crash that reappears after a later one is caught;
 * - **the log's own checks** (`selfCheck`), after every flush, recovery and clean reopen;
 * - **recovered files durable**: after every recovery, each file the log names as counting on
 *   (`recoveredFiles`) is on the simulated disk exactly as it reads;
 * - **progress**: after recovery an append lands at the end and survives a clean close + reopen,
 *   which must give back exactly what was there.
 *
 * Everything random comes from the seed: `crashTest(adapter, { seed, schedules: 1 })` replays a
 * failing schedule exactly (given a deterministic adapter).
 *
 * No `node:` imports and no test framework: it runs under any runner, or none.
 */
import type { CoursePolicies } from "../policies/policy-types.js";
import { type OptionResolvers, resolveOptions } from "../options.js";
import type { CrashTestAdapter } from "./engine/adapter.js";
import { tunedPagelogAdapter } from "./pagelog-adapter.js";
import { withPolicies } from "./with-policies.js";
import { type CrashTestProgress, type CrashTestViolation, runSchedules } from "./engine/run-loop.js";

export type { CrashTestProgress, CrashTestViolation } from "./engine/run-loop.js";

/** Options of `crashTest`. An unknown key is a `TypeError` naming it and the known ones. */
export interface CrashTestOptions {
  /**
   * How many random schedules to run.
   * @defaultValue 100
   */
  schedules?: number;
  /**
   * The first schedule's seed; the others' seeds are drawn from it. Each violation names its
   * schedule's own seed: `{ seed, schedules: 1 }` replays just that schedule.
   * @defaultValue a random seed (printed in every violation)
   */
  seed?: number;
  /**
   * At most this many steps per workload.
   * @defaultValue 30
   */
  maxOps?: number;
  /**
   * Throw a `CrashTestError` (whose message has the seed and a replay hint) when a schedule
   * breaks a guarantee. `false` runs and reports violations in the summary.
   * @defaultValue true
   */
  throwOnViolation?: boolean;
  /**
   * Stop at the first violation.
   * @defaultValue true
   */
  failFast?: boolean;
  /** Called after each schedule. */
  onProgress?: (progress: CrashTestProgress) => void;
  /**
   * A reader's course policies (`pagelog/course`: `writeVarint`, `lookup`, `segmentsToDelete`,
   * `recover`), handed to the adapter's `open` in its context; pagelog's adapters run the Log on
   * them, so a wrong one shows up as a violation that names it.
   */
  policies?: Partial<CoursePolicies>;
}

/** What a `crashTest` run did and found. */
export interface CrashTestSummary {
  /** The adapter's name. */
  readonly adapter: string;
  /** The run's seed: the same seed replays the same schedules. */
  readonly seed: number;
  /** Schedules run. */
  readonly schedules: number;
  /** Power cuts made (every schedule has at least one). */
  readonly powerCuts: number;
  /** Records the reopened logs held after their final recovery, summed. */
  readonly recordsRecovered: number;
  /** The guarantees that broke, each with the schedule that replays it (empty: none). */
  readonly violations: readonly CrashTestViolation[];
  /**
   * How often each decision fired over the schedules that passed: the engine's (crash steps,
   * cuts inside a call or inside recovery, injected faults that failed a call), the simulated
   * power cuts' (pages written, lost or torn, sizes kept or undone, directory changes lost) and
   * the log's own (`AdapterLog.recoveryDecisions`: pagelog's tail cuts, deletions, rebuilt
   * indexes, finished truncations, …). A decision at 0 is a path these workloads never reached.
   */
  readonly reach: Readonly<Record<string, number>>;
}

/** Thrown by `crashTest` (unless `throwOnViolation: false`) when a guarantee broke. */
export class CrashTestError extends Error {
  /** Always `"CrashTestError"`. */
  override readonly name = "CrashTestError";
  /** The run's summary, its violations included. */
  readonly summary: CrashTestSummary;
  /** An error whose message names the first violation of `summary`. */
  constructor(summary: CrashTestSummary) {
    const first = summary.violations[0];
    super(
      `crashTest(${summary.adapter}): ${summary.violations.length} violation(s) in ${summary.schedules} schedule(s).\n` +
        (first === undefined ? "" : `First, schedule seed ${first.seed}:\n${first.message}\nReplay: ${first.replay}`),
    );
    this.summary = summary;
  }
}

/** Every option resolved: forgetting a default is a compile error. */
type Resolved = {
  [K in keyof Required<CrashTestOptions>]: K extends "onProgress" | "policies"
    ? CrashTestOptions[K]
    : NonNullable<CrashTestOptions[K]>;
};

function integer(name: string, min: number, kind: string, fallback: () => number) {
  return (given: unknown): number => {
    // null counts as undefined, as `??` always made it: the default.
    const value = given ?? fallback();
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)
      throw new TypeError(`options.${name} must be ${kind}, got ${String(value)}`);
    return value;
  };
}

function flag(name: string) {
  return (given: unknown): boolean => {
    if (given === undefined || given === null) return true;
    if (typeof given !== "boolean") throw new TypeError(`options.${name} must be a boolean, got ${String(given)}`);
    return given;
  };
}

/** One resolver per option: the keys here are every option crashTest takes. */
const RESOLVERS: OptionResolvers<CrashTestOptions, Resolved> = {
  schedules: integer("schedules", 0, "a non-negative integer", () => 100),
  seed: integer("seed", Number.MIN_SAFE_INTEGER, "a safe integer", () => Math.floor(Math.random() * 2 ** 31)),
  maxOps: integer("maxOps", 1, "a positive integer", () => 30),
  throwOnViolation: flag("throwOnViolation"),
  failFast: flag("failFast"),
  onProgress: (value) => {
    if (value !== undefined && typeof value !== "function")
      throw new TypeError("options.onProgress must be a function");
    return value as CrashTestOptions["onProgress"];
  },
  // Checked where they are used (withPolicies), with the names of the four functions.
  policies: (value) => value as CrashTestOptions["policies"],
};

function resolve(options: CrashTestOptions): Resolved {
  return resolveOptions(options, "crashTest options", RESOLVERS);
}

/**
 * Runs `options.schedules` random power-cut schedules against the adapter's log and checks every
 * reboot against a model. Resolves with a summary; rejects with a `CrashTestError` on a violation
 * (unless `throwOnViolation: false`). Without an adapter (`crashTest({ policies })`) it runs
 * pagelog's own Log with the settings each schedule draws, as `pagelog fuzz` does.
 */
export async function crashTest(
  options: CrashTestOptions & { policies: Partial<CoursePolicies> },
): Promise<CrashTestSummary>;
/**
 * Runs `options.schedules` random power-cut schedules against the adapter's log and checks every reboot against a
 * model of what it promised. Resolves with a summary; rejects with a `CrashTestError` on a violation unless
 * `throwOnViolation: false`.
 */
export async function crashTest(adapter: CrashTestAdapter, options?: CrashTestOptions): Promise<CrashTestSummary>;
export async function crashTest(
  first: CrashTestAdapter | CrashTestOptions,
  second: CrashTestOptions = {},
): Promise<CrashTestSummary> {
  const given = isAdapterLike(first) ? first : undefined;
  const options = given === undefined ? (first as CrashTestOptions) : second;
  if (given !== undefined && typeof given.open !== "function") {
    throw new TypeError("adapter must be { name, open(storage) }");
  }
  if (given?.extraSteps !== undefined && !Array.isArray(given.extraSteps))
    throw new TypeError("adapter.extraSteps must be an array");
  const o = resolve(options);
  const adapter = withPolicies(given ?? tunedPagelogAdapter(), o.policies);
  const name = String(adapter.name ?? "adapter");
  const report = await runSchedules(adapter, {
    seed: o.seed,
    schedules: o.schedules,
    maxOps: o.maxOps,
    failFast: o.failFast,
    ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
    replay: (seed) =>
      `crashTest(${given === undefined ? "" : `${name}, `}{ seed: ${seed}, schedules: 1, maxOps: ${o.maxOps}${o.policies === undefined ? "" : ", policies"} })`,
  });
  const summary: CrashTestSummary = {
    adapter: name,
    seed: o.seed,
    schedules: report.schedules,
    powerCuts: report.powerCuts,
    recordsRecovered: report.recordsRecovered,
    violations: report.violationList,
    reach: report.reach,
  };
  if (summary.violations.length > 0 && o.throwOnViolation) throw new CrashTestError(summary);
  return summary;
}

/**
 * The first argument is an adapter unless it is options with `policies` (`crashTest({ policies })`:
 * pagelog's own Log on a reader's functions). So `crashTest({})` is still a missing adapter.
 */
function isAdapterLike(x: unknown): x is CrashTestAdapter {
  if (typeof x !== "object" || x === null) throw new TypeError("adapter must be { name, open(storage) }");
  return !("policies" in x) || "open" in x;
}
