/**
 * The crash property of log-crash.test.ts with a tiny descriptor bound: the same random
 * schedules (power cuts in the workload and inside recovery, write-back, torn pages, injected
 * EIO/ENOSPC on sync, write and syncDir), run with `maxOpenFiles` 1 to 4, so the handle pool
 * evicts, syncs and reopens segment files through the whole workload, recovery and the checks.
 * Every eviction sync and reopen is a storage operation the power can be cut at, and an injected
 * sync fault can hit an eviction's sync: the pool must then fail the file's next sync, and the log
 * must go `failed` (the harness checks that no flushed record is lost either way).
 *
 * Run more with PAGELOG_FD_CRASH_RUNS=<n>; replay with PAGELOG_SEED / PAGELOG_PATH.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { replay } from "../../src/testing/fuzz.js";

const RUNS = size("fdCrashRuns");
const BOUNDS = [1, 2, 3, 4] as const;

describe("property: a power cut at any operation keeps every flushed record with a tiny descriptor bound", () => {
  it(`holds for ${RUNS} random crash schedules with maxOpenFiles 1–4`, async () => {
    const params = fastCheckParams();
    let inWorkload = 0;
    const result = await fc.check(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(...BOUNDS),
        async (scheduleSeed, maxOpenFiles) => {
          const outcome = await replay(scheduleSeed, undefined, { maxOpenFiles });
          if (outcome.cutInWorkload) inWorkload++;
        },
      ),
      { ...params, numRuns: RUNS },
    );
    if (result.failed) {
      const message = String((result.errorInstance as Error)?.message ?? result.errorInstance);
      throw new Error(
        `crash property with a small descriptor bound failed (fast-check seed ${result.seed}, path ${result.counterexamplePath}, ` +
          `schedule seed and bound ${JSON.stringify(result.counterexample)})\n${message}\n\n` +
          `Replay: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    expect(inWorkload).toBeGreaterThan(RUNS * 0.8);
  });
});
