/**
 * The roll flush under power cuts (issue 33, item 1): with flushing off (Kafka's default) and a
 * small `segmentBytes`, a workload of appends (some overlapping, sharing group commits) rolls
 * many times; the power is cut at a random storage operation, the roll's background fsyncs and
 * the checkpoints included, sometimes again during the recovery that follows. After the reboot
 * every record below any recovery point the log ever showed is there, at its offset, as appended.
 *
 * And the recovery point must move: a schedule whose power stays on to the end waits (without a
 * flush) until the rolls' flushes reached the active segment's base. On a log whose recovery
 * point never moves with flushing off, that wait times out and the property fails.
 *
 * Replay: the failing schedule's seed is printed with PAGELOG_ROLL_FLUSH_SCHEDULE=<seed>.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorCode, isPagelogError } from "../../src/errors.js";
import { LogDir } from "../../src/log/log-dir.js";
import type { Log } from "../../src/log/log.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import { plain, type PlainRecord } from "../support/plain-record.js";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { rng } from "../support/xorshift.js";

const RUNS = size("rollFlushRuns");
const REPLAY = process.env.PAGELOG_ROLL_FLUSH_SCHEDULE;
const NAME = "rolls-0";
const APPENDS = 80;

interface Outcome {
  violation: string | undefined;
  /** The power was cut inside the workload (else it ran to the end and its rolls were waited for). */
  cut: boolean;
  /** The cut came while a roll's flush was owed (a sealed segment above the recovery point). */
  cutWithRollFlushOwed: boolean;
  rolls: number;
  observed: number;
}

/** Opens the log, cutting the power again during recovery now and then. */
async function reopen(sim: SimStorage, next: (n: number) => number, options: object) {
  for (;;) {
    const nested = next(4) === 0;
    if (nested) sim.scheduleCrash({ afterOps: next(40) });
    try {
      const dir = await LogDir.open(sim, { log: options });
      const log = await dir.log(NAME);
      if (nested) sim.scheduleCrash({ afterOps: 1_000_000_000 });
      return { sim, dir, log };
    } catch (err) {
      if (!sim.poweredOff) throw err;
      sim = sim.crash();
    }
  }
}

function text(next: (n: number) => number, i: number, n: number): string {
  return `${i}:`.padEnd(n, String.fromCharCode(97 + next(26)));
}

async function runSchedule(seed: number): Promise<Outcome> {
  const next = rng(seed);
  const options = { segmentBytes: 200 + next(800), indexIntervalBytes: [0, 64, 4096][next(3)]! };
  const checkpointIntervalMs = [0, 0, -1, 60_000][next(4)]!;
  let sim = new SimStorage({ seed });
  const cutAt = next(5) === 0 ? undefined : 1 + next(700);
  if (cutAt !== undefined) sim.scheduleCrash({ afterOps: cutAt });
  const dir = await LogDir.open(sim, { log: options, checkpointIntervalMs }).catch(() => undefined);
  if (dir === undefined) return { violation: undefined, cut: true, cutWithRollFlushOwed: false, rolls: 0, observed: 0 };
  const model: PlainRecord[] = [];
  let observed = 0;
  let log: Log | undefined;
  const observe = (): void => void (log !== undefined && (observed = Math.max(observed, log.recoveryPoint)));
  let owed = false;
  let rolls = 0;
  try {
    log = await dir.log(NAME);
    // Every change of the recovery point is seen, also between two awaits: a waiter wakes at each.
    const watch = async (l: Log): Promise<void> => {
      for (;;) {
        await l.waitFor(l.recoveryPoint, { durable: true });
        observe();
      }
    };
    void watch(log).catch(() => undefined);
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < APPENDS; i++) {
      const records = Array.from({ length: 1 + next(3) }, (_, j) => ({
        key: text(next, i, 1 + next(8)),
        value: text(next, i * 10 + j, next(150)),
        timestamp: 1_000_000 + i,
      }));
      // Offsets follow call order (group commit keeps it), so the model is known at the call: a
      // roll flush may make a record durable before its append's promise resolves.
      for (const r of records) {
        const offset = model.length;
        model.push({ offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: [] });
      }
      const p = log.append(records);
      p.catch(() => undefined); // (awaited below, or dropped with the run when the power goes)
      if (next(3) === 0) pending.push(p);
      else await p;
      observe();
      if (next(4) === 0) await new Promise((resolve) => setImmediate(resolve)); // let a roll flush run
    }
    await Promise.all(pending);
    rolls = log.segmentCount - 1;
    // No flush(): the rolls alone must bring the recovery point to the active segment's base.
    const base = log.segmentBaseOffsets.at(-1)!;
    if (base > 0) await log.waitFor(base - 1, { durable: true, signal: AbortSignal.timeout(3000) });
    observe();
    if (observed < base)
      return {
        violation: `recovery point ${observed} never reached the active base ${base}`,
        cut: false,
        cutWithRollFlushOwed: false,
        rolls,
        observed,
      };
  } catch (err) {
    if (!sim.poweredOff) {
      if ((err as Error).name === "TimeoutError")
        return {
          violation: `no flush() and the recovery point stayed at ${observed}: ${String(err)}`,
          cut: false,
          cutWithRollFlushOwed: false,
          rolls,
          observed,
        };
      if (!isPagelogError(err, ErrorCode.FAILED) && !isPagelogError(err, ErrorCode.POWER_CUT)) throw err;
    }
  }
  const cut = sim.poweredOff;
  if (log !== undefined) {
    observe();
    rolls = log.segmentCount - 1;
    owed = cut && log.segmentBaseOffsets.at(-1)! > log.recoveryPoint;
  }
  // The power goes now if it did not already (a crash whatever the workload reached).
  sim = sim.crash();
  const opened = await reopen(sim, next, options);
  const violation = await check(opened.log, model, observed, `schedule ${seed}`);
  await opened.dir.close();
  return { violation, cut, cutWithRollFlushOwed: owed, rolls, observed };
}

/** Every record below `observed` is in the log at its offset, as appended. */
async function check(log: Log, model: readonly PlainRecord[], observed: number, context: string) {
  if (log.endOffset < observed)
    return `${context}: the log ends at ${log.endOffset}, below the recovery point ${observed} it showed`;
  let offset = 0;
  for await (const r of log.records({ to: observed })) {
    const want = model[r.offset];
    if (r.offset !== offset) return `${context}: offset ${offset} is missing (next is ${r.offset})`;
    if (want === undefined || JSON.stringify(plain(r)) !== JSON.stringify(want))
      return `${context}: offset ${r.offset} holds ${JSON.stringify(plain(r))}, appended ${JSON.stringify(want)}`;
    offset++;
  }
  if (offset < observed) return `${context}: records stop at ${offset}, below the recovery point ${observed}`;
  return undefined;
}

describe("property: with flushing off, rolls move the recovery point and a power cut keeps everything below it", () => {
  it.runIf(REPLAY !== undefined)("replays one schedule (PAGELOG_ROLL_FLUSH_SCHEDULE)", async () => {
    const outcome = await runSchedule(Number(REPLAY));
    expect(outcome.violation).toBeUndefined();
  });

  it(`holds for ${RUNS} schedules`, async () => {
    const params = fastCheckParams();
    let failedSeed = 0;
    const totals = { cuts: 0, owed: 0, rolls: 0, finished: 0 };
    const result = await fc.check(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) => {
        failedSeed = seed;
        const outcome = await runSchedule(seed);
        if (outcome.violation !== undefined) throw new Error(outcome.violation);
        totals.cuts += outcome.cut ? 1 : 0;
        totals.owed += outcome.cutWithRollFlushOwed ? 1 : 0;
        totals.finished += outcome.cut ? 0 : 1;
        totals.rolls += outcome.rolls;
      }),
      { ...params, numRuns: RUNS },
    );
    if (result.failed) {
      const message = String((result.errorInstance as Error)?.message ?? result.errorInstance);
      throw new Error(
        `roll-flush property failed: ${message}\n` +
          `Replay this schedule: PAGELOG_ROLL_FLUSH_SCHEDULE=${result.counterexample?.[0] ?? failedSeed} npx vitest run test/property/roll-flush-crash.test.ts\n` +
          `Replay the fast-check run: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(
      `roll-flush schedules: ${RUNS}, cut in the workload: ${totals.cuts} (${totals.owed} with a roll flush owed), ran to the end: ${totals.finished}, rolls: ${totals.rolls}`,
    );
    // The schedules must reach both cases: cuts while a roll's flush is owed, and runs that end.
    if (RUNS >= 40) {
      expect(totals.owed).toBeGreaterThan(0);
      expect(totals.finished).toBeGreaterThan(0);
    }
  });
});
