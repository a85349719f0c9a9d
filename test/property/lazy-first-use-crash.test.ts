/**
 * Lazy segments under power cuts: a workload that reopens the directory between its reads, so
 * that old segments are loaded for the first time after clean opens that follow crashes and
 * recoveries, and the power is cut at a random storage operation, also inside first uses (an
 * index rebuilt on first use, retention deleting segments it just loaded). After every reboot
 * each flushed record must be there, every record read must be the one appended at its offset,
 * and reads and iterations must never end early or skip.
 * Replay one schedule: PAGELOG_SEED=<seed> with the test's name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams } from "../support/seed.js";
import { size } from "../support/budget.js";
import { LogDir } from "../../src/log/log-dir.js";
import type { Log } from "../../src/log/log.js";
import { offsetName } from "../../src/segment/segment-names.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import { rng } from "../support/xorshift.js";

const RUNS = size("lazyRuns");
const NAME = "lazy-0";

const valueOf = (offset: number, round: number) => `r${round}-o${offset}`;

interface Model {
  /** Every record appended, by offset (the value says which append). */
  readonly values: string[];
  /** Every offset below this was flushed (or read back after a reboot): it must survive. */
  durable: number;
  /** The start offset can only move forward; records below it are gone. */
  start: number;
}

async function checkAll(log: Log, model: Model, context: string): Promise<void> {
  expect(log.endOffset, `${context}: end`).toBeGreaterThanOrEqual(model.durable);
  expect(log.endOffset, `${context}: end`).toBeLessThanOrEqual(model.values.length);
  expect(log.startOffset, `${context}: start`).toBeGreaterThanOrEqual(model.start);
  let next = log.startOffset;
  for await (const r of log.records()) {
    expect(r.offset, `${context}: iteration skipped`).toBe(next);
    expect(new TextDecoder().decode(r.value!), `${context}: offset ${r.offset}`).toBe(model.values[r.offset]);
    next++;
  }
  expect(next, `${context}: iteration ended early`).toBe(log.endOffset);
}

/** One schedule: rounds of (reopen, reads of old segments, appends, flushes, retention), each ended by a clean close or a power cut. */
async function runSchedule(seed: number): Promise<{ cuts: number; firstUses: number }> {
  const next = rng(seed);
  let sim = new SimStorage({ seed });
  const segmentBytes = 200 + next(400);
  const options = { segmentBytes, indexIntervalBytes: next(2) === 0 ? 0 : 4096 };
  const model: Model = { values: [], durable: 0, start: 0 };
  let cuts = 0;
  let firstUses = 0;
  for (let round = 0; round < 8; round++) {
    const context = `schedule ${seed}, round ${round}`;
    // Damage nothing: only crashes. A round cut by the power ends in a reboot.
    const cutAfter = next(3) === 0 ? 1 + next(300) : undefined;
    if (cutAfter !== undefined) sim.scheduleCrash({ afterOps: cutAfter });
    let dir: LogDir | undefined;
    try {
      dir = await LogDir.open(sim, { log: options });
      const log = await dir.log(NAME);
      // What survived: every durable record, and no record that was never appended.
      model.start = Math.max(model.start, log.startOffset);
      await checkAll(log, model, `${context} (after open, clean ${log.recovery.clean})`);
      model.durable = log.endOffset; // it was read back whole: from here on it must stay
      model.values.length = log.endOffset;
      for (let op = 0; op < 12; op++) {
        const kind = next(10);
        if (kind < 4 && log.endOffset > log.startOffset) {
          // A read anywhere: most often an old segment, idle since this open.
          const at = log.startOffset + next(log.endOffset - log.startOffset);
          const got = await log.read(at, { maxRecords: 1 });
          expect(got[0]?.offset, `${context}: read ${at}`).toBe(at);
          expect(new TextDecoder().decode(got[0]!.value!)).toBe(model.values[at]);
          firstUses = Math.max(firstUses, log.recovery.indexesRebuilt);
        } else if (kind < 7) {
          const count = 1 + next(3);
          const base = log.endOffset;
          const records = Array.from({ length: count }, (_, i) => ({
            value: valueOf(base + i, round),
            timestamp: 1_000 + base + i,
          }));
          for (let i = 0; i < count; i++) model.values[base + i] = valueOf(base + i, round);
          await log.append(records);
        } else if (kind < 8) {
          await log.flush();
          model.durable = log.endOffset;
        } else if (kind < 9 && log.endOffset > log.startOffset) {
          const at = log.startOffset + next(log.endOffset - log.startOffset);
          expect(await log.offsetForTimestamp(1_000 + at), `${context}: offsetForTimestamp`).toBe(at);
        } else if (log.endOffset > log.startOffset + 4) {
          const to = log.startOffset + next(4);
          await log.deleteRecordsBefore(to);
          model.start = Math.max(model.start, to);
        }
      }
      await dir.close();
      dir = undefined;
      model.durable = model.values.length; // a clean close flushed everything
    } catch (err) {
      // The power went (every later call fails PAGELOG_POWER_CUT): the next round opens the
      // rebooted disk. Anything else, and any failed check, is a violation.
      if (!sim.poweredOff || (err as Error)?.name === "AssertionError") throw err;
    }
    if (sim.poweredOff) {
      cuts++;
      sim = sim.crash();
      // A power cut can undo anything not yet flushed: the model keeps what was durable.
    } else if (cutAfter !== undefined) {
      sim.scheduleCrash({ afterOps: 1_000_000_000 });
    }
  }
  // Finally a clean open reads every old segment for the first time after all that.
  const dir = await LogDir.open(sim, { log: options });
  const log = await dir.log(NAME);
  await checkAll(log, model, `schedule ${seed}, final`);
  for (const base of log.segmentBaseOffsets) expect(offsetName(base)).toHaveLength(20);
  await dir.close();
  return { cuts, firstUses };
}

describe("property: lazy first uses after crashes and clean reopens keep every flushed record", () => {
  it(`holds for ${RUNS} schedules`, async () => {
    let cuts = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const outcome = await runSchedule(seed);
        cuts += outcome.cuts;
      }),
      { ...fastCheckParams(), numRuns: RUNS },
    );
    expect(cuts).toBeGreaterThan(RUNS / 4);
  });
});
