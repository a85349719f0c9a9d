import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

describe("pagelog fuzz", () => {
  it("fuzz: a seeded run prints its seed, a summary, and exits 0 with no violation", async () => {
    const run = await cli(["fuzz", "--runs", "25", "--seed", "3"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^pagelog fuzz · seed 3 · 25 schedules/);
    expect(run.stdout).toMatch(/summary: 25 schedules, \d+ power cuts, \d+ records recovered, 0 violations/);
  });

  it("fuzz --replay: runs one schedule by its seed and prints its trace", async () => {
    const run = await cli(["fuzz", "--replay", "12345"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/open: cut scheduled after/);
    expect(run.stdout).toMatch(/schedule 12345: no violation/);
  });

  it("fuzz --broken: a broken log is caught (exit 0), with the replay command of the schedule that caught it", async () => {
    const run = await cli(["fuzz", "--runs", "200", "--seed", "1", "--broken", "skip-crc-in-recovery"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/VIOLATION in schedule \d+ \(seed (\d+)\)/);
    expect(run.stdout).toMatch(/replay: npx pagelog fuzz --replay \d+ --broken skip-crc-in-recovery/);
    expect(run.stdout).toMatch(/was caught at schedule/);
  });

  it("fuzz: bad arguments are one-line errors with exit 2", async () => {
    for (const argv of [["fuzz", "--runs", "x"], ["fuzz", "--broken", "nope"], ["fuzz", "--runs", "1", "--minutes", "1"], ["fuzz", "--bogus"]]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), argv.join(" ")).toHaveLength(1);
    }
  });
});
