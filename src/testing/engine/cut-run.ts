/**
 * One run of a schedule with its power cut after a given number of storage operations: the
 * state that run carries (the simulated disk, the log, the model, the trace) and its phases, in
 * order: open on an empty disk, the workload (rebooting at crash steps and after injected
 * faults), the recovery through nested cuts, and the progress check after it.
 */
import { ErrorCode, isPagelogBug, PagelogError } from "../../errors.js";
import { SimStorage, type TraceEvent } from "../../storage/sim-storage.js";
import type { AdapterLog, CrashTestAdapter, CrashTestContext, FailedCall, SelfCheckMoment } from "./adapter.js";
import { recoverThroughNestedCuts } from "./cuts.js";
import { errorReport, policyFailure } from "./error-report.js";
import { COMPACTION_RULES, mayHaveCleaned, truncatedCompaction } from "./workloads/compaction-model.js";
import {
  checkContents,
  describeRecordValue,
  emptyState,
  foundEnd,
  type ModelLog,
  makeRecord,
  type ModelRecord,
  readLog,
  toInput,
} from "./workloads/model.js";
import { describeDisk, openEngineLog } from "./open-log.js";
import { FAULT_DECISION, type Reach, ReachCounter } from "./reach.js";
import { checkRecoveredFiles } from "./recovered-files.js";
import { describeStep, type Schedule, type Step } from "./schedule.js";
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
  /** How often each decision fired (see reach.ts). */
  readonly reach: Reach;
  /** The storage operations of each `compact` call, as [first, end) workload op counts. */
  readonly cleaningOps: ReadonlyArray<readonly [number, number]>;
}

/** A clock that moves only when the workload says. */
class ManualClock {
  t = 1_700_000_000_000;
  now = (): number => this.t;
}

/** The call a step makes, for a `callFailed` self-check (a crash step's call is the reopen). */
const CALL_OF: Record<Step["kind"], FailedCall> = {
  append: "append",
  appendGroup: "append",
  flush: "flush",
  truncate: "truncate",
  deleteBefore: "deleteBefore",
  checkpoint: "checkpoint",
  compact: "compact",
  reopen: "reopen",
  crash: "reopen",
  fault: "reopen",
  clock: "reopen",
  writeback: "reopen",
};

export class CutRun {
  readonly #adapter: CrashTestAdapter;
  readonly #schedule: Schedule;
  readonly #cutAfter: number;
  readonly #trace: string[] = [];
  readonly #clock = new ManualClock();
  readonly #context: CrashTestContext;
  #sim: SimStorage;
  #log: AdapterLog | undefined;
  /** Records made so far: each gets a unique value. */
  #seq = 0;
  /** The model: what the log must hold now. */
  #state: ModelLog;
  /** What the log may hold if the call running now is cut short. */
  #inFlight: ModelLog | undefined;
  /** The storage operations before the most recent power cut, for a report. */
  #lastTrace: readonly TraceEvent[] = [];
  /** The cut counts operations across the reboots of "crash" steps: ops done on earlier disks. */
  #opsBefore = 0;
  #opsAtStart = 0;
  #powerCutsInWorkload = 0;
  /** The op of the last injected fault (the trace names the one that fired, when it still holds it). */
  #faultOp: keyof typeof FAULT_DECISION | undefined;
  readonly #reach: ReachCounter;
  readonly #cleaningOps: Array<readonly [number, number]> = [];

  constructor(adapter: CrashTestAdapter, schedule: Schedule, cutAfter: number) {
    this.#adapter = adapter;
    this.#schedule = schedule;
    this.#cutAfter = cutAfter;
    this.#context = { clock: this.#clock, tuning: schedule.tuning };
    this.#state = emptyState(schedule.tuning);
    this.#reach = new ReachCounter((adapter.extraSteps ?? []).includes("faults"));
    if (this.#state.compaction !== undefined) this.#reach.add("records-cleaned", 0);
    this.#sim = new SimStorage({
      seed: schedule.seed,
      pageSize: schedule.pageSize,
      sectorSize: schedule.sectorSize,
      writeback: schedule.writeback,
      traceLimit: 60,
    });
  }

  /** The whole run: open, workload, recovery, progress. Rejects with a `CrashViolation`. */
  async run(): Promise<ScheduleOutcome> {
    await this.#openOnEmptyDisk();
    const cutInWorkload = await this.#runWorkload();
    const workloadOps = this.#workloadOps();
    if (!cutInWorkload) this.#trace.push(`workload done; POWER CUT at the end (op ${this.#sim.opCount})`);
    const recoveryCuts = await this.#recover();
    const recordsRecovered = this.#state.records.length - this.#state.start;
    await this.#checkProgress();
    return {
      cutInWorkload,
      powerCuts: this.#powerCutsInWorkload + recoveryCuts,
      recordsRecovered,
      workloadOps,
      trace: this.#trace,
      reach: this.#reach.reach,
      cleaningOps: this.#cleaningOps,
    };
  }

  /** Storage operations the workload has run so far, across its reboots. */
  #workloadOps(): number {
    return this.#opsBefore + this.#sim.opCount - this.#opsAtStart;
  }

  get #current(): AdapterLog {
    return this.#log!;
  }

  #isPowerCut(err: unknown): boolean {
    // A failed assertion of pagelog's (PAGELOG_BUG, itself or as a failed log's cause) is a
    // violation whenever it comes, even as the power goes: never taken for the cut's doing.
    if (isPagelogBug(err)) return false;
    // An adapter may wrap or replace the storage's error; the storage knows whether it lost power.
    return this.#sim.poweredOff || (err instanceof PagelogError && err.code === ErrorCode.POWER_CUT);
  }

  async #selfCheck(log: AdapterLog, moment: SelfCheckMoment, when: string): Promise<void> {
    if (typeof log.selfCheck !== "function") return;
    try {
      await log.selfCheck(moment);
    } catch (err) {
      if (this.#isPowerCut(err)) throw err;
      throw new CrashViolation(
        `${when}: the log's self-check failed: ${(err as Error)?.message ?? String(err)}`,
        this.#trace,
      );
    }
  }

  /** The durable point after a resolved call: what its rule says, or more if the log claims more. */
  #claimed(byRule: number, end: number): number {
    const log = this.#current;
    // A claim past the end covers all there is.
    return typeof log.durableEnd === "function" ? Math.max(byRule, Math.min(log.durableEnd(), end)) : byRule;
  }

  async #check(pending: ModelLog | undefined, when: string): Promise<ModelLog> {
    const rules = this.#state.compaction === undefined ? undefined : COMPACTION_RULES;
    const found = await readLog(this.#current);
    // A cleaning may have started since the last step (after a recovery, too): it reaches the
    // log's recovery point, which after a recovery is all it found.
    const reach = (s: ModelLog): number => this.#claimed(s.durable, foundEnd(found));
    const state = mayHaveCleaned(this.#state, this.#clock.t, reach(this.#state));
    const inFlight = pending === undefined ? undefined : mayHaveCleaned(pending, this.#clock.t, reach(pending));
    return checkContents(found, state, inFlight, this.#trace, when, rules);
  }

  /** Counts a cleaning as possibly started now (a compacted log only): at every step's start and end. */
  #mayHaveCleaned(): void {
    const s = this.#state;
    this.#state = mayHaveCleaned(s, this.#clock.t, this.#claimed(s.durable, s.records.length));
  }

  /** Opens the log; what a reopen decided counts (`counted`: not the first open, on an empty disk). */
  async #open(counted = true): Promise<AdapterLog> {
    const log = await openEngineLog(this.#adapter, this.#sim, this.#context);
    this.#log = log;
    if (counted) this.#reach.addOpen(log.recoveryDecisions?.());
    return log;
  }

  /** Cuts the power (if a scheduled cut has not already) and boots the disk it leaves. */
  #crash(level0Chooser?: Parameters<SimStorage["crash"]>[0]): void {
    this.#sim = this.#sim.crash(level0Chooser);
    this.#reach.addCrash(this.#sim.lastCrash);
  }

  async #openOnEmptyDisk(): Promise<void> {
    try {
      await this.#open(false);
    } catch (err) {
      // The log under test could not even start on an empty disk: its failure, not the harness's.
      this.#trace.push(`open (${this.#adapter.name}) on an empty disk: failed`);
      throw new CrashViolation(`opening the log failed: ${errorReport(err)}`, this.#trace);
    }
    this.#opsAtStart = this.#sim.opCount;
    this.#sim.scheduleCrash({ afterOps: this.#cutAfter });
    const { pageSize, sectorSize, writeback } = this.#schedule;
    this.#trace.push(
      `open (${this.#adapter.name}): pageSize ${pageSize}, sectorSize ${sectorSize}, write-back ${writeback}; ` +
        `cut ${this.#cutAfter === Number.MAX_SAFE_INTEGER ? "at the end" : `after ${this.#cutAfter} storage op(s)`}`,
    );
  }

  /** Runs the steps until the power cut or the end; resolves with whether the cut fell inside. */
  async #runWorkload(): Promise<boolean> {
    let running: string | undefined; // the step a failure happened in, for the report
    try {
      let armed = false; // an injected fault has not fired yet
      for (const [i, s] of this.#schedule.steps.entries()) {
        this.#inFlight = undefined;
        const step = `#${this.#schedule.stepNumbers?.[i] ?? i} ${describeStep(s)}`;
        running = step;
        try {
          this.#mayHaveCleaned();
          await this.#runStep(s);
          this.#mayHaveCleaned();
          if (s.kind === "fault") armed = true;
        } catch (err) {
          // An injected I/O fault must fail the call that meets it: then reboot, as an operator
          // would, and check that nothing durable was lost.
          if (!armed || this.#isPowerCut(err) || err instanceof CrashViolation || isPagelogBug(err)) throw err;
          armed = false;
          await this.#afterFailedCall(s, step, err);
          continue;
        }
        const { start, records, durable } = this.#state;
        this.#trace.push(`${step} -> [${start}, ${records.length}), durable ${durable}`);
      }
      this.#inFlight = undefined;
      return false;
    } catch (err) {
      if (err instanceof CrashViolation) throw err;
      if (!this.#isPowerCut(err)) {
        // A reader's policy failing is their bug: say where, and what they returned or threw.
        throw new CrashViolation(
          policyFailure(err) === undefined
            ? `unexpected error in the workload (step ${running}): ${errorReport(err)}`
            : `step ${running}: ${errorReport(err)}`,
          this.#trace,
        );
      }
      if (this.#inFlight !== undefined) this.#reach.add("cut-in-call");
      const inFlight = this.#inFlight === undefined ? "" : " (a call was in flight)";
      this.#trace.push(`POWER CUT after op ${this.#sim.opCount}${inFlight}`);
      return true;
    }
  }

  /** A call failed loudly on an injected fault: the log checks itself, then the machine reboots. */
  async #afterFailedCall(s: Step, step: string, err: unknown): Promise<void> {
    this.#reach.add(FAULT_DECISION[this.#firedFaultOp()]);
    await this.#selfCheck(this.#current, { kind: "callFailed", call: CALL_OF[s.kind], error: err }, step);
    this.#trace.push(`${step} failed loudly (${err instanceof PagelogError ? err.code : String(err)}); rebooting`);
    await this.#reboot(this.#inFlight, `after the failure of ${step}`);
  }

  /** The op of the injected fault that fired: the trace's last failed op, else the last one injected. */
  #firedFaultOp(): keyof typeof FAULT_DECISION {
    const failed = [...this.#sim.trace].reverse().find((e) => e.error !== undefined && e.error !== ErrorCode.POWER_CUT);
    const op = failed?.op;
    return op === "sync" || op === "write" || op === "syncDir" ? op : this.#faultOp!;
  }

  /** Power cut now, reboot, reopen and check; what recovery found is the state from then on. */
  async #reboot(pending: ModelLog | undefined, when: string): Promise<void> {
    this.#powerCutsInWorkload++;
    this.#opsBefore += this.#sim.opCount - this.#opsAtStart;
    this.#lastTrace = this.#sim.trace.slice(-40);
    this.#crash();
    this.#opsAtStart = this.#sim.opCount;
    this.#sim.scheduleCrash({ afterOps: Math.max(0, this.#cutAfter - this.#opsBefore) });
    await this.#open();
    this.#state = await this.#check(pending, when);
    checkRecoveredFiles(this.#sim, this.#current, this.#trace, when);
    // Self-checks after every recovery, not only the last: a recovery that leaves a lookup wrong
    // is caught where it happens, before later work can heal or hide it.
    await this.#selfCheck(this.#current, { kind: "recovered" }, when);
  }

  async #runStep(s: Step): Promise<void> {
    switch (s.kind) {
      case "append":
      case "appendGroup": {
        const shapes = s.kind === "append" ? [s.records] : s.calls;
        await this.#append(shapes.map((call) => call.map((shape) => makeRecord(shape, this.#seq++, this.#clock.t))));
        break;
      }
      case "flush":
        return this.#flush();
      case "truncate":
        return this.#truncate(s.back);
      case "deleteBefore":
        return this.#deleteBefore(s.forward);
      case "checkpoint":
        await this.#current.checkpoint!();
        break;
      case "compact":
        return this.#compact();
      case "reopen":
        return this.#cleanReopen();
      case "crash":
        // A power cut between calls: nothing in flight. Recovery's result becomes the model, so a
        // value it dropped must never come back later.
        this.#reach.add("crash-step");
        return this.#reboot(undefined, "after a crash step");
      case "fault":
        this.#sim.injectFault({ op: s.op, code: s.code });
        this.#faultOp = s.op;
        break;
      case "clock":
        this.#clock.t += s.ms;
        break;
      case "writeback":
        this.#sim.writeback({ pages: s.pages });
        break;
    }
  }

  /** Appends the records of each call, all in flight at once; checks the offsets the log gives. */
  async #append(calls: ReadonlyArray<readonly ModelRecord[]>): Promise<void> {
    const base = this.#state.records.length;
    const inFlight = { ...this.#state, records: [...this.#state.records.slice(0, base), ...calls.flat()] };
    this.#inFlight = inFlight;
    const one = async (records: readonly ModelRecord[]): Promise<number | undefined> => {
      const log = this.#current;
      if (typeof log.appendRecords === "function") return (await log.appendRecords(records.map(toInput)))?.baseOffset;
      await log.append(records.map((r) => r.value ?? new Uint8Array(0))); // tombstones need appendRecords
      return undefined;
    };
    const bases = await Promise.all(calls.map(one));
    let want = base;
    for (const [i, got] of bases.entries()) {
      if (got !== undefined && got !== want)
        throw new CrashViolation(
          `append #${i} of the step got base offset ${got}, expected ${want} (call order)`,
          this.#trace,
        );
      want += calls[i]!.length;
    }
    this.#state = { ...inFlight, durable: this.#claimed(this.#state.durable, inFlight.records.length) };
  }

  async #flush(): Promise<void> {
    await this.#current.flush();
    await this.#selfCheck(this.#current, { kind: "flushed" }, "after flush");
    const end = this.#state.records.length;
    this.#state = { ...this.#state, durable: this.#claimed(end, end) };
  }

  async #truncate(back: number): Promise<void> {
    const state = this.#state;
    const to = Math.max(state.start, state.records.length - back);
    // Cut short by a crash, a truncation may have dropped any part of the tail from `to` on:
    // any prefix of the old records at least `to` long.
    // A compacted log's records that a cleaning could drop for a later one of their key stay
    // allowed to be missing whether the cut came before or after the truncation: below `to`
    // once it resolved, and, while it runs, below wherever the cut stopped it — a prefix left
    // there is a truncation to that point, whose cleanings ran on the records of before.
    const truncated = state.compaction && truncatedCompaction(state.compaction, to, state.records);
    const c = truncated === undefined ? {} : { compaction: truncated };
    const anyCut = state.compaction && truncatedCompaction(state.compaction, state.records.length, state.records);
    const mayGo = anyCut === undefined ? {} : { compaction: { ...state.compaction!, mayGo: anyCut.mayGo! } };
    this.#inFlight = { ...state, durable: Math.min(state.durable, to), ...mayGo };
    await this.#current.truncateTo!(to);
    this.#state = {
      ...state,
      records: state.records.slice(0, to),
      durable: this.#claimed(Math.min(state.durable, to), to),
      ...c,
    };
  }

  /**
   * Runs the cleaner (a compacted log's `compact` step), then checks that the log is a valid
   * compaction: from here on, what it dropped must never come back (it is durable when the call
   * resolves).
   */
  async #compact(): Promise<void> {
    const state = this.#state;
    const c = state.compaction;
    if (c === undefined) throw new Error("a compact step needs a schedule with a compacting cleanupPolicy");
    // The cleaner reaches up to the recovery point: the durable point bounds it.
    const cleaning = { at: this.#clock.t, durable: this.#claimed(state.durable, state.records.length) };
    this.#state = { ...state, compaction: { ...c, cleanings: [...c.cleanings, cleaning] } };
    this.#inFlight = this.#state;
    const from = this.#workloadOps();
    await this.#current.compact!();
    this.#cleaningOps.push([from, this.#workloadOps()]);
    const checked = await this.#check(undefined, "after compact");
    this.#reach.add("records-cleaned", checked.compaction!.gone.size - c.gone.size);
    this.#state = { ...checked, durable: this.#claimed(state.durable, checked.records.length) };
    await this.#selfCheck(this.#current, { kind: "compacted" }, "after compact");
  }

  async #deleteBefore(forward: number): Promise<void> {
    const state = this.#state;
    const to = Math.min(state.records.length, state.start + forward);
    const inFlight = { ...state, start: Math.max(state.start, to) };
    this.#inFlight = inFlight;
    await this.#current.deleteBefore!(to);
    this.#state = { ...inFlight, durable: this.#claimed(state.durable, state.records.length) };
  }

  async #cleanReopen(): Promise<void> {
    await this.#current.close();
    this.#state = { ...this.#state, durable: this.#state.records.length };
    await this.#open();
    this.#state = await this.#check(undefined, "after a clean close and reopen");
    await this.#selfCheck(this.#current, { kind: "reopened" }, "after a clean close and reopen");
  }

  /** Reboot, with further cuts inside the reopen's recovery, then a final clean-power reopen. */
  async #recover(): Promise<number> {
    let found: ModelLog | undefined;
    const schedule = this.#schedule;
    const recovery = await recoverThroughNestedCuts(
      {
        cuts: schedule.nestedCuts,
        trace: this.#trace,
        reboot: (level, cut) => {
          this.#lastTrace = this.#sim.trace.slice(-40);
          this.#crash(level === 0 ? schedule.firstCrash?.(this.#sim.pendingState()) : undefined);
          if (cut !== undefined) this.#sim.scheduleCrash({ afterOps: cut });
        },
        openAndCheck: async (moment) => {
          const log = await this.#open();
          found = await this.#check(this.#inFlight, moment);
          checkRecoveredFiles(this.#sim, log, this.#trace, moment);
          return log;
        },
        recoveredBeforeCut: async (reopened) => {
          this.#reach.add("recovered-before-cut");
          await this.#selfCheck(reopened, { kind: "recovered" }, "recovery before its cut");
          // Recovery finished before the cut, and made what it found durable: that is the state a
          // further cut (now) must keep exactly.
          this.#state = found!;
          this.#inFlight = undefined;
        },
        cutInsideRecovery: () => this.#reach.add("nested-cut"),
        isPowerCut: (err) => this.#isPowerCut(err),
        reopenFailed: async (err) => {
          // The run ends here: a nested cut still pending must not cut the disk's description short.
          if (!this.#sim.poweredOff) this.#sim.scheduleCrash({ afterOps: Number.MAX_SAFE_INTEGER });
          const disk = await describeDisk(this.#sim, this.#lastTrace);
          return new CrashViolation(`reopen failed: ${errorReport(err)}\n${disk}`, this.#trace);
        },
      },
      "after recovery",
    );
    this.#log = recovery.log;
    this.#state = found!;
    this.#inFlight = undefined;
    await this.#selfCheck(this.#current, { kind: "recovered" }, "after recovery");
    return recovery.powerCuts;
  }

  /** Progress: an append lands at the end, and a clean close then reopen is exact. */
  async #checkProgress(): Promise<void> {
    try {
      const record = makeRecord({ valueBytes: 8, keyed: true, headers: 0, tsDelta: 0 }, this.#seq++, this.#clock.t);
      await this.#append([[record]]);
      this.#trace.push(
        `append ${describeRecordValue(this.#state.records.at(-1)!.value)} after recovery, close, reopen`,
      );
      await this.#current.close();
      this.#state = { ...this.#state, durable: this.#state.records.length };
      await this.#open();
      await this.#check(undefined, "progress: a clean close after recovery is exact");
      await this.#selfCheck(this.#current, { kind: "reopened" }, "progress: reopened after a clean close");
      await this.#current.close();
    } catch (err) {
      if (err instanceof CrashViolation) throw err;
      throw new CrashViolation(`progress: the log failed after recovery: ${errorReport(err)}`, this.#trace);
    }
  }
}
