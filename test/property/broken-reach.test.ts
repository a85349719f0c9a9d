/**
 * How soon the crash suite bites: each broken variant must be caught within the first 100
 * schedules of a run, at the default 30 steps per workload, for any run seed. CI checks three
 * seeds (the same ones every time, so a regression in the workload's reach shows as a failure
 * here, not as noise); `node scripts/broken-reach.mjs` measures twenty.
 *
 * `recovery-truncation-not-durable` is caught by the engine's check of the files a recovery
 * counts on (`AdapterLog.recoveredFiles`): the harm it leaves (a segment's rebuilt indexes, or
 * its cut, only in the page cache) needs a second, lucky cut to show in what the log reads, but
 * not to show on the simulated disk.
 */
import { describe, expect, it } from "vitest";
import { BROKEN_VARIANTS } from "../../src/testing/broken/variants.js";
import { fuzz } from "../../src/testing/fuzz.js";

const RUN_SEEDS = [1, 2, 3];
const BUDGET = 100;

describe("every broken variant is caught within 100 schedules of 30 steps", () => {
  for (const variant of BROKEN_VARIANTS) {
    it(`catches '${variant}' within ${BUDGET} schedules of run seeds ${RUN_SEEDS.join(", ")}`, async () => {
      const at: number[] = [];
      for (const seed of RUN_SEEDS) {
        const report = await fuzz({ seed, schedules: BUDGET, brokenVariant: variant });
        const found = report.violationList[0];
        expect(
          found,
          `'${variant}' survived ${BUDGET} schedules of run seed ${seed}: the workloads no longer reach it (replay the run: npx pagelog fuzz --broken ${variant} --seed ${seed} --runs ${BUDGET})`,
        ).toBeDefined();
        at.push(found!.index);
      }
      console.log(`'${variant}' caught at schedules ${at.join(", ")} of run seeds ${RUN_SEEDS.join(", ")}`);
    });
  }
});
