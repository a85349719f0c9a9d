/**
 * Proof that the crash suite bites: each deliberately broken log (src/testing/broken/variants.ts: the real log over a storage that breaks one rule)
 * must be caught by the same schedules that pass on the real log. The run seed is fixed, so
 * each variant is caught at the same schedule every time; the test prints where.
 */
import { describe, expect, it } from "vitest";
import { BROKEN_VARIANTS } from "../../src/testing/broken/variants.js";
import { fuzz } from "../../src/testing/fuzz.js";

const RUN_SEED = 1;
const BUDGET = 1500;

describe("the crash suite catches every broken variant", () => {
  for (const variant of BROKEN_VARIANTS) {
    it(`catches '${variant}'`, async () => {
      const report = await fuzz({ seed: RUN_SEED, runs: BUDGET, brokenVariant: variant });
      const found = report.violationList[0];
      expect(found, `'${variant}' survived ${BUDGET} schedules of run seed ${RUN_SEED}: the suite does not bite`).toBeDefined();
      console.log(`'${variant}' caught at schedule ${found!.index} (schedule seed ${found!.scheduleSeed}): ${found!.replay}`);
    });
  }

  it("the same schedules pass on the real log", async () => {
    const report = await fuzz({ seed: RUN_SEED, runs: 60 });
    expect(report.violationList.map((v) => v.message)).toEqual([]);
  });
});
