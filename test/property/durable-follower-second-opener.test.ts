/**
 * Guarantee 12 across openers: a durable reader in another opener of the directory (a read-only
 * LogDir on the same SimStorage disk, as a second process would open it) never reads a record a
 * later power cut of the writer's disk takes back. The reader's recovery point comes from the
 * writer's checkpoint raised by the durable offset it publishes after each flush
 * (`pagelog-durable-offset`): published only after the fsyncs, withdrawn durably before a
 * truncation cuts. The workload appends (some left in flight), flushes (explicitly and by the
 * flush policy), truncates, deletes records and checkpoints, with the reader refreshing and
 * reading durably in between; the power is cut at a random storage operation. Two checks:
 * - when it is read, every record the reader reads is one the writer made durable (it was below
 *   the writer's recovery point at its offset, with that content, at some time; also one the
 *   workload deleted before that, which a reader whose view of the start is older may still read);
 * - after every reboot, every record the reader read is in the log at its offset, the same
 *   (unless the workload itself truncated or deleted it).
 * A record the writer made durable and then truncated itself, read by a reader that has not
 * noticed the cut yet, is counted (the cut-detection limits in docs/consumers.md), not judged:
 * it was durable, and the cut was the workload's, not a power cut's. The same schedules with a
 * reader that is not `durable` must break it: the check is able to fail.
 * Replay one schedule: PAGELOG_SECOND_OPENER_SCHEDULE=<seed> npx vitest run test/property/durable-follower-second-opener.test.ts
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorCode, isPagelogError } from "../../src/errors.js";
import { LogDir } from "../../src/log/log-dir.js";
import { type Log, logEverFailed } from "../../src/log/log.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import { plain, type PlainRecord } from "../support/plain-record.js";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { rng } from "../support/xorshift.js";

const RUNS = Math.max(4, Math.round(size("followerRuns") / 2));
const REPLAY = process.env.PAGELOG_SECOND_OPENER_SCHEDULE;
const NAME = "follow-0";
const ROUNDS = 4;
const noop = () => undefined;

/** What the reader read, by offset; the workload forgets what it truncates or deletes itself. */
type Seen = Map<number, PlainRecord>;

/**
 * Records the writer made durable, as `<offset> <record>`, and how far its recovery point has
 * been looked at; the offsets it passed below the start this round, and what this round's
 * appends put at each offset (see markDurable).
 */
interface Durable {
  readonly ever: Set<string>;
  readonly passedBelowStart: Set<number>;
  readonly appended: Map<number, string>;
  marked: number;
}

const durableKey = (r: PlainRecord) => `${r.offset} ${JSON.stringify(r)}`;
/** A record as its append gave it (key, value, headers): unique, as every value is. */
const appendedKey = (r: { key: string | null; value: string | null }) => JSON.stringify([r.key, r.value, []]);

/** Whether the writer made this record durable (as far as its ops so far tell). */
const madeDurable = (durable: Durable, r: PlainRecord) =>
  durable.ever.has(durableKey(r)) ||
  (durable.passedBelowStart.has(r.offset) && durable.appended.get(r.offset) === appendedKey(r));

/** After a writer op: every record below its recovery point now is one it made durable. */
async function markDurable(log: Log, durable: Durable): Promise<void> {
  if (log.status !== "open") return;
  // Below the start: records a deleteRecordsBefore passed before the recovery point did. They are
  // made durable all the same when it passes them (a flush fsyncs their segment while it holds
  // records from the start on), and a reader whose view of the start predates the deletion may
  // read them. The writer cannot read them back: what its append put there says what they are
  // (looked up when a read is judged: an append left in flight may resolve after this). Skipping
  // them, as this did, judged such a read one of a record never made durable.
  for (const below = Math.min(log.startOffset, log.recoveryPoint); durable.marked < below; durable.marked++)
    durable.passedBelowStart.add(durable.marked);
  while (durable.marked < log.recoveryPoint) {
    const records = await log.read(durable.marked, { durable: true, maxRecords: 64 });
    if (records.length === 0) break;
    for (const r of records) durable.ever.add(durableKey(plain(r)));
    durable.marked = records.at(-1)!.offset + 1;
  }
}

/** The reader's side: a read-only LogDir on the writer's disk, reading from `next` on. */
interface Reader {
  dir: LogDir | undefined;
  log: Log | undefined;
  next: number;
}

async function readerStep(
  sim: SimStorage,
  r: Reader,
  durable: boolean,
  seen: Seen,
  writer: { log: Log; durable: Durable; cutFrom: number },
): Promise<string | undefined> {
  try {
    if (r.log === undefined) {
      r.dir = await LogDir.open(sim, { readOnly: true, pollMs: 1 });
      r.log = await r.dir.log(NAME);
    }
    await r.log.refresh();
    r.next = Math.min(Math.max(r.next, r.log.startOffset), r.log.endOffset);
    for (const record of await r.log.read(r.next, { durable, maxRecords: 8 })) {
      const got = plain(record);
      r.next = record.offset + 1;
      // The flush policy may have moved the writer's recovery point since its last op: look again.
      if (durable && !madeDurable(writer.durable, got)) await markDurable(writer.log, writer.durable);
      if (durable && !madeDurable(writer.durable, got))
        return `reader: read ${JSON.stringify(got)}, which the writer never made durable`;
      if (durable && !writer.durable.ever.has(durableKey(got))) belowStartReads++;
      // Owed only while the writer still holds it: one the workload cut (or deleted) since it was
      // durable is a stale read of a reader that has not seen the cut yet, not a power cut's loss.
      let now: PlainRecord | undefined;
      try {
        const [held] = await writer.log.read(record.offset, { maxRecords: 1 });
        now = held && plain(held);
      } catch (err) {
        // Cannot tell: owed, the strict way, unless the workload had begun to cut there (a power
        // cut in the middle of its truncateTo may leave the cut done).
        if (sim.poweredOff) now = record.offset >= writer.cutFrom ? undefined : got;
        else if (!isPagelogError(err, ErrorCode.OFFSET_OUT_OF_RANGE)) throw err;
      }
      if (now === undefined || JSON.stringify(now) !== JSON.stringify(got)) {
        staleReads++;
        continue;
      }
      seen.set(record.offset, got);
    }
    return undefined;
  } catch (err) {
    if (sim.poweredOff) return undefined;
    // The writer cut or deleted below the reader's position: go on from where the log is now.
    if (isPagelogError(err, ErrorCode.OFFSET_OUT_OF_RANGE) || isPagelogError(err, ErrorCode.TRUNCATED)) {
      r.next = 0;
      return undefined;
    }
    // No partition yet (the writer's first round was cut before its directory was durable).
    if (isPagelogError(err, ErrorCode.NOT_FOUND)) return undefined;
    // A read racing a truncateTo reported as damage: the open race defects of issue 31 (the same
    // schedules end a reader so with or without the published durable offset). It yields nothing,
    // so it cannot break this property; counted, and the reader opens again.
    if (isPagelogError(err, ErrorCode.CORRUPT)) {
      falseCorrupt++;
      await r.dir?.close().catch(() => undefined);
      r.dir = r.log = undefined;
      return undefined;
    }
    return `reader: unexpected ${String(err)}`;
  }
}

/** Every record the reader read must be in the log as it was read. */
async function check(log: Log, seen: Seen, context: string): Promise<string | undefined> {
  for (const [offset, want] of [...seen].sort((a, b) => a[0] - b[0])) {
    if (offset < log.startOffset) continue; // retention of the workload's own
    if (offset >= log.endOffset) return `${context}: read offset ${offset} is gone (the log ends at ${log.endOffset})`;
    const [got] = await log.read(offset, { maxRecords: 1 });
    if (got === undefined || JSON.stringify(plain(got)) !== JSON.stringify(want))
      return `${context}: offset ${offset} was read as ${JSON.stringify(want)}, the log now holds ${JSON.stringify(got && plain(got))}`;
  }
  return undefined;
}

/** The writer's workload for one round, the reader stepping in between; ends closed or powered off. */
async function round(sim: SimStorage, log: Log, dir: LogDir, next: (n: number) => number, tag: string, seen: Seen) {
  const reader: Reader = { dir: undefined, log: undefined, next: 0 };
  /** `cutFrom`: the lowest offset a truncateTo of this round began to cut at. */
  const writer = {
    log,
    durable: { ever: durableEver, passedBelowStart: new Set<number>(), appended: new Map<number, string>(), marked: 0 },
    cutFrom: Infinity,
  };
  let readerRun = Promise.resolve();
  const pending: Array<Promise<unknown>> = [];
  let violation: string | undefined;
  const forgetFrom = (to: number) => [...seen.keys()].forEach((o) => o >= to && seen.delete(o));
  try {
    for (let op = 0; op < 40 && violation === undefined; op++) {
      const kind = next(20);
      if (kind < 8) {
        const records = Array.from({ length: 1 + next(4) }, (_, i) => ({
          key: `k${next(5)}`,
          value: `${tag}.${op}.${i}`.padEnd(next(300), "v"),
        }));
        const p = log.append(records);
        // A reaction of its own, so the workload's own awaits run as before.
        p.then((at) => records.forEach((r, i) => writer.durable.appended.set(at.baseOffset + i, appendedKey(r))), noop);
        if (next(3) === 0) pending.push(p.catch(() => undefined));
        else await p;
      } else if (kind < 11) {
        await log.flush();
      } else if (kind < 12) {
        await dir.checkpoint();
      } else if (kind < 13 && log.endOffset > log.startOffset) {
        const to = log.startOffset + next(log.endOffset - log.startOffset + 1);
        forgetFrom(to);
        writer.durable.marked = Math.min(writer.durable.marked, to);
        writer.cutFrom = Math.min(writer.cutFrom, to);
        await log.truncateTo(to).finally(() => forgetFrom(to));
      } else if (kind < 14 && log.endOffset > log.startOffset) {
        await log.deleteRecordsBefore(log.startOffset + next(Math.min(6, log.endOffset - log.startOffset) + 1));
      } else if (kind < 17) {
        // The reader's step runs beside the writer's next ops (a second process does not wait
        // for the writer's calls to end): one step at a time, each after the last.
        readerRun = readerRun.then(async () => {
          violation ??= await readerStep(sim, reader, durableReads, seen, writer);
        });
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await markDurable(log, writer.durable);
    }
    await Promise.all(pending);
    await readerRun;
    await dir.close();
  } finally {
    await readerRun.catch(() => undefined);
    await reader.dir?.close().catch(() => undefined);
  }
  return violation;
}

let durableReads = true;
/** Readers ended by a false PAGELOG_CORRUPT, and stale reads of records the workload cut (see readerStep). */
let falseCorrupt = 0;
let staleReads = 0;
/** Durable reads of records the writer had deleted (below its start) before they were flushed. */
let belowStartReads = 0;
/** Every record the writer of the running schedule made durable (markDurable). */
let durableEver = new Set<string>();

/** One schedule: rounds of workload and reader, each ended by a clean close or a power cut. */
async function runSchedule(
  seed: number,
  durable: boolean,
): Promise<{ violation?: string | undefined; cuts: number; read: number }> {
  durableReads = durable;
  durableEver = new Set();
  const next = rng(seed);
  const flushMessages = [-1, -1, 1, 3][next(4)]!;
  const options = { segmentBytes: 600 + next(3000), flushMessages };
  let sim = new SimStorage({ seed });
  const seen: Seen = new Map();
  let cuts = 0;
  let read = 0;
  for (let n = 0; n <= ROUNDS; n++) {
    // Kafka's default checkpoint interval: durable reads elsewhere ride on the published offset.
    const dir = await LogDir.open(sim, { log: options, checkpointIntervalMs: 60_000 });
    const log = await dir.log(NAME);
    const context = `schedule ${seed}, round ${n} (after ${cuts} power cuts)`;
    const violation = await check(log, seen, context);
    read += seen.size;
    if (violation !== undefined || n === ROUNDS) {
      await dir.close();
      return { violation, cuts, read };
    }
    const cut = next(4) !== 0;
    if (cut) sim.scheduleCrash({ afterOps: 1 + next(300) });
    let unexpected: string | undefined;
    try {
      unexpected = await round(sim, log, dir, next, `${n}`, seen);
    } catch (err) {
      if (!sim.poweredOff && !(log.status === "failed" || logEverFailed(log))) throw err;
      await dir.close().catch(() => undefined);
    }
    if (unexpected !== undefined) return { violation: `${context}: ${unexpected}`, cuts, read };
    if (sim.poweredOff || next(2) === 0) {
      sim = sim.crash();
      cuts++;
    } else if (cut) {
      sim.scheduleCrash({ afterOps: 1_000_000_000 });
    }
  }
  return { cuts, read };
}

describe("property: a durable reader in a second opener reads only what every later power cut keeps", () => {
  it.runIf(REPLAY !== undefined)("replays one schedule (PAGELOG_SECOND_OPENER_SCHEDULE)", async () => {
    const outcome = await runSchedule(Number(REPLAY), process.env.PAGELOG_SECOND_OPENER_DURABLE !== "false");
    expect(outcome.violation).toBeUndefined();
  });

  it(`holds for ${RUNS} schedules with durable reads`, async () => {
    let cuts = 0;
    let read = 0;
    let failedSeed = 0;
    const result = await fc.check(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        failedSeed = seed;
        const outcome = await runSchedule(seed, true);
        cuts += outcome.cuts;
        read += outcome.read;
        if (outcome.violation !== undefined) throw new Error(outcome.violation);
      }),
      { ...fastCheckParams(), numRuns: RUNS },
    );
    if (result.failed) {
      const seed = result.counterexample?.[0] ?? failedSeed;
      throw new Error(
        `second-opener durable property failed (fast-check seed ${result.seed})\n` +
          `${String((result.errorInstance as Error)?.message ?? result.errorInstance)}\n\n` +
          `Replay this schedule: PAGELOG_SECOND_OPENER_SCHEDULE=${seed} npx vitest run test/property/durable-follower-second-opener.test.ts\n` +
          `Replay the fast-check run: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(
      `second-opener durable reader: ${RUNS} schedules, ${cuts} power cuts, ${read} records checked, ${falseCorrupt} readers ended by a false PAGELOG_CORRUPT, ${staleReads} stale reads of records the workload cut, ${belowStartReads} durable reads of records deleted before they were flushed`,
    );
    expect(cuts).toBeGreaterThan(RUNS / 2);
    expect(read).toBeGreaterThan(RUNS * 5);
  });

  it("fails without durable: a second opener's plain reads see records a power cut takes back", async () => {
    // Schedules stop at the first violation, so the limit costs nothing once one is found. It is
    // set well above need: about 1 schedule in 30 shows the violation (40 missed it once, with
    // PAGELOG_SEED=2036105257), and a miss would fail a sound check.
    const limit = 600;
    let found: string | undefined;
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        if (found !== undefined) return;
        tried++;
        found = (await runSchedule(seed, false)).violation;
      }),
      { ...fastCheckParams(), numRuns: limit },
    );
    expect(found, `no violation in ${limit} schedules: the check cannot fail`).toBeDefined();
    console.log(`without durable, after ${tried} schedules: ${found}`);
  });
  // Schedule 63044212 (pinned as an open defect before): the start moves from 3 to 4 while offset 3
  // is not flushed yet; an append's flush in flight then fsyncs its segment (which still holds
  // offsets 4 to 7) and publishes 8, and the reader, whose view of the start predates the move,
  // reads offset 3 durably. It was durable; the model skipped offsets below the start and took
  // the read for one of a record never made durable. Which schedules meet that interleaving moves
  // with the microtasks of the code under test (the lazy parts of issue 32 shifted it off
  // 63044212): 63044971 and 63046172 were the two of the next 3,000 seeds that meet it then. All
  // three are pinned, and at least one must still read below the writer's start.
  it("pinned: schedules 63044212, 63044971, 63046172 read durably a record deleted before it was flushed", async () => {
    const before = belowStartReads;
    for (const schedule of [63044212, 63044971, 63046172]) {
      const outcome = await runSchedule(schedule, true);
      expect(outcome.violation, `schedule ${schedule}`).toBeUndefined();
    }
    expect(belowStartReads - before, "no pinned schedule reads below the writer's start any more").toBeGreaterThan(0);
  });
});
