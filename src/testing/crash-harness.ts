/**
 * The crash harness: run a workload against a Log on SimStorage, cut the power at a chosen
 * storage operation (and again while the reopen recovers, several levels deep), reboot, reopen,
 * and check every guarantee of docs/guarantees.md against a model of what was appended and what the
 * log claimed durable.
 *
 * The model keeps the log's contents after each resolved call (`current`), what the call in
 * flight at the cut would have made of it (`inFlight`), and the recovery point the log reported
 * after its last resolved call (`durable`). After a reboot the records must be exactly a prefix
 * of one of the two states — same offsets, keys, values, headers and timestamps — at least as
 * long as the durable point. Every record carries a unique id, so a record that recovery threw
 * away, or that a truncation dropped, cannot come back unnoticed (no resurrection).
 */
import { ErrorCode, PagelogError } from "../errors.js";
import type { DecodedRecord, RecordInput } from "../format/index.js";
import { LogDir, type LogDirOptions } from "../log/log-dir.js";
import type { Log } from "../log/log.js";
import type { LogOptions } from "../log/log-options.js";
import { type CrashChooser, type PendingState, SimStorage, type TraceEvent } from "../storage/sim-storage.js";
import { type BrokenSession, type BrokenVariant, brokenLog } from "./broken/variants.js";
import { cutWhereSeeded, recoverThroughNestedCuts } from "./cuts.js";
import { CrashViolation } from "./violation.js";

/** One step of a workload. */
/** The shape of one generated record: the harness fills in a unique id as its value. */
export interface RecordShape {
  readonly valueBytes: number;
  readonly keyed: boolean;
  readonly headers: number;
  readonly tsDelta: number | null;
}

export type Command =
  | { readonly kind: "append"; readonly records: readonly RecordShape[] }
  /** Several appends issued at once (not awaited one by one): they go out as one group commit. */
  | { readonly kind: "appendGroup"; readonly calls: ReadonlyArray<readonly RecordShape[]> }
  | { readonly kind: "flush" }
  | { readonly kind: "truncate"; readonly back: number }
  | { readonly kind: "deleteBefore"; readonly forward: number }
  | { readonly kind: "checkpoint" }
  | { readonly kind: "reopen" }
  /** Cut the power now (nothing in flight), reboot, reopen, check, and carry on. */
  | { readonly kind: "crash" }
  /** Make the next storage `op` fail with `code`: the call that meets it must fail loudly. */
  | { readonly kind: "fault"; readonly op: "sync" | "write" | "syncDir"; readonly code: "EIO" | "ENOSPC" }
  | { readonly kind: "clock"; readonly ms: number }
  | { readonly kind: "writeback"; readonly pages: number };

export interface Schedule {
  /** Seeds the simulator: write-back choices and every crash fate. */
  readonly seed: number;
  readonly commands: readonly Command[];
  /** Log options under test (the harness adds its own clock). */
  readonly options: LogOptions;
  /** The directory's checkpoint interval (on the harness's clock); -1: only explicit and at close. */
  readonly checkpointIntervalMs?: number;
  /**
   * A deliberately broken log, to prove the suite catches it: the real log over a storage that
   * breaks one rule (see `broken/variants.ts`).
   */
  readonly brokenVariant?: BrokenVariant;
  /**
   * The directory's descriptor bound (`LogDirOptions.maxOpenFiles`): small values make the pool
   * evict, sync and reopen files all through the workload, recovery and the checks.
   */
  readonly maxOpenFiles?: number;
  readonly pageSize: number;
  readonly sectorSize: number;
  /** Probability of a random page write-back before each storage operation. */
  readonly writeback: number;
  /**
   * Where the first power cut falls, as a fraction of the workload's storage operations (a dry
   * run with the same seed counts them): 0 cuts before the first, 0.999 just before the last.
   */
  readonly cutAt: number;
  /** Further cuts inside the reopen's own recovery, by operation count, one per level. */
  readonly nestedCuts: readonly number[];
  /**
   * Decides the fates of the first power cut after the workload (default: the seeded random
   * chooser), given what was pending: how the exhaustive test enumerates crash states.
   */
  readonly firstCrash?: (pending: PendingState) => CrashChooser;
}

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

export { CrashViolation } from "./violation.js";

const PARTITION = "crash-0";
const dec = new TextDecoder();

interface ModelRecord {
  readonly offset: number;
  readonly key: string | null;
  readonly value: string;
  readonly headers: ReadonlyArray<{ key: string; value: string | null }>;
  readonly timestamp: number;
}

interface LogState {
  readonly records: readonly ModelRecord[]; // indexed by offset - 0: records[offset] (undefined below start)
  readonly start: number;
  readonly durable: number;
}

/** A manual clock the workload advances; the log never reads real time. */
class TestClock {
  t = 1_700_000_000_000;
  now = (): number => this.t;
}

/** Codes a call may fail with when an injected fault hits it. */
const LOUD_CODES = new Set<string>([ErrorCode.IO, ErrorCode.NO_SPACE, ErrorCode.FAILED]);
/** Commands whose failure must leave the log `failed`. */
const LOG_WRITES = new Set<Command["kind"]>(["append", "appendGroup", "flush", "truncate", "deleteBefore"]);

function isPowerCut(err: unknown): boolean {
  return err instanceof PagelogError && err.code === ErrorCode.POWER_CUT;
}

/**
 * Runs one schedule and checks it. Resolves with what happened; rejects with a CrashViolation
 * when a guarantee broke (or with the unexpected error itself, which is a violation too).
 */
export async function runSchedule(schedule: Schedule): Promise<ScheduleOutcome> {
  // First the whole workload with the cut at its end (a schedule in its own right), which also
  // counts its storage operations; then the same seed again, cut where `cutAt` says.
  return cutWhereSeeded(schedule.cutAt, (cutAfter) => runCut(schedule, cutAfter));
}

/**
 * Runs the workload with the power cut after exactly `cutAfter` storage operations (or at its
 * end), then reboots and checks, as `runSchedule` does for its random cut.
 */
export async function runCut(schedule: Schedule, cutAfter: number): Promise<ScheduleOutcome> {
  const trace: string[] = [];
  const clock = new TestClock();
  const options: LogOptions = { ...schedule.options, clock };
  const broken = schedule.brokenVariant === undefined ? undefined : brokenLog(schedule.brokenVariant);
  const plainOptions: LogDirOptions = {
    log: options,
    checkpointIntervalMs: schedule.checkpointIntervalMs ?? -1,
    ...(schedule.maxOpenFiles === undefined ? {} : { maxOpenFiles: schedule.maxOpenFiles }),
  };
  const dirOptions = broken === undefined ? plainOptions : broken.dirOptions(plainOptions);
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

  let session: BrokenSession | undefined;
  /** Opens the directory and the log on the current disk (through the broken storage, if any). */
  const open = async (): Promise<{ dir: LogDir; log: Log }> => {
    session = broken?.session(sim);
    const opened = await LogDir.open(session?.storage ?? sim, dirOptions);
    const openedLog = await opened.log(PARTITION);
    await session?.opened();
    return { dir: opened, log: openedLog };
  };
  /** Waits for a call on the log, and for what a broken log did before returning from it. */
  const call = async <T>(promise: Promise<T>): Promise<T> => {
    const result = await promise;
    await session?.settle();
    return result;
  };
  let { dir, log } = await open();
  // The cut counts operations across the reboots of "crash" commands: ops done on earlier disks.
  let opsBefore = 0;
  let opsAtStart = sim.opCount;
  sim.scheduleCrash({ afterOps: cutAfter });
  trace.push(`open: cut scheduled after ${cutAfter} more storage ops`);

  let cutInWorkload = false;
  let powerCutsInWorkload = 0;
  let armed = false; // an injected fault has not fired yet
  /** Power cut now, reboot, reopen and check; what recovery found is the state from then on. */
  const reboot = async (pending: LogState | undefined, when: string): Promise<void> => {
    opsBefore += sim.opCount - opsAtStart;
    lastTrace = sim.trace.slice(-40);
    sim = sim.crash();
    opsAtStart = sim.opCount;
    sim.scheduleCrash({ afterOps: Math.max(0, cutAfter - opsBefore) });
    powerCutsInWorkload++;
    ({ dir, log } = await open());
    state = await checkContents(log, state, pending, trace, when);
    // Index truth after every recovery, not only the last: a recovery that leaves a lookup wrong
    // is caught where it happens, before later work can heal or hide it.
    await checkIndexTruth(log, trace);
  };
  try {
    for (const [i, command] of schedule.commands.entries()) {
      inFlight = undefined;
      const step = `#${i} ${describe(command)}`;
      try {
        switch (command.kind) {
          case "append":
          case "appendGroup": {
            const calls = command.kind === "append" ? [command.records] : command.calls;
            let next = log.endOffset;
            const batches = calls.map((shapes) => {
              const inputs: RecordInput[] = [];
              const modeled: ModelRecord[] = [];
              for (const r of shapes) {
                const id = `r${seq++}`;
                const value = id + ".".repeat(r.valueBytes);
                const key = r.keyed ? `k${id}` : null;
                const headers = Array.from({ length: r.headers }, (_, h) => ({
                  key: `h${h % 2}`,
                  value: h === 2 ? null : `${id}:${h}`,
                }));
                const timestamp = r.tsDelta === null ? clock.t : clock.t + r.tsDelta;
                inputs.push({ key, value, headers, ...(r.tsDelta === null ? {} : { timestamp }) });
                modeled.push({ offset: next++, key, value, headers, timestamp });
              }
              return { inputs, modeled };
            });
            const base = log.endOffset;
            inFlight = { ...state, records: [...state.records.slice(0, base), ...batches.flatMap((b) => b.modeled)] };
            const results = await call(Promise.all(batches.map((b) => log.append(b.inputs))));
            for (const [i, result] of results.entries()) {
              const want = batches[i]!.modeled;
              if (result.baseOffset !== want[0]!.offset || result.lastOffset !== want[want.length - 1]!.offset) {
                throw new CrashViolation(
                  `append returned offsets ${result.baseOffset}..${result.lastOffset}, expected ${want[0]!.offset}..${want[want.length - 1]!.offset} (call order)`,
                  trace,
                );
              }
            }
            state = { ...inFlight, durable: log.recoveryPoint };
            break;
          }
          case "flush":
            await call(log.flush());
            if (log.recoveryPoint !== log.endOffset)
              throw new CrashViolation(
                `flush resolved but recoveryPoint ${log.recoveryPoint} != end ${log.endOffset}`,
                trace,
              );
            state = { ...state, durable: log.recoveryPoint };
            break;
          case "truncate": {
            const to = Math.max(state.start, log.endOffset - command.back);
            // Cut short by a crash, a truncation may have dropped any part of the tail from `to` on
            // (later segments go first): any prefix of the old records at least `to` long.
            inFlight = { records: state.records, start: state.start, durable: Math.min(state.durable, to) };
            await call(log.truncateTo(to));
            state = { records: state.records.slice(0, to), start: state.start, durable: log.recoveryPoint };
            if (log.endOffset !== to) throw new CrashViolation(`truncateTo(${to}) left end ${log.endOffset}`, trace);
            break;
          }
          case "deleteBefore": {
            const to = Math.min(log.endOffset, state.start + command.forward);
            inFlight = { ...state, start: Math.max(state.start, to) };
            await call(log.deleteRecordsBefore(to));
            state = { ...inFlight, durable: log.recoveryPoint };
            break;
          }
          case "checkpoint":
            await call(dir.checkpoint());
            break;
          case "reopen":
            await call(dir.close());
            ({ dir, log } = await open());
            if (!log.recovery.clean || log.recovery.bytesTruncated !== 0)
              throw new CrashViolation(
                `reopen after a clean close recovered something: ${JSON.stringify(log.recovery)}`,
                trace,
              );
            await checkContents(log, state, undefined, trace, "after clean reopen");
            state = { ...state, durable: log.recoveryPoint };
            break;
          case "crash":
            await reboot(undefined, "after a crash command");
            break;
          case "fault":
            sim.injectFault({ op: command.op, code: command.code });
            armed = true;
            break;
          case "clock":
            clock.t += command.ms;
            break;
          case "writeback":
            sim.writeback({ pages: command.pages });
            break;
        }
      } catch (err) {
        // An injected I/O fault must fail the call that meets it (and fail the log, for a log
        // write): then reboot, as an operator would, and check nothing flushed was lost.
        if (!armed || isPowerCut(err) || !(err instanceof PagelogError) || !LOUD_CODES.has(err.code)) throw err;
        armed = false;
        if (LOG_WRITES.has(command.kind) && log.status !== "failed") {
          throw new CrashViolation(`${step} failed with ${err.code} but the log is ${log.status}, not failed`, trace);
        }
        trace.push(`${step} failed loudly (${err.code}); rebooting`);
        await reboot(inFlight, `after the ${err.code} failure`);
        continue;
      }
      trace.push(`${step} -> end ${log.endOffset}, start ${log.startOffset}, recoveryPoint ${log.recoveryPoint}`);
    }
    inFlight = undefined;
  } catch (err) {
    if (!isPowerCut(err)) {
      if (err instanceof CrashViolation) throw err;
      throw new CrashViolation(`unexpected error in the workload: ${(err as Error)?.stack ?? String(err)}`, trace);
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
        ({ dir, log } = await open());
        found = await checkContents(log, state, inFlight, trace, moment);
        return log;
      },
      recoveredBeforeCut: async (reopened) => {
        await checkIndexTruth(reopened, trace);
        // Recovery finished before the cut, and made what it found durable: that is the state a
        // further cut (now) must keep exactly.
        state = found!;
        inFlight = undefined;
      },
      isPowerCut,
      reopenFailed: async (err) =>
        new CrashViolation(`reopen failed: ${(err as Error)?.stack ?? String(err)}\n${await describeDisk(sim)}`, trace),
    },
    "after recovery",
  );
  log = recovery.log;
  const powerCuts = powerCutsInWorkload + recovery.powerCuts;

  const recovered = await checkContents(log, state, inFlight, trace, "final recovery");
  // The recovered log is the new truth: everything in it is durable now.
  if (log.recoveryPoint !== log.endOffset)
    throw new CrashViolation(`after recovery recoveryPoint ${log.recoveryPoint} != end ${log.endOffset}`, trace);
  await checkIndexTruth(log, trace);

  // Progress: appends continue at the end, and a clean close then reopen is exact.
  const end = log.endOffset;
  const extra = await log.append([{ key: "after", value: "progress", timestamp: clock.t }]);
  if (extra.baseOffset !== end)
    throw new CrashViolation(`append after recovery got offset ${extra.baseOffset}, expected ${end}`, trace);
  const afterProgress: LogState = {
    records: [...recovered.records, { offset: end, key: "after", value: "progress", headers: [], timestamp: clock.t }],
    start: log.startOffset,
    durable: 0,
  };
  await dir.close();
  ({ dir, log } = await open());
  if (!log.recovery.clean || log.recovery.bytesTruncated !== 0 || log.recovery.segmentsScanned !== 0) {
    throw new CrashViolation(`reopen after a clean close was not clean: ${JSON.stringify(log.recovery)}`, trace);
  }
  await checkContents(
    log,
    { ...afterProgress, durable: afterProgress.records.length },
    undefined,
    trace,
    "clean close is exact",
  );
  await dir.close();
  return { cutInWorkload, powerCuts, recordsRecovered: recovered.records.length - recovered.start, workloadOps, trace };
}

/**
 * Reads the whole log and checks it against the model: prefix of the last resolved state (or of
 * the in-flight call's state), at least as long as what was durable, starting no earlier than
 * the durable start. Returns the state found.
 */
async function checkContents(
  log: Log,
  state: LogState,
  inFlight: LogState | undefined,
  trace: string[],
  when: string,
): Promise<LogState> {
  const found: DecodedRecord[] = [];
  for await (const r of log.records({ from: log.startOffset })) found.push(r);
  const start = log.startOffset;
  const end = log.endOffset;
  if (found.length !== end - start)
    throw new CrashViolation(`${when}: read ${found.length} records but [start, end) is [${start}, ${end})`, trace);
  const explain: string[] = [];
  for (const candidate of inFlight === undefined ? [state] : [state, inFlight]) {
    const problem = comparePrefix(found, start, end, candidate, state);
    if (problem === undefined) {
      const records: ModelRecord[] = [...candidate.records.slice(0, end)];
      trace.push(`${when}: ok, [${start}, ${end}) (durable was ${candidate.durable})`);
      return { records, start, durable: end };
    }
    explain.push(problem);
  }
  throw new CrashViolation(`${when}: the log [${start}, ${end}) is no allowed state: ${explain.join(" | ")}`, trace);
}

function comparePrefix(
  found: DecodedRecord[],
  start: number,
  end: number,
  candidate: LogState,
  resolved: LogState,
): string | undefined {
  if (end > candidate.records.length)
    return `end ${end} is past the ${candidate.records.length} records appended (records that were never appended, or truncated ones back)`;
  if (end < candidate.durable) return `durability: end ${end} is below the durable point ${candidate.durable}`;
  // The start never moves back past what a resolved deleteRecordsBefore made durable, and never
  // past what any call asked for.
  if (start < Math.min(resolved.start, candidate.start))
    return `start ${start} is below the durable start ${resolved.start}`;
  if (start > Math.max(resolved.start, candidate.start))
    return `start ${start} is past every start ever asked for (${candidate.start})`;
  for (const [i, r] of found.entries()) {
    const want = candidate.records[start + i];
    if (want === undefined) return `offset ${start + i} has no model record`;
    const got = {
      offset: r.offset,
      key: r.key === null ? null : dec.decode(r.key),
      value: r.value === null ? null : dec.decode(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : dec.decode(h.value) })),
      timestamp: r.timestamp,
    };
    if (JSON.stringify(got) !== JSON.stringify(want))
      return `offset ${start + i}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  }
  return undefined;
}

/** The storage operations just before the most recent power cut, for a failure report. */
let lastTrace: readonly TraceEvent[] = [];

/** The partition directory as the rebooted disk holds it, for a failure report. */
async function describeDisk(sim: SimStorage): Promise<string> {
  try {
    const lines = [`disk: ${PARTITION}/`];
    for (const name of await sim.list(PARTITION))
      lines.push(`  ${name} ${(await sim.stat(`${PARTITION}/${name}`))?.size ?? "?"} bytes`);
    for (const name of await sim.list("")) if (!name.includes("-")) lines.push(`  /${name}`);
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

/** Every offset lookup and a spread of timestamp lookups agree with a linear scan. */
async function checkIndexTruth(log: Log, trace: string[]): Promise<void> {
  const all: DecodedRecord[] = [];
  for await (const r of log.records()) all.push(r);
  for (const r of all) {
    const [hit] = await log.read(r.offset, { maxRecords: 1, maxBytes: 1 });
    if (hit?.offset !== r.offset)
      throw new CrashViolation(`index truth: read(${r.offset}) returned offset ${hit?.offset}`, trace);
  }
  const stamps = new Set<number>();
  for (const r of all)
    stamps
      .add(r.timestamp)
      .add(r.timestamp + 1)
      .add(r.timestamp - 1);
  for (const ts of stamps) {
    const want = all.find((r) => r.timestamp >= ts)?.offset ?? null;
    const got = await log.offsetForTimestamp(ts);
    if (got !== want)
      throw new CrashViolation(`index truth: offsetForTimestamp(${ts}) = ${got}, linear scan says ${want}`, trace);
  }
}

function describe(command: Command): string {
  switch (command.kind) {
    case "append":
      return `append ${command.records.length} record(s) [${command.records.map((r) => r.valueBytes).join(",")}] bytes`;
    case "appendGroup":
      return `${command.calls.length} concurrent appends of [${command.calls.map((c) => c.length).join(",")}] records`;
    case "truncate":
      return `truncateTo(end - ${command.back})`;
    case "deleteBefore":
      return `deleteRecordsBefore(start + ${command.forward})`;
    case "clock":
      return `clock +${command.ms} ms`;
    case "writeback":
      return `OS writes back ${command.pages} page(s)`;
    case "fault":
      return `inject ${command.code} on the next ${command.op}`;
    default:
      return command.kind;
  }
}
