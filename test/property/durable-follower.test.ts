/**
 * Guarantee 12 (docs/guarantees.md): a record a `durable` follower yielded is never lost by a
 * later power cut. A durable follower runs during a workload of appends (random sizes, keys,
 * headers, timestamps; some overlapping, so they share group commits), flushes (explicit, and by
 * the flushMessages / flushMs policies), truncations and deleteRecordsBefore; the power is cut at
 * a random storage operation, sometimes again during the recovery that follows; after every
 * reboot every record the follower yielded is in the log at its offset with the same key, value,
 * headers and timestamp (unless the workload itself truncated or deleted it).
 *
 * The same workload with a follower that is not `durable` must break the property (it yields
 * records a power cut then takes back): the second test shows the check is able to fail.
 * Replay one schedule: PAGELOG_FOLLOWER_SCHEDULE=<schedule seed> npx vitest run test/property/durable-follower.test.ts
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorCode, isPagelogError } from "../../src/errors.js";
import type { RecordInput } from "../../src/format/index.js";
import { LogDir } from "../../src/log/log-dir.js";
import { type Log, logEverFailed } from "../../src/log/log.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import { plain, type PlainRecord } from "../support/plain-record.js";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { rng } from "../support/xorshift.js";

const RUNS = size("followerRuns");
const REPLAY = process.env.PAGELOG_FOLLOWER_SCHEDULE;
const NAME = "follow-0";
const ROUNDS = 5;

interface Outcome {
  /** The first record the follower yielded that a power cut took back, described; or undefined. */
  violation: string | undefined;
  cuts: number;
  /** Yielded records checked after reboots. */
  checked: number;
}

/** What the follower yielded, by offset; the workload forgets what it truncates or deletes itself. */
type Yielded = Map<number, PlainRecord>;

function randomRecord(next: (n: number) => number, round: number, i: number): RecordInput {
  const text = (n: number) => `${round}.${i}:`.padEnd(n, String.fromCharCode(97 + next(26)));
  const headers = Array.from({ length: next(3) }, (_, h) => ({
    key: `h${h}`,
    value: next(4) === 0 ? null : text(next(20)),
  }));
  return {
    key: next(3) === 0 ? null : text(1 + next(12)),
    value: next(8) === 0 ? null : text(next(400)),
    headers,
    timestamp: 1_000_000 + next(1_000_000),
  };
}

/**
 * Follows the log until it closes, fails, loses power or the signal aborts. A position a
 * truncation or deletion passed (PAGELOG_OFFSET_OUT_OF_RANGE) starts a new follower there.
 * Returns an unexpected error as a violation.
 */
async function follow(
  log: Log,
  sim: SimStorage,
  from: number,
  durable: boolean,
  signal: AbortSignal,
  yielded: Yielded,
) {
  let next = from;
  for (;;) {
    try {
      for await (const r of log.records({ from: next, follow: true, durable, signal })) {
        yielded.set(r.offset, plain(r));
        next = r.offset + 1;
      }
      return undefined;
    } catch (err) {
      if (signal.aborted || sim.poweredOff) return undefined;
      if (isPagelogError(err, ErrorCode.OFFSET_OUT_OF_RANGE)) {
        if (log.status !== "open") return undefined;
        next = Math.min(Math.max(next, log.startOffset), log.endOffset);
        continue;
      }
      if (isPagelogError(err, ErrorCode.CLOSED) || isPagelogError(err, ErrorCode.FAILED)) return undefined;
      return `follower: unexpected ${String(err)}`;
    }
  }
}

/** Whether an injected fault failed the log (it may be closed since). */
const failedLog = (log: Log): boolean => log.status === "failed" || logEverFailed(log);

/** Every yielded record must be in the log as it was yielded. */
async function check(log: Log, yielded: Yielded, context: string): Promise<string | undefined> {
  for (const [offset, want] of [...yielded].sort((a, b) => a[0] - b[0])) {
    if (offset < log.startOffset) return `${context}: yielded offset ${offset} is below the start ${log.startOffset}`;
    if (offset >= log.endOffset)
      return `${context}: yielded offset ${offset} is gone (the log ends at ${log.endOffset})`;
    const [got] = await log.read(offset, { maxRecords: 1 });
    if (got === undefined || JSON.stringify(plain(got)) !== JSON.stringify(want))
      return `${context}: offset ${offset} was yielded as ${JSON.stringify(want)}, the log now holds ${JSON.stringify(got && plain(got))}`;
  }
  return undefined;
}

/** Opens the log, cutting the power again during recovery now and then; checks what survived. */
async function reopen(
  sim: SimStorage,
  next: (n: number) => number,
  options: object,
): Promise<{ sim: SimStorage; dir: LogDir; log: Log; cuts: number }> {
  let cuts = 0;
  for (;;) {
    const nested = next(3) === 0;
    if (nested) sim.scheduleCrash({ afterOps: next(40) });
    try {
      const dir = await LogDir.open(sim, { log: options });
      const log = await dir.log(NAME);
      if (nested) sim.scheduleCrash({ afterOps: 1_000_000_000 });
      return { sim, dir, log, cuts };
    } catch (err) {
      if (!sim.poweredOff) throw err;
      sim = sim.crash();
      cuts++;
    }
  }
}

/** One workload round on an open log, with the follower running; ends in a clean close or a power cut. */
async function round(
  sim: SimStorage,
  log: Log,
  dir: LogDir,
  next: (n: number) => number,
  n: number,
  yielded: Yielded,
  clock: { t: number },
) {
  const pendingAppends: Array<Promise<unknown>> = [];
  for (let op = 0; op < 30; op++) {
    clock.t += next(8);
    const kind = next(20);
    if (kind < 11) {
      const records = Array.from({ length: 1 + next(4) }, (_, i) => randomRecord(next, n, op * 10 + i));
      const p = log.append(records);
      if (next(3) === 0) pendingAppends.push(p.catch(() => undefined));
      else await p;
    } else if (kind < 14) {
      await log.flush();
    } else if (kind < 15 && log.endOffset > log.startOffset) {
      const to = log.startOffset + next(log.endOffset - log.startOffset + 1);
      // The workload's own cut: what the follower yielded up to its start is no longer owed. (Before
      // and after: the follower may yield records queued before the cut while it waits its turn.)
      const forget = () => [...yielded.keys()].forEach((offset) => offset >= to && yielded.delete(offset));
      forget();
      await log.truncateTo(to).finally(forget);
    } else if (kind < 16 && log.endOffset > log.startOffset) {
      const before = log.startOffset + next(Math.min(6, log.endOffset - log.startOffset) + 1);
      const forget = () => [...yielded.keys()].forEach((offset) => offset < before && yielded.delete(offset));
      forget();
      await log.deleteRecordsBefore(before).finally(forget);
    } else if (kind < 17 && next(4) === 0) {
      // A failed fsync (EIO, the pages marked clean as Linux does): the log fails, and a follower
      // must not have been told the records it covered are durable. The power goes later.
      sim.injectFault({ op: "sync", code: "EIO" });
    } else {
      // Let the follower run its reads in between.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await Promise.all(pendingAppends);
  await dir.close();
}

/** One schedule: rounds of workload with a follower, each ended by a clean close or a power cut. */
async function runSchedule(seed: number, durable: boolean): Promise<Outcome> {
  const next = rng(seed);
  const clock = { t: 1_700_000_000_000 };
  const flushMessages = [-1, -1, 1, 3, 8][next(5)]!;
  const flushMs = [-1, -1, 0, 20][next(4)]!;
  const options = { segmentBytes: 600 + next(3000), flushMessages, flushMs, clock: { now: () => clock.t } };
  let sim = new SimStorage({ seed });
  const yielded: Yielded = new Map();
  let cuts = 0;
  let checked = 0;
  for (let n = 0; n < ROUNDS; n++) {
    const opened = await reopen(sim, next, options);
    sim = opened.sim;
    cuts += opened.cuts;
    const { dir, log } = opened;
    const context = `schedule ${seed}, round ${n} (after ${cuts} power cuts)`;
    const violation = await check(log, yielded, context);
    checked += yielded.size;
    if (violation !== undefined) {
      await dir.close();
      return { violation, cuts, checked };
    }
    const cut = next(4) !== 0;
    if (cut) sim.scheduleCrash({ afterOps: 1 + next(250) });
    const stop = new AbortController();
    const from = log.startOffset + next(log.endOffset - log.startOffset + 1);
    const follower = follow(log, sim, from, durable, stop.signal, yielded);
    try {
      await round(sim, log, dir, next, n, yielded, clock);
    } catch (err) {
      // The power went, or an injected fault failed the log or a call: anything else is a bug.
      // (An injected EIO may also fail a checkpoint, which leaves the log open: PAGELOG_IO.)
      if (!sim.poweredOff && !failedLog(log) && !isPagelogError(err, ErrorCode.IO)) throw err;
      await dir.close().catch(() => undefined);
    }
    // Let a follower of a failed log read what it can before the power goes.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    const unexpected = await follower;
    if (unexpected !== undefined) return { violation: `${context}: ${unexpected}`, cuts, checked };
    if (sim.poweredOff || failedLog(log) || next(2) === 0) {
      sim = sim.crash();
      cuts++;
    } else if (cut) {
      sim.scheduleCrash({ afterOps: 1_000_000_000 });
    }
  }
  const { dir, log } = await reopen(sim, () => 1, options);
  const violation = await check(log, yielded, `schedule ${seed}, final`);
  await dir.close();
  return { violation, cuts, checked: checked + yielded.size };
}

describe("property: a durable follower yields only what every later power cut keeps", () => {
  it.runIf(REPLAY !== undefined)("replays one schedule (PAGELOG_FOLLOWER_SCHEDULE)", async () => {
    const outcome = await runSchedule(Number(REPLAY), process.env.PAGELOG_FOLLOWER_DURABLE !== "false");
    expect(outcome.violation).toBeUndefined();
  });

  it(`holds for ${RUNS} schedules with durable: true`, async () => {
    let cuts = 0;
    let checked = 0;
    let failedSeed = 0;
    const result = await fc.check(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        failedSeed = seed;
        const outcome = await runSchedule(seed, true);
        cuts += outcome.cuts;
        checked += outcome.checked;
        if (outcome.violation !== undefined) throw new Error(outcome.violation);
      }),
      { ...fastCheckParams(), numRuns: RUNS },
    );
    if (result.failed) {
      const seed = result.counterexample?.[0] ?? failedSeed;
      throw new Error(
        `durable follower property failed (fast-check seed ${result.seed}, path ${result.counterexamplePath})\n` +
          `${String((result.errorInstance as Error)?.message ?? result.errorInstance)}\n\n` +
          `Replay this schedule: PAGELOG_FOLLOWER_SCHEDULE=${seed} npx vitest run test/property/durable-follower.test.ts\n` +
          `Replay the fast-check run: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(
      `durable follower: ${RUNS} schedules, ${cuts} power cuts, ${checked} yielded records checked after reboots`,
    );
    expect(cuts).toBeGreaterThan(RUNS);
    expect(checked).toBeGreaterThan(RUNS * 5);
  });

  it("fails without durable: a plain follower yields records a power cut takes back", async () => {
    const limit = 40;
    let found: string | undefined;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        if (found !== undefined) return;
        found = (await runSchedule(seed, false)).violation;
      }),
      { ...fastCheckParams(), numRuns: limit },
    );
    expect(found, `no violation in ${limit} schedules: the check cannot fail`).toBeDefined();
    console.log(`without durable: ${found}`);
  });
});
