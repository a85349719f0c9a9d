/**
 * The course's four reference answers (test/fixtures/policies/course-reference-*.mjs, each
 * restated from its chapter's rule and nothing stricter) pass everything pagelog runs a reader's
 * policies through: `check` and the demo's scripts (and 1,000 schedules of `fuzz --policies`:
 * test/property/course-policies.test.ts). The typical wrong answers next to them are still
 * caught (test/unit/cli/check/check.test.ts, fuzz-policies.test.ts).
 */
import { describe, expect, it } from "vitest";
import { cli } from "../unit/cli/helpers.js";

const fixture = (name: string) => `test/fixtures/policies/${name}`;
const REFERENCES = [
  ["course-reference-varint.mjs", "writeVarint"],
  ["course-reference-lookup.mjs", "lookup"],
  ["course-reference-lookup-copy.mjs", "lookup"],
  ["course-reference-retention.mjs", "segmentsToDelete"],
  ["course-reference-recover.mjs", "recover"],
] as const;

describe("the course's reference answers", () => {
  it.each(REFERENCES)("%s passes every case of pagelog check", async (file, policy) => {
    const { code, stdout } = await cli(["check", "--policies", fixture(file)]);
    expect(stdout).not.toContain("FAIL");
    expect(stdout).toMatch(new RegExp(`^${policy}: \\d+ passed$`, "m"));
    expect(code).toBe(0);
  });

  it.each([
    ["recover-no-crc.mjs", "recover", /trusts the length without checking the CRC/],
    ["recover-past-end.mjs", "recover", /threw RangeError: crcMatches\(\d+, \d+\): not within the log/],
    ["lookup-first-above.mjs", "lookup", /not the first one above it/],
    ["lookup-linear.mjs", "lookup", /a linear scan\? use binary search/],
    ["retention-deletes-active.cjs", "segmentsToDelete", /deletes the active \(last\) segment/],
    ["varint-no-zigzag.mjs", "writeVarint", /no zigzag\?/],
  ])("next to them, the typical wrong answer %s still fails check", async (file, policy, why) => {
    const { code, stdout } = await cli(["check", "--policies", fixture(file)]);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`FAIL  ${policy}: .*${why.source}`));
  });

  // A power cut most often leaves a zero-filled tail (a size on disk past the pages written):
  // these seeds and scripts meet one, and the course's recover must walk into it and stop.
  const SCRIPTS = [undefined, "break-it", "produce 4, writeback, produce 2, flush, produce 3, writeback, cut, restart"];
  it.each(SCRIPTS)("all four run the demo script %s on seeds 1 to 16 without BROKEN or THREW", async (script) => {
    for (let seed = 1; seed <= 16; seed++) {
      const args = ["demo", "--policies", fixture("course-reference.mjs"), "--seed", String(seed)];
      const run = await cli(script === undefined ? args : [...args, "--script", script]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("running on: your writeVarint, lookup, segmentsToDelete, recover");
      const bad = run.stdout.split("\n").find((line) => /BROKEN|THREW|failed:/.test(line));
      expect(bad, `seed ${seed}`).toBeUndefined();
      expect(run.stdout).toMatch(/> restart after a power cut: recovery cut \d+ bytes/);
    }
  });
});
