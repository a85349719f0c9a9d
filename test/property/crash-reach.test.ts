/**
 * The fuzzer's reach (src/testing/engine/reach.ts): every schedule counts the decisions it made
 * from real events, and a run whose workloads never reach a decision fails, naming it, the seed
 * and the command that replays the run. The crash property (log-crash.test.ts) checks it over
 * its 2000 schedules; here a planted workload that cannot reach some decisions must fail it.
 */
import { describe, expect, it } from "vitest";
import { testReplayCommand, testSeed } from "../support/seed.js";
import { crashTest, pagelogAdapter } from "../../src/testing.js";
import { reachFailure } from "../../src/testing/engine/reach.js";
import type { CrashTestAdapter } from "../../src/testing/engine/adapter.js";
import { fuzz } from "../../src/testing/fuzz.js";

describe("the fuzzer's reach", () => {
  it("a workload that never truncates nor moves the start never reaches their decisions, and the check says so", async () => {
    const seed = testSeed();
    const full = pagelogAdapter();
    // Planted: the same log, but its workloads may not truncate or move the start.
    const planted: CrashTestAdapter = {
      ...full,
      extraSteps: (full.extraSteps ?? []).filter((s) => s !== "truncate" && s !== "deleteBefore"),
    };
    const summary = await crashTest(planted, { seed, schedules: 40 });
    expect(summary.reach["truncation-finished"]).toBe(0);
    expect(summary.reach["tmp-removed"]).toBe(0);
    const replay = testReplayCommand();
    const message = reachFailure(summary.reach, { schedules: summary.schedules, seed, replay });
    expect(message).toBeDefined();
    expect(message).toContain("truncation-finished");
    expect(message).toContain("tmp-removed");
    expect(message).toContain(`seed ${seed}`);
    expect(message).toContain(`Replay: ${replay}`);
    // What it did reach is counted from real events, not listed as missing.
    expect(summary.reach["crash-recovery"]).toBeGreaterThan(0);
    expect(message).not.toMatch(/reached .*: .*crash-recovery/);
  });

  it("crashTest and pagelog fuzz return the counts; every decision a run reports was counted from its schedules", async () => {
    const seed = testSeed();
    const summary = await crashTest(pagelogAdapter(), { seed, schedules: 30 });
    const report = await fuzz({ seed, schedules: 30 });
    for (const r of [summary.reach, report.reach]) {
      expect(Object.keys(r)).toEqual(expect.arrayContaining(["crash-step", "page-torn", "tail-cut", "clean-open"]));
      for (const n of Object.values(r)) expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
    }
    // Every schedule reopens after a power cut at least once (the dry run and the cut run).
    expect(report.reach["crash-recovery"]).toBeGreaterThanOrEqual(2 * report.schedules);
    // Deterministic: the same run counts the same.
    expect((await fuzz({ seed, schedules: 30 })).reach).toEqual(report.reach);
  });
});
