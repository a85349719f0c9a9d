/**
 * How big the randomized and sweeping tests run: one switch, `PAGELOG_BUDGET`, and one table.
 *
 * - `quick`: a few seconds per file, for the inner loop (`npm run check`, a property file run by
 *   hand while working on it). It proves the test still runs, not the guarantee.
 * - `ci` (the default, what `npm test` runs): exactly the counts the README's guarantees table and
 *   docs/testing.md promise (2,000 log-crash schedules, 60 SIGKILLs, 250 compaction schedules, …).
 *   Lowering a `ci` count below its promise is lowering a guarantee: the test-tiers test holds each
 *   one to the figure the docs print.
 * - `soak` (`npm run test:soak`): about ten times `ci`, and every sweep case on real files too.
 *
 * Each size keeps the variable it was read from before the budget existed (`PAGELOG_CRASH_RUNS`,
 * `PAGELOG_KILLS`, …) as an override of that one size, for a replay or a long run of one file. Only
 * this module reads them (the test-tiers test checks that): a size is never sized twice.
 */

/** The three budgets `PAGELOG_BUDGET` takes. */
export const BUDGETS = ["quick", "ci", "soak"] as const;
/** One of {@link BUDGETS}. */
export type Budget = (typeof BUDGETS)[number];

/** A size: what it counts, its per-size override variable, and its value under each budget. */
export interface SizeRow {
  /** What the number counts, and in which test. */
  readonly what: string;
  /** The environment variable that overrides this one size. */
  readonly env: string;
  /**
   * `runs` counts cases (more is bigger); `stride` is "every n-th case also on real files" (a
   * smaller n is bigger: 1 means all of them).
   */
  readonly kind: "runs" | "stride";
  readonly quick: number;
  readonly ci: number;
  readonly soak: number;
}

/** Every size of every test, by name. The `ci` column is what the docs promise per `npm test`. */
export const SIZES = {
  crashRuns: {
    what: "log-crash schedules (test/property/log-crash.test.ts)",
    env: "PAGELOG_CRASH_RUNS",
    kind: "runs",
    quick: 200,
    ci: 2000,
    soak: 20_000,
  },
  fdCrashRuns: {
    what: "log-crash schedules with a descriptor pool of 1-3 (test/property/log-crash-fdpool.test.ts)",
    env: "PAGELOG_FD_CRASH_RUNS",
    kind: "runs",
    quick: 40,
    ci: 100,
    soak: 4000,
  },
  crashTestRuns: {
    what: "crashTest schedules per adapter (test/property/crash-test-api.test.ts)",
    env: "PAGELOG_CRASH_TEST_RUNS",
    kind: "runs",
    quick: 30,
    ci: 100,
    soak: 5000,
  },
  compactionSchedules: {
    what: "compaction-workload schedules (test/property/compaction-engine.test.ts)",
    env: "PAGELOG_COMPACTION_SCHEDULES",
    kind: "runs",
    quick: 25,
    ci: 250,
    soak: 2500,
  },
  optionsRuns: {
    what: "options-change sequences (test/property/options-change.test.ts)",
    env: "PAGELOG_OPTIONS_RUNS",
    kind: "runs",
    quick: 250,
    ci: 500,
    soak: 25_000,
  },
  recordsRuns: {
    what: "records() history sequences (test/property/records-history.test.ts)",
    env: "PAGELOG_RECORDS_RUNS",
    kind: "runs",
    quick: 15,
    ci: 150,
    soak: 1500,
  },
  segmentRuns: {
    what: "segment read sequences (test/property/segment-reads.test.ts)",
    env: "PAGELOG_SEGMENT_RUNS",
    kind: "runs",
    quick: 25,
    ci: 250,
    soak: 2500,
  },
  lazyRuns: {
    what: "lazy-segment first-use crashes (test/property/lazy-first-use-crash.test.ts)",
    env: "PAGELOG_LAZY_RUNS",
    kind: "runs",
    quick: 6,
    ci: 60,
    soak: 600,
  },
  positionsRuns: {
    what: "consumer-position crash sequences (test/property/positions-crash.test.ts)",
    env: "PAGELOG_POSITIONS_RUNS",
    kind: "runs",
    quick: 4,
    ci: 40,
    soak: 400,
  },
  rollFlushRuns: {
    what: "roll-flush crash schedules (test/property/roll-flush-crash.test.ts)",
    env: "PAGELOG_ROLL_FLUSH_RUNS",
    kind: "runs",
    quick: 6,
    ci: 60,
    soak: 600,
  },
  followerRuns: {
    what: "durable-follower schedules (test/property/durable-follower.test.ts)",
    env: "PAGELOG_FOLLOWER_RUNS",
    kind: "runs",
    quick: 16,
    ci: 160,
    soak: 1600,
  },
  readOnlyRaceRuns: {
    what: "seeded read-only races beside a writer (test/unit/log/read-only/readonly-race.test.ts)",
    env: "PAGELOG_RO_RACE_RUNS",
    kind: "runs",
    quick: 1,
    ci: 4,
    soak: 200,
  },
  kills: {
    what: "SIGKILLs of the appending child (test/integration/sigkill.test.ts)",
    env: "PAGELOG_KILLS",
    kind: "runs",
    quick: 6,
    ci: 60,
    soak: 500,
  },
  compactionKills: {
    what: "SIGKILLs of the cleaning child (test/integration/compaction-sigkill.test.ts)",
    env: "PAGELOG_COMPACTION_KILLS",
    kind: "runs",
    quick: 2,
    ci: 16,
    soak: 160,
  },
  aliceStates: {
    what: "replayed crash states of one cleaning (test/integration/compaction-alice.test.ts)",
    env: "PAGELOG_ALICE_STATES",
    kind: "runs",
    quick: 4,
    ci: 40,
    soak: 400,
  },
  hostileRandom: {
    what: "seeded random damages of the hostile-files sweep (test/integration/hostile-files.test.ts)",
    env: "PAGELOG_HOSTILE_RANDOM",
    kind: "runs",
    quick: 150,
    ci: 300,
    soak: 15_000,
  },
  hostileFsEvery: {
    what: "every n-th hostile-files open also on real files (test/integration/hostile-files.test.ts)",
    env: "PAGELOG_HOSTILE_FS_EVERY",
    kind: "stride",
    quick: 250,
    ci: 25,
    soak: 1,
  },
  sweepFsEvery: {
    what: "every n-th corruption-sweep case also on real files (test/integration/corruption-sweep.test.ts)",
    env: "PAGELOG_SWEEP_FS_EVERY",
    kind: "stride",
    quick: 200,
    ci: 20,
    soak: 1,
  },
} as const satisfies Record<string, SizeRow>;

/** The name of one size in {@link SIZES}. */
export type SizeName = keyof typeof SIZES;

/** Reads `PAGELOG_BUDGET`; anything but the three names fails loudly rather than run another size. */
export function parseBudget(text: string | undefined): Budget {
  if (text === undefined || text === "") return "ci";
  if ((BUDGETS as readonly string[]).includes(text)) return text as Budget;
  throw new TypeError(`PAGELOG_BUDGET must be one of ${BUDGETS.join(", ")}; got ${JSON.stringify(text)}`);
}

/** A per-size override: a positive integer (a NaN or 0 would silently run nothing). */
function parseOverride(env: string, text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n) || n < 1)
    throw new TypeError(`${env} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * The value of size `name` for a budget and an environment: the per-size override when set, else
 * the budget's column. Pure, for the tests of this table; the tests call {@link size}.
 */
export function sizeIn(name: SizeName, env: Readonly<Record<string, string | undefined>>): number {
  const row: SizeRow = SIZES[name];
  const budget = parseBudget(env.PAGELOG_BUDGET);
  const override = env[row.env];
  return override === undefined ? row[budget] : parseOverride(row.env, override);
}

/** The run's budget (`PAGELOG_BUDGET`, default `ci`). */
export const BUDGET: Budget = parseBudget(process.env.PAGELOG_BUDGET);

/** The value of size `name` in this run. */
export function size(name: SizeName): number {
  return sizeIn(name, process.env);
}
