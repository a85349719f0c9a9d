/**
 * One schedule, run and checked: the workload against the adapter's log on a fresh
 * `SimStorage`, the power cut after a chosen storage operation (and again, several levels deep,
 * while the reopen recovers), then reboot, reopen, and check the model (`model.ts`), the log's
 * own self-checks, and progress: an append after recovery lands at the end and a clean close and
 * reopen gives back exactly what is there.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { SimStorage, type TraceEvent } from "../../storage/sim-storage.js";
import type {
  AdapterLog,
  CrashTestAdapter,
  CrashTestContext,
  ExtraStep,
  FailedCall,
  SelfCheckMoment,
} from "./adapter.js";
import { cutWhereSeeded, recoverThroughNestedCuts } from "./cuts.js";
import {
  checkContents,
  describeValue,
  type LogState,
  makeRecord,
  type ModelRecord,
  readLog,
  toInput,
} from "./model.js";
import { describeStep, type Schedule, type Step } from "./schedule.js";
import { errorReport, policyFailure } from "./error-report.js";
import { CrashViolation } from "./violation.js";

export interface ScheduleOutcome {
  /** Whether the first cut fell inside the workload (false: it ran to the end first). */
  readonly cutInWorkload: boolean;
  /** Power cuts that happened in all, nested ones included. */
  readonly powerCuts: number;
  /** Records the final reopen found. */
  readonly recordsRecovered: number;
  /** Storage operations the workload ran before its cut. */
  readonly workloadOps: number;
  /** Human-readable steps, for a failure report. */
  readonly trace: readonly string[];
}

/**
 * Runs one schedule and checks it: first the whole workload with the cut at its end (a schedule
 * in its own right, which also counts its storage operations), then the same seed again, cut
 * where `cutAt` says. Rejects with a `CrashViolation` when a guarantee broke.
 */
export async function runSchedule(adapter: CrashTestAdapter, schedule: Schedule): Promise<ScheduleOutcome> {
  return cutWhereSeeded(schedule.cutAt, (cutAfter) => runCut(adapter, schedule, cutAfter));
}

/** A clock that moves only when the workload says. */
class ManualClock {
  t = 1_700_000_000_000;
  now = (): number => this.t;
}

const errorText = errorReport;

/** The method each extra step calls. */
const METHOD_OF: Record<ExtraStep, keyof AdapterLog | undefined> = {
  concurrentAppends: undefined,
  truncate: "truncateTo",
  deleteBefore: "deleteBefore",
  checkpoint: "checkpoint",
  faults: undefined,
};

/** Opens the log, and checks that it has the methods its adapter's extra steps need. */
async function openLog(adapter: CrashTestAdapter, sim: SimStorage, context: CrashTestContext): Promise<AdapterLog> {
  const log = await adapter.open(sim, context);
  for (const extra of adapter.extraSteps ?? []) {
    const method = METHOD_OF[extra];
    if (method !== undefined && typeof log[method] !== "function")
      throw new TypeError(`adapter ${adapter.name} takes '${extra}' steps, but its log has no ${method}()`);
  }
  if ((extra(adapter, "truncate") || extra(adapter, "deleteBefore")) && typeof log.readRecords !== "function")
    throw new TypeError(
      `adapter ${adapter.name} moves offsets (truncate, deleteBefore), so its log needs readRecords()`,
    );
  return log;
}

const extra = (adapter: CrashTestAdapter, step: ExtraStep): boolean => (adapter.extraSteps ?? []).includes(step);

/** The call a step makes, for a `callFailed` self-check (a crash step's call is the reopen). */
const CALL_OF: Record<Step["kind"], FailedCall> = {
  append: "append",
  appendGroup: "append",
  flush: "flush",
  truncate: "truncate",
  deleteBefore: "deleteBefore",
  checkpoint: "checkpoint",
  reopen: "reopen",
  crash: "reopen",
  fault: "reopen",
  clock: "reopen",
  writeback: "reopen",
};

/**
 * Runs the workload with the power cut after exactly `cutAfter` storage operations (or at its
 * end), then reboots and checks, as `runSchedule` does for its random cut.
 */
export async function runCut(
  adapter: CrashTestAdapter,
  schedule: Schedule,
  cutAfter: number,
): Promise<ScheduleOutcome> {
  const trace: string[] = [];
  const clock = new ManualClock();
  const context: CrashTestContext = { clock, tuning: schedule.tuning };
  let sim = new SimStorage({
    seed: schedule.seed,
    pageSize: schedule.pageSize,
    sectorSize: schedule.sectorSize,
    writeback: schedule.writeback,
    traceLimit: 60,
  });
  let seq = 0;
  let state: LogState = { records: [], start: 0, durable: 0 };
  let inFlight: LogState | undefined;
  /** The storage operations before the most recent power cut, for a report. */
  let lastTrace: readonly TraceEvent[] = [];
  const isPowerCut = (err: unknown): boolean =>
    // An adapter may wrap or replace the storage's error; the storage knows whether it lost power.
    sim.poweredOff || (err instanceof PagelogError && err.code === ErrorCode.POWER_CUT);

  const selfCheck = async (log: AdapterLog, moment: SelfCheckMoment, when: string): Promise<void> => {
    if (typeof log.selfCheck !== "function") return;
    try {
      await log.selfCheck(moment);
    } catch (err) {
      if (isPowerCut(err)) throw err;
      throw new CrashViolation(
        `${when}: the log's self-check failed: ${(err as Error)?.message ?? String(err)}`,
        trace,
      );
    }
  };
  /** The durable point after a resolved call: what its rule says, or more if the log claims more. */
  const claimed = (log: AdapterLog, byRule: number, end: number): number =>
    // A claim past the end covers all there is.
    typeof log.durableEnd === "function" ? Math.max(byRule, Math.min(log.durableEnd(), end)) : byRule;
  const check = async (log: AdapterLog, pending: LogState | undefined, when: string): Promise<LogState> =>
    checkContents(await readLog(log), state, pending, trace, when);

  let log: AdapterLog;
  try {
    log = await openLog(adapter, sim, context);
  } catch (err) {
    // The log under test could not even start on an empty disk: its failure, not the harness's.
    trace.push(`open (${adapter.name}) on an empty disk: failed`);
    throw new CrashViolation(`opening the log failed: ${errorText(err)}`, trace);
  }
  // The cut counts operations across the reboots of "crash" steps: ops done on earlier disks.
  let opsBefore = 0;
  let opsAtStart = sim.opCount;
  sim.scheduleCrash({ afterOps: cutAfter });
  trace.push(
    `open (${adapter.name}): pageSize ${schedule.pageSize}, sectorSize ${schedule.sectorSize}, write-back ${schedule.writeback}; ` +
      `cut ${cutAfter === Number.MAX_SAFE_INTEGER ? "at the end" : `after ${cutAfter} storage op(s)`}`,
  );

  let powerCutsInWorkload = 0;
  /** Power cut now, reboot, reopen and check; what recovery found is the state from then on. */
  const reboot = async (pending: LogState | undefined, when: string): Promise<void> => {
    powerCutsInWorkload++;
    opsBefore += sim.opCount - opsAtStart;
    lastTrace = sim.trace.slice(-40);
    sim = sim.crash();
    opsAtStart = sim.opCount;
    sim.scheduleCrash({ afterOps: Math.max(0, cutAfter - opsBefore) });
    log = await openLog(adapter, sim, context);
    state = await check(log, pending, when);
    // Self-checks after every recovery, not only the last: a recovery that leaves a lookup wrong
    // is caught where it happens, before later work can heal or hide it.
    await selfCheck(log, { kind: "recovered" }, when);
  };

  /** Appends the records of each call, all in flight at once; checks the offsets the log gives. */
  const append = async (calls: ReadonlyArray<readonly ModelRecord[]>): Promise<void> => {
    const base = state.records.length;
    inFlight = { ...state, records: [...state.records.slice(0, base), ...calls.flat()] };
    const one = async (records: readonly ModelRecord[]): Promise<number | undefined> => {
      if (typeof log.appendRecords === "function") return (await log.appendRecords(records.map(toInput)))?.baseOffset;
      await log.append(records.map((r) => r.value));
      return undefined;
    };
    const bases = await Promise.all(calls.map(one));
    let want = base;
    for (const [i, got] of bases.entries()) {
      if (got !== undefined && got !== want)
        throw new CrashViolation(
          `append #${i} of the step got base offset ${got}, expected ${want} (call order)`,
          trace,
        );
      want += calls[i]!.length;
    }
    state = { ...inFlight, durable: claimed(log, state.durable, inFlight.records.length) };
  };

  const runStep = async (s: Step): Promise<void> => {
    switch (s.kind) {
      case "append":
      case "appendGroup": {
        const shapes = s.kind === "append" ? [s.records] : s.calls;
        await append(shapes.map((call) => call.map((shape) => makeRecord(shape, seq++, clock.t))));
        break;
      }
      case "flush":
        await log.flush();
        await selfCheck(log, { kind: "flushed" }, "after flush");
        state = { ...state, durable: claimed(log, state.records.length, state.records.length) };
        break;
      case "truncate": {
        const to = Math.max(state.start, state.records.length - s.back);
        // Cut short by a crash, a truncation may have dropped any part of the tail from `to` on:
        // any prefix of the old records at least `to` long.
        inFlight = { ...state, durable: Math.min(state.durable, to) };
        await log.truncateTo!(to);
        state = {
          ...state,
          records: state.records.slice(0, to),
          durable: claimed(log, Math.min(state.durable, to), to),
        };
        break;
      }
      case "deleteBefore": {
        const to = Math.min(state.records.length, state.start + s.forward);
        inFlight = { ...state, start: Math.max(state.start, to) };
        await log.deleteBefore!(to);
        state = { ...inFlight, durable: claimed(log, state.durable, state.records.length) };
        break;
      }
      case "checkpoint":
        await log.checkpoint!();
        break;
      case "reopen":
        await log.close();
        state = { ...state, durable: state.records.length };
        log = await openLog(adapter, sim, context);
        state = await check(log, undefined, "after a clean close and reopen");
        await selfCheck(log, { kind: "reopened" }, "after a clean close and reopen");
        break;
      case "crash":
        // A power cut between calls: nothing in flight. Recovery's result becomes the model, so a
        // value it dropped must never come back later.
        await reboot(undefined, "after a crash step");
        break;
      case "fault":
        sim.injectFault({ op: s.op, code: s.code });
        break;
      case "clock":
        clock.t += s.ms;
        break;
      case "writeback":
        sim.writeback({ pages: s.pages });
        break;
    }
  };

  let cutInWorkload = false;
  let armed = false; // an injected fault has not fired yet
  let running: string | undefined; // the step a failure happened in, for the report
  try {
    for (const [i, s] of schedule.steps.entries()) {
      inFlight = undefined;
      const step = `#${i} ${describeStep(s)}`;
      running = step;
      try {
        await runStep(s);
        if (s.kind === "fault") armed = true;
      } catch (err) {
        // An injected I/O fault must fail the call that meets it: then reboot, as an operator
        // would, and check that nothing durable was lost.
        if (!armed || isPowerCut(err) || err instanceof CrashViolation) throw err;
        armed = false;
        await selfCheck(log, { kind: "callFailed", call: CALL_OF[s.kind], error: err }, step);
        trace.push(`${step} failed loudly (${err instanceof PagelogError ? err.code : String(err)}); rebooting`);
        await reboot(inFlight, `after the failure of ${step}`);
        continue;
      }
      trace.push(`${step} -> [${state.start}, ${state.records.length}), durable ${state.durable}`);
    }
    inFlight = undefined;
  } catch (err) {
    if (err instanceof CrashViolation) throw err;
    if (!isPowerCut(err)) {
      // A reader's policy failing is their bug: say where, and what they returned or threw.
      throw new CrashViolation(
        policyFailure(err) === undefined
          ? `unexpected error in the workload (step ${running}): ${errorText(err)}`
          : `step ${running}: ${errorText(err)}`,
        trace,
      );
    }
    cutInWorkload = true;
    trace.push(`POWER CUT after op ${sim.opCount}${inFlight === undefined ? "" : " (a call was in flight)"}`);
  }
  const workloadOps = opsBefore + sim.opCount - opsAtStart;
  if (!cutInWorkload) trace.push(`workload done; POWER CUT at the end (op ${sim.opCount})`);

  // Reboot, with further cuts inside the reopen's recovery, then a final clean-power reopen.
  let found: LogState | undefined;
  const recovery = await recoverThroughNestedCuts(
    {
      cuts: schedule.nestedCuts,
      trace,
      reboot: (level, cut) => {
        lastTrace = sim.trace.slice(-40);
        sim = sim.crash(level === 0 ? schedule.firstCrash?.(sim.pendingState()) : undefined);
        if (cut !== undefined) sim.scheduleCrash({ afterOps: cut });
      },
      openAndCheck: async (moment) => {
        log = await openLog(adapter, sim, context);
        found = await check(log, inFlight, moment);
        return log;
      },
      recoveredBeforeCut: async (reopened) => {
        await selfCheck(reopened, { kind: "recovered" }, "recovery before its cut");
        // Recovery finished before the cut, and made what it found durable: that is the state a
        // further cut (now) must keep exactly.
        state = found!;
        inFlight = undefined;
      },
      isPowerCut,
      reopenFailed: async (err) =>
        new CrashViolation(`reopen failed: ${errorText(err)}\n${await describeDisk(sim, lastTrace)}`, trace),
    },
    "after recovery",
  );
  log = recovery.log;
  state = found!;
  inFlight = undefined;
  await selfCheck(log, { kind: "recovered" }, "after recovery");
  const recovered = state.records.length - state.start;

  // Progress: an append lands at the end, and a clean close then reopen is exact.
  try {
    await append([[makeRecord({ valueBytes: 8, keyed: true, headers: 0, tsDelta: 0 }, seq++, clock.t)]]);
    trace.push(`append ${describeValue(state.records.at(-1)!.value)} after recovery, close, reopen`);
    await log.close();
    state = { ...state, durable: state.records.length };
    log = await openLog(adapter, sim, context);
    await check(log, undefined, "progress: a clean close after recovery is exact");
    await selfCheck(log, { kind: "reopened" }, "progress: reopened after a clean close");
    await log.close();
  } catch (err) {
    if (err instanceof CrashViolation) throw err;
    throw new CrashViolation(`progress: the log failed after recovery: ${errorText(err)}`, trace);
  }
  return {
    cutInWorkload,
    powerCuts: powerCutsInWorkload + recovery.powerCuts,
    recordsRecovered: recovered,
    workloadOps,
    trace,
  };
}

/** Every file the rebooted disk holds, with its size, and the operations before the cut. */
async function describeDisk(sim: SimStorage, lastTrace: readonly TraceEvent[]): Promise<string> {
  try {
    const lines = ["disk:"];
    const walk = async (dir: string, depth: number): Promise<void> => {
      for (const name of (await sim.list(dir)).sort()) {
        const path = dir === "" ? name : `${dir}/${name}`;
        const stat = await sim.stat(path);
        lines.push(`  ${"  ".repeat(depth)}${name}${stat?.kind === "dir" ? "/" : ` ${stat?.size ?? "?"} bytes`}`);
        if (stat?.kind === "dir" && depth < 4) await walk(path, depth + 1);
      }
    };
    await walk("", 0);
    lines.push("storage operations before the last power cut (most recent last):");
    for (const e of lastTrace)
      lines.push(
        `  ${e.seq} ${e.op} ${e.path}${e.detail === undefined ? "" : ` ${e.detail}`}${e.error === undefined ? "" : ` -> ${e.error}`}`,
      );
    return lines.join("\n");
  } catch (err) {
    return `disk: unreadable (${String(err)})`;
  }
}
