/*
 * Property: on a log of many small segments, `read(offset, { maxRecords: 1 })` and
 * `offsetForTimestamp(ts)` agree with a linear scan of the model, whichever segment holds the
 * answer: after appends that roll many segments (non-monotonic timestamps), after
 * `deleteRecordsBefore` moves the start into or past a segment, and after a clean reopen (every
 * old segment lazy, loaded by the lookup itself). The segment of an offset is found by a binary
 * search over the segment list; this pins its edges (first, last, the start offset).
 * Seeded from PAGELOG_SEED (test/support/seed.ts).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Log } from "../../src/log/log.js";
import { fastCheckParams } from "../support/seed.js";
import { NAME, freshLog, openSim, recordAt } from "../unit/log/helpers.js";

const scenario = fc.record({
  /** Records per append call (each call is one batch). */
  batches: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 10, maxLength: 40 }),
  timestamps: fc.array(fc.integer({ min: -30, max: 300 }), { minLength: 160, maxLength: 160 }),
  segmentBytes: fc.integer({ min: 150, max: 600 }),
  /** deleteRecordsBefore this fraction of the records (0: none). */
  deleteAt: fc.double({ min: 0, max: 1, noNaN: true }),
});

/** The first offset at or after `from` whose timestamp is >= ts, or null. */
function linear(stamps: readonly number[], ts: number, from: number): number | null {
  for (let i = from; i < stamps.length; i++) if (stamps[i]! >= ts) return i;
  return null;
}

async function agrees(log: Log, stamps: readonly number[], start: number, phase: string): Promise<void> {
  for (let offset = start; offset < stamps.length; offset++) {
    const got = await log.read(offset, { maxRecords: 1 });
    expect(
      got.map((r) => [r.offset, r.timestamp]),
      `${phase}: read(${offset})`,
    ).toEqual([[offset, stamps[offset]]]);
  }
  expect(await log.read(stamps.length, { maxRecords: 1 }), `${phase}: read(end)`).toEqual([]);
  const probes = new Set([-1000, 10_000]);
  for (const t of stamps) for (const d of [-1, 0, 1]) probes.add(t + d);
  for (const ts of probes)
    expect(await log.offsetForTimestamp(ts), `${phase}: ts ${ts}`).toBe(linear(stamps, ts, start));
}

describe("log lookups on many segments", () => {
  test("read(offset) and offsetForTimestamp equal a linear scan across many segments, after deleteRecordsBefore and a lazy reopen", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ batches, timestamps, segmentBytes, deleteAt }) => {
        const options = { segmentBytes, indexIntervalBytes: 1 };
        const { sim, dir, log } = await freshLog(options);
        const stamps: number[] = [];
        for (const n of batches) {
          const records = Array.from({ length: n }, (_, i) =>
            recordAt(stamps.length + i, timestamps[stamps.length + i]),
          );
          for (const r of records) stamps.push(r.timestamp as number);
          await log.append(records);
        }
        expect(log.segmentCount).toBeGreaterThan(1);
        await agrees(log, stamps, 0, "appended");
        const start = Math.floor(deleteAt * stamps.length);
        if (start > 0) await log.deleteRecordsBefore(start);
        await agrees(log, stamps, start, "after deleteRecordsBefore");
        await dir.close();
        const reopened = await openSim(sim);
        try {
          await agrees(await reopened.log(NAME, options), stamps, start, "reopened");
        } finally {
          await reopened.close();
        }
      }),
      { ...fastCheckParams(), numRuns: 40 },
    );
  });
});
