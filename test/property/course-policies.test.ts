/**
 * The crash suite on the course's policies: pagelog's own answers plugged into the Log pass the
 * power-cut schedules; a recover that trusts lengths without the CRC is caught, the violation
 * naming the reader's function, and replays from its seed. Seeds are fixed: a failure prints them.
 */
import { describe, expect, it } from "vitest";
import { kafkaPolicies } from "../../src/course.js";
import type { CoursePolicies } from "../../src/policies/policy-types.js";
import { crashTest, pagelogAdapter } from "../../src/testing.js";
import { cli } from "../unit/cli/helpers.js";

const SEED = 20261201;

async function fixture(name: string): Promise<Partial<CoursePolicies>> {
  const path = `../fixtures/policies/${name}`;
  return (await import(/* @vite-ignore */ path)) as Partial<CoursePolicies>;
}

describe("crashTest({ policies })", () => {
  it("pagelog's own policies plugged into the Log keep every guarantee (400 schedules)", async () => {
    const summary = await crashTest({ policies: kafkaPolicies, seed: SEED, schedules: 400 });
    expect(summary.adapter).toContain("on your writeVarint, lookup, segmentsToDelete, recover");
    expect(summary.violations).toEqual([]);
  });

  it("a recover without the CRC check is caught, naming it, and the violation replays by its seed", async () => {
    const policies = await fixture("recover-no-crc.mjs");
    const summary = await crashTest(pagelogAdapter(), {
      policies,
      seed: SEED,
      schedules: 500,
      throwOnViolation: false,
    });
    const first = summary.violations[0];
    expect(first, `no violation in 500 schedules from seed ${SEED}`).toBeDefined();
    expect(first!.message).toMatch(/your recover kept \d+ bytes/);
    expect(first!.replay).toMatch(/policies/);
    const again = await crashTest(pagelogAdapter(), {
      policies,
      seed: first!.seed,
      schedules: 1,
      throwOnViolation: false,
    });
    expect(again.violations[0]?.message).toBe(first!.message);
  });

  it("a lookup that returns the first entry above the target is caught", async () => {
    const summary = await crashTest({
      policies: await fixture("lookup-first-above.mjs"),
      seed: SEED,
      schedules: 300,
      throwOnViolation: false,
    });
    expect(summary.violations[0]?.message).toMatch(/your lookup returned the entry for offset \d+/);
  });

  it("the course's four reference answers pass 1,000 schedules of pagelog fuzz --policies", async () => {
    // test/fixtures/policies/course-reference*.mjs: each chapter's rule as the course states it,
    // recover with no check beyond length and crcMatches (a zero-filled tail must end its walk).
    const run = await cli([
      "fuzz",
      "--policies",
      "test/fixtures/policies/course-reference.mjs",
      "--runs",
      "1000",
      "--seed",
      "1",
    ]);
    expect(run.stdout).toContain("running on: your writeVarint, lookup, segmentsToDelete, recover");
    expect(run.stdout).not.toContain("VIOLATION");
    expect(run.stdout).toMatch(/summary: 1000 schedules, .* 0 violations/);
    expect(run.code).toBe(0);
  }, 600_000);

  it("crashTest({}) without policies is still a missing adapter", async () => {
    await expect(crashTest({} as never)).rejects.toThrow(TypeError);
    await expect(crashTest(pagelogAdapter(), { policies: 3 as never })).rejects.toThrow(TypeError);
  });
});
