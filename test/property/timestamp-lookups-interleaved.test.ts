/*
 * Property: `offsetForTimestamp` equals a linear scan of what the log reads back, at every step
 * of a random interleaving of appends (rolling many small segments, timestamps out of order),
 * lookups, truncateTo, deleteRecordsBefore, compaction and clean reopens. The lookup keeps a tree
 * of the segments' largest timestamps between calls (src/log/state/timestamp-tree.ts); a tree left
 * stale by any change to the segment list would skip a segment that holds the answer, and the
 * lookups right after each change catch it. The oracle is model-free: the records `records()`
 * returns, so compaction needs no model of what the cleaner keeps.
 * Seeded from PAGELOG_SEED (test/support/seed.ts).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Log } from "../../src/log/log.js";
import type { LogOptions } from "../../src/log/options/log-options.js";
import { fastCheckParams } from "../support/seed.js";
import { NAME, freshLog, openSim, readAll } from "../unit/log/helpers.js";

const encoder = new TextEncoder();

const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      timestamps: fc.array(fc.integer({ min: -50, max: 500 }), { minLength: 1, maxLength: 4 }),
      keys: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 4, maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("lookup" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("truncate" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reopen" as const) }) },
);

/** Every probe worth asking: each timestamp held, its neighbours, and far below and above all. */
async function agrees(log: Log, label: string): Promise<void> {
  const records = await readAll(log);
  const probes = new Set([-10_000, 10_000]);
  for (const r of records) for (const d of [-1, 0, 1]) probes.add(r.timestamp + d);
  for (const ts of probes) {
    const linear = records.find((r) => r.timestamp >= ts)?.offset ?? null;
    expect(await log.offsetForTimestamp(ts), `${label}: offsetForTimestamp(${ts})`).toBe(linear);
  }
}

describe("offsetForTimestamp between changes to the segment list", () => {
  test("equals a linear scan of the records after every append, truncation, deletion, compaction and reopen", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 40 }),
        fc.integer({ min: 200, max: 500 }),
        async (steps, segmentBytes) => {
          // No background cleaning: the oracle reads the log, then the lookups must see what it saw.
          const options: LogOptions = {
            segmentBytes,
            indexIntervalBytes: 1,
            cleanupPolicy: "compact",
            backgroundCleaning: false,
          };
          const opened = await freshLog(options);
          const sim = opened.sim;
          let dir = opened.dir;
          let log = opened.log;
          try {
            for (const [i, s] of steps.entries()) {
              const label = `step ${i} (${s.kind})`;
              const end = log.endOffset;
              if (s.kind === "append") {
                await log.append(
                  s.timestamps.map((timestamp, j) => ({
                    key: encoder.encode(`k${s.keys[j]}`),
                    value: encoder.encode(`v${end + j}`),
                    timestamp,
                  })),
                );
              } else if (s.kind === "truncate") {
                await log.truncateTo(Math.floor(log.startOffset + s.at * (end - log.startOffset)));
              } else if (s.kind === "delete") {
                await log.deleteRecordsBefore(Math.floor(log.startOffset + s.at * (end - log.startOffset)));
              } else if (s.kind === "compact") {
                await log.compact();
              } else if (s.kind === "reopen") {
                await dir.close();
                dir = await openSim(sim);
                log = await dir.log(NAME, options);
              }
              await agrees(log, label);
            }
          } finally {
            await dir.close();
          }
        },
      ),
      { ...fastCheckParams(), numRuns: 60 },
    );
  });
});
