/**
 * `crashTest(adapter, options)`: the power-cut fuzzer, for any log that stores its bytes through
 * pagelog's `Storage` interface — pagelog's own `Log` (see `pagelogAdapter`) or one a reader
 * writes for the chapter.
 *
 * Each schedule is a seeded random workload — appends of random batches, flushes, clean
 * close + reopen, OS write-back of random dirty pages, power cuts between calls — run on a fresh
 * `SimStorage`, with the power cut at a random storage operation (counted by a dry run of the
 * same seed), often again while the reopen recovers. After every reboot the adapter reopens the
 * log and the values it reads back are checked against a model:
 *
 * - **prefix**: exactly the first n values appended, in order: no value never appended, no hole,
 *   no duplicate (the batch in flight at the cut may be there in whole or in part);
 * - **durability**: n covers every value appended before a `flush()` (or a `close()`) resolved;
 * - **no resurrection**: after a crash the model becomes what survived, and every value is
 *   unique, so a value lost in one crash that reappears after a later one is caught;
 * - **progress**: after recovery an append lands at the end and survives a clean close + reopen,
 *   which must give back exactly what was appended.
 *
 * Everything random comes from the seed: `crashTest(adapter, { seed, schedules: 1 })` replays a
 * failing schedule exactly (given a deterministic adapter).
 *
 * No `node:` imports and no test framework: it runs under any runner, or none.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { SimStorage } from "../storage/sim-storage.js";
import { Prng } from "../storage/sim/prng.js";
import type { Storage } from "../storage/storage.js";
import { cutWhereSeeded, recoverThroughNestedCuts } from "./cuts.js";
import { type CrashTestViolation, CrashViolation, violationMessage } from "./violation.js";

export type { CrashTestViolation } from "./violation.js";

/** A log under test, as the adapter opened it over one `Storage`. */
export interface AdapterLog {
  /** Appends one batch of values, in order. Resolved: the values are in the log (not yet durable). */
  append(values: Uint8Array[]): Promise<void>;
  /** Makes every value appended before it durable. */
  flush(): Promise<void>;
  /** Clean shutdown: everything appended is durable once it resolves. */
  close(): Promise<void>;
  /** Every value in the log, oldest first. */
  readAll(): Promise<Uint8Array[]>;
}

/** How `crashTest` opens the log under test. */
export interface CrashTestAdapter {
  /** Shown in reports. */
  readonly name: string;
  /**
   * Opens (creating if empty, recovering after a crash) the log stored in `storage`. Use only
   * `storage` for I/O, and let its errors (`PAGELOG_POWER_CUT` above all) propagate.
   */
  open(storage: Storage): Promise<AdapterLog>;
}

export interface CrashTestProgress {
  /** Schedules finished so far. */
  readonly schedules: number;
  /** Power cuts so far (every schedule has at least one). */
  readonly powerCuts: number;
  /** Values the reopened logs held after their final recovery, summed. */
  readonly recordsRecovered: number;
  readonly violations: number;
}

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
   * At most this many steps (append, flush, reopen, write-back, crash) per workload.
   * @defaultValue 30
   */
  maxOps?: number;
  /**
   * Throw a `CrashTestError` (whose message has the seed and a replay hint) when a schedule
   * breaks a guarantee. `false` runs every schedule and reports violations in the summary.
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
}

export interface CrashTestSummary {
  readonly adapter: string;
  readonly seed: number;
  readonly schedules: number;
  readonly powerCuts: number;
  readonly recordsRecovered: number;
  readonly violations: readonly CrashTestViolation[];
}

/** Thrown by `crashTest` (unless `throwOnViolation: false`) when a guarantee broke. */
export class CrashTestError extends Error {
  override readonly name = "CrashTestError";
  readonly summary: CrashTestSummary;
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
  [K in keyof Required<CrashTestOptions>]: K extends "onProgress"
    ? CrashTestOptions[K]
    : NonNullable<CrashTestOptions[K]>;
};

function resolve(options: CrashTestOptions): Resolved {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const r: Resolved = {
    schedules: options.schedules ?? 100,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    maxOps: options.maxOps ?? 30,
    throwOnViolation: options.throwOnViolation ?? true,
    failFast: options.failFast ?? true,
    onProgress: options.onProgress,
  };
  if (!Number.isSafeInteger(r.schedules) || r.schedules < 0)
    throw new TypeError(`options.schedules must be a non-negative integer, got ${String(r.schedules)}`);
  if (!Number.isSafeInteger(r.seed)) throw new TypeError(`options.seed must be a safe integer, got ${String(r.seed)}`);
  if (!Number.isSafeInteger(r.maxOps) || r.maxOps < 1)
    throw new TypeError(`options.maxOps must be a positive integer, got ${String(r.maxOps)}`);
  if (r.onProgress !== undefined && typeof r.onProgress !== "function")
    throw new TypeError("options.onProgress must be a function");
  return r;
}

/**
 * Runs `options.schedules` random power-cut schedules against the adapter's log and checks every
 * reboot against a model. Resolves with a summary; rejects with a `CrashTestError` on a violation
 * (unless `throwOnViolation: false`).
 */
export async function crashTest(adapter: CrashTestAdapter, options: CrashTestOptions = {}): Promise<CrashTestSummary> {
  if (typeof adapter !== "object" || adapter === null || typeof adapter.open !== "function") {
    throw new TypeError("adapter must be { name, open(storage) }");
  }
  const o = resolve(options);
  const name = String(adapter.name ?? "adapter");
  // Schedule 0 runs the seed itself, so a violation's own seed replays it as schedule 0.
  const seeds = new Prng(o.seed);
  let powerCuts = 0;
  let recordsRecovered = 0;
  let run = 0;
  const violations: CrashTestViolation[] = [];
  for (; run < o.schedules;) {
    const seed = run === 0 ? o.seed : seeds.nextU32();
    try {
      const outcome = await runSchedule(adapter, seed, o.maxOps);
      powerCuts += outcome.powerCuts;
      recordsRecovered += outcome.recordsRecovered;
    } catch (err) {
      const message = violationMessage(err);
      violations.push({
        seed,
        message,
        replay: `crashTest(${name}, { seed: ${seed}, schedules: 1, maxOps: ${o.maxOps} })`,
      });
    }
    run++;
    o.onProgress?.({ schedules: run, powerCuts, recordsRecovered, violations: violations.length });
    if (violations.length > 0 && o.failFast) break;
  }
  const summary: CrashTestSummary = {
    adapter: name,
    seed: o.seed,
    schedules: run,
    powerCuts,
    recordsRecovered,
    violations,
  };
  if (violations.length > 0 && o.throwOnViolation) throw new CrashTestError(summary);
  return summary;
}

// ---------------------------------------------------------------------------------------------
// One schedule.

type Step =
  | { readonly kind: "append"; readonly sizes: readonly number[] }
  | { readonly kind: "flush" }
  | { readonly kind: "reopen" }
  | { readonly kind: "writeback"; readonly pages: number }
  | { readonly kind: "crash" };

interface Workload {
  readonly steps: readonly Step[];
  readonly pageSize: number;
  readonly sectorSize: number;
  readonly writeback: number;
  /** First cut, as a fraction of the workload's storage operations. */
  readonly cutAt: number;
  /** Further cuts inside the reopen's recovery, in storage operations, one per level. */
  readonly nestedCuts: readonly number[];
}

/** crashTest's reports show the last 25 steps. */
class Violation extends CrashViolation {
  constructor(message: string, trace: readonly string[]) {
    super(message, trace, 25);
  }
}

function generate(seed: number, maxOps: number): Workload {
  const prng = new Prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[prng.int(xs.length)]!;
  const steps: Step[] = [];
  const n = 1 + prng.int(maxOps);
  // Value sizes: often all equal, so that a stale value left behind a cut lines up exactly after
  // a new one (how a truncation that was not made durable resurrects data); else a few small
  // sizes, sometimes large ones spanning pages.
  const palette = pick([[16], [16], [16, 24], [16, 24, 40]]); // 16: the unique head alone
  const large = pick([0, 0.1, 0.3]);
  for (let i = 0; i < n; i++) {
    const r = prng.float();
    if (r < 0.5) {
      const count = 1 + prng.int(4);
      const sizes = Array.from({ length: count }, () => (prng.float() < large ? prng.int(1500) : pick(palette)));
      steps.push({ kind: "append", sizes });
    } else if (r < 0.65) steps.push({ kind: "flush" });
    else if (r < 0.72) steps.push({ kind: "reopen" });
    else if (r < 0.84) steps.push({ kind: "writeback", pages: 1 + prng.int(4) });
    else steps.push({ kind: "crash" });
  }
  const pageSize = pick([64, 256, 4096]);
  const sectorSize = pick([16, 64, 512].filter((s) => s <= pageSize));
  const nested = prng.int(3);
  return {
    steps,
    pageSize,
    sectorSize,
    writeback: pick([0, 0, 0.05, 0.3]),
    cutAt: prng.float(),
    nestedCuts: Array.from({ length: nested }, () => prng.int(40)),
  };
}

interface Outcome {
  readonly powerCuts: number;
  readonly recordsRecovered: number;
  readonly workloadOps: number;
}

async function runSchedule(adapter: CrashTestAdapter, seed: number, maxOps: number): Promise<Outcome> {
  const workload = generate(seed, maxOps);
  // A dry run with the cut at the very end counts the workload's storage operations (and is a
  // schedule in its own right); then the same seed again, cut where `cutAt` says.
  return cutWhereSeeded(workload.cutAt, (cutAfter) => runCut(adapter, seed, workload, cutAfter));
}

const hex = (b: Uint8Array): string =>
  Array.from(b.subarray(0, 24), (x) => x.toString(16).padStart(2, "0")).join("") +
  (b.length > 24 ? `…(${b.length} bytes)` : "");
const latin1 = (b: Uint8Array): string => String.fromCharCode(...b);

/**
 * A unique value: its schedule, its sequence number, then filler up to `size` bytes. Unique
 * values are what make resurrection visible.
 */
function makeValue(seed: number, seq: number, size: number): Uint8Array {
  // A fixed-length head (16 bytes), so equal sizes give equal lengths.
  const head = `s${(seed >>> 0).toString(16).padStart(8, "0")}v${String(seq % 100000).padStart(5, "0")};`;
  const out = new Uint8Array(Math.max(size, head.length));
  for (let i = 0; i < head.length; i++) out[i] = head.charCodeAt(i);
  for (let i = head.length; i < out.length; i++) out[i] = 97 + ((seq + i) % 26);
  return out;
}

function describe(v: Uint8Array): string {
  const s = latin1(v.subarray(0, 32));
  if (v.length === 0) return "an empty value";
  return /^s[0-9a-f]{8}v\d{5};/.test(s) ? s.slice(0, s.indexOf(";")) + `(${v.length}B)` : `0x${hex(v)}`;
}

function isPowerCut(err: unknown, storage: SimStorage): boolean {
  // An adapter may wrap or replace the storage's error; the storage knows whether it lost power.
  return storage.poweredOff || (err instanceof PagelogError && err.code === ErrorCode.POWER_CUT);
}

async function runCut(
  adapter: CrashTestAdapter,
  seed: number,
  workload: Workload,
  cutAfter: number,
): Promise<Outcome & { powerCuts: number }> {
  const trace: string[] = [];
  let sim = new SimStorage({
    seed,
    pageSize: workload.pageSize,
    sectorSize: workload.sectorSize,
    writeback: workload.writeback,
    traceLimit: 0,
  });
  let seq = 0;
  /** The log's contents after the last resolved call. */
  let state: Uint8Array[] = [];
  /** How many leading values a resolved flush or close made durable. */
  let durable = 0;
  /** What the call in flight at the cut would have made of the log. */
  let inFlight: Uint8Array[] | undefined;
  let powerCuts = 0;
  let opsBefore = 0;

  const reopen = async (when: string, cutInRecovery: readonly number[]): Promise<AdapterLog> => {
    // Reboot; cut again inside the reopen's recovery, one level per entry; then reopen for good.
    const done = await recoverThroughNestedCuts<AdapterLog>(
      {
        cuts: cutInRecovery,
        trace,
        reboot: (_level, cut) => {
          sim = sim.crash();
          if (cut !== undefined) sim.scheduleCrash({ afterOps: cut });
        },
        openAndCheck: async (moment) => {
          const log = await adapter.open(sim);
          check(await log.readAll(), moment);
          return log;
        },
        isPowerCut: (err) => isPowerCut(err, sim),
        reopenFailed: (err) =>
          new Violation(`${when}: reopening failed: ${(err as Error)?.stack ?? String(err)}`, trace),
      },
      when,
    );
    powerCuts += done.powerCuts;
    return done.log;
  };

  /** Checks what a reopen read back, and makes it the model's state. */
  const check = (found: Uint8Array[], when: string): void => {
    const problems: string[] = [];
    for (const candidate of inFlight === undefined ? [state] : [state, inFlight]) {
      const problem = comparePrefix(found, candidate, durable);
      if (problem === undefined) {
        trace.push(`${when}: ok, ${found.length} value(s) (durable were ${durable}, appended ${candidate.length})`);
        // What survived is the truth from now on, and it is durable: recovery made it so.
        state = found;
        durable = found.length;
        inFlight = undefined;
        return;
      }
      problems.push(problem);
    }
    throw new Violation(`${when}: the log read back is no allowed state: ${problems.join(" | ")}`, trace);
  };

  let log = await adapter.open(sim);
  let opsAtStart = sim.opCount;
  sim.scheduleCrash({ afterOps: cutAfter });
  trace.push(
    `seed ${seed}: pageSize ${workload.pageSize}, sectorSize ${workload.sectorSize}, write-back ${workload.writeback}; cut after ${cutAfter === Number.MAX_SAFE_INTEGER ? "the workload" : `${cutAfter} storage op(s)`}`,
  );
  let cutInWorkload = false;
  try {
    for (const [i, step] of workload.steps.entries()) {
      inFlight = undefined;
      switch (step.kind) {
        case "append": {
          const values = step.sizes.map((size) => makeValue(seed, seq++, size));
          inFlight = [...state, ...values];
          trace.push(`#${i} append [${values.map(describe).join(", ")}]`);
          await log.append(values);
          state = inFlight;
          break;
        }
        case "flush":
          trace.push(`#${i} flush`);
          await log.flush();
          durable = state.length;
          break;
        case "reopen": {
          trace.push(`#${i} close + reopen`);
          await log.close();
          durable = state.length;
          log = await adapter.open(sim);
          const found = await log.readAll();
          const problem = comparePrefix(found, state, state.length);
          if (problem === undefined && found.length !== state.length)
            throw new Violation(
              `after a clean close and reopen: ${found.length} value(s), expected exactly ${state.length}`,
              trace,
            );
          if (problem !== undefined) throw new Violation(`after a clean close and reopen: ${problem}`, trace);
          break;
        }
        case "writeback":
          trace.push(`#${i} the OS writes back ${step.pages} dirty page(s)`);
          sim.writeback({ pages: step.pages });
          break;
        case "crash":
          // A power cut between calls: nothing in flight. Recovery's result becomes the model, so
          // a value it dropped must never come back later.
          trace.push(`#${i} POWER CUT between calls`);
          opsBefore += sim.opCount - opsAtStart;
          log = await reopen(`#${i} after the power cut`, []);
          opsAtStart = sim.opCount;
          sim.scheduleCrash({ afterOps: Math.max(0, cutAfter - opsBefore) });
          break;
      }
    }
    inFlight = undefined;
  } catch (err) {
    if (err instanceof CrashViolation) throw err;
    if (!isPowerCut(err, sim))
      throw new Violation(`unexpected error from the log: ${(err as Error)?.stack ?? String(err)}`, trace);
    cutInWorkload = true;
    trace.push(
      `POWER CUT at storage op ${opsBefore + sim.opCount - opsAtStart}${inFlight === undefined ? "" : " (an append was in flight)"}`,
    );
  }
  const workloadOps = opsBefore + sim.opCount - opsAtStart;
  if (!cutInWorkload) trace.push("workload done; POWER CUT at the end");

  log = await reopen("after the final power cut", workload.nestedCuts);
  const recovered = state.length;

  // Progress: an append after recovery lands at the end, and a clean close + reopen is exact.
  const extra = makeValue(seed, seq++, 8);
  trace.push(`append [${describe(extra)}] after recovery, close, reopen`);
  try {
    await log.append([extra]);
    state = [...state, extra];
    await log.close();
    log = await adapter.open(sim);
    const found = await log.readAll();
    const problem = comparePrefix(found, state, state.length);
    if (problem !== undefined || found.length !== state.length) {
      throw new Violation(
        `progress: after recovery, an append and a clean close, reopening gave ${found.length} value(s), expected exactly ${state.length}${problem === undefined ? "" : `: ${problem}`}`,
        trace,
      );
    }
    await log.close();
  } catch (err) {
    if (err instanceof CrashViolation) throw err;
    throw new Violation(`progress: the log failed after recovery: ${(err as Error)?.stack ?? String(err)}`, trace);
  }
  return { powerCuts, recordsRecovered: recovered, workloadOps };
}

/** Undefined if `found` is a prefix of `appended` at least `durable` long; else what is wrong. */
function comparePrefix(
  found: readonly Uint8Array[],
  appended: readonly Uint8Array[],
  durable: number,
): string | undefined {
  for (const [i, v] of found.entries()) {
    const want = appended[i];
    if (want === undefined)
      return `value #${i} ${describe(v)} was never appended there (only ${appended.length} value(s) were)`;
    if (v.length !== want.length || v.some((b, j) => b !== want[j]))
      return `value #${i} is ${describe(v)}, expected ${describe(want)}`;
  }
  if (found.length < durable) {
    return `durability: ${found.length} value(s) read back, but ${durable} were covered by a resolved flush or close (first lost: ${describe(appended[found.length]!)})`;
  }
  return undefined;
}
