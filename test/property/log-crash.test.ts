/**
 * The crash-recovery proof (DESIGN.md §6): random workloads on SimStorage, the power cut at a
 * random storage operation, again inside recovery, every guarantee checked against a model.
 * On failure it prints the seed and the fast-check path; replay with
 *   PAGELOG_SEED=<seed> PAGELOG_PATH=<path> npx vitest run test/property/log-crash.test.ts
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runSchedule } from "../../src/testing/crash-harness.js";
import { scheduleArbitrary } from "../../src/testing/crash-workload.js";

const RUNS = Number(process.env.PAGELOG_CRASH_RUNS ?? 2000);

describe("property: a power cut at any operation leaves a valid prefix that keeps every flushed record", () => {
  it(`holds for ${RUNS} random crash schedules`, async () => {
    const seed = process.env.PAGELOG_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.PAGELOG_SEED);
    const path = process.env.PAGELOG_PATH;
    let cuts = 0;
    let inWorkload = 0;
    const result = await fc.check(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        const outcome = await runSchedule(schedule);
        cuts += outcome.powerCuts;
        if (outcome.cutInWorkload) inWorkload++;
      }),
      { numRuns: RUNS, seed, ...(path === undefined ? {} : { path, endOnFailure: true }) },
    );
    if (result.failed) {
      const replay = `PAGELOG_SEED=${result.seed} PAGELOG_PATH=${result.counterexamplePath} npx vitest run test/property/log-crash.test.ts`;
      throw new Error(`${fc.defaultReportMessage(result)}\n\n${String((result.errorInstance as Error)?.message ?? result.errorInstance)}\n\nReplay: ${replay}`);
    }
    console.log(`crash schedules: ${RUNS}, power cuts: ${cuts}, cut inside the workload: ${inWorkload}`);
    expect(inWorkload).toBeGreaterThan(RUNS * 0.9);
  });
});
