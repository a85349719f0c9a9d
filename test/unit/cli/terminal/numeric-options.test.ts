/**
 * Every numeric option of every command: a negative number is checked by the command (never
 * parseArgs's "ambiguous"), and the message says what the option must be.
 */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers.js";

describe("numeric options", () => {
  const cases: Array<[string[], RegExp]> = [
    [["fuzz", "--runs", "-1"], /--runs must be a positive integer, got '-1'/],
    [["fuzz", "--runs", "0"], /--runs must be a positive integer, got '0'/],
    [["fuzz", "--runs", "1.5"], /--runs must be a positive integer/],
    [["fuzz", "--runs=-1"], /--runs must be a positive integer/],
    [["fuzz", "--minutes", "-1"], /--minutes must be a positive number, got '-1'/],
    [["fuzz", "--minutes", "-.5"], /--minutes must be a positive number/],
    [["fuzz", "--seed", "-3"], /--seed must be an integer in \[0, 2147483647\], got '-3'/],
    [["fuzz", "--replay", "-1"], /--replay must be an integer in \[0, 2147483647\]/],
    [["demo", "--seed", "-1"], /--seed must be a non-negative integer, got '-1'/],
    [["demo", "--page-size", "-64"], /--page-size must be an integer in \[16, 65536\], got '-64'/],
    [["demo", "--sector-size", "-1"], /--sector-size must be an integer in \[1, 64\]/],
    [["demo", "--segment-bytes", "-1"], /--segment-bytes must be an integer in \[128, 1073741824\]/],
    [["demo", "--flush-every", "-1"], /--flush-every must be off, 1 or 5, got '-1'/],
    [["bench", "--repeats", "-1"], /--repeats must be an integer in \[1, 1000\], got '-1'/],
    [["bench", "--scale", "-1"], /--scale must be a number in \(0, 1000\], got '-1'/],
    [["bench", "--scale", "-.5"], /--scale must be a number in \(0, 1000\]/],
    [["check", "--timeout", "-1"], /--timeout must be a number of seconds in \(0, 3600\], got '-1'/],
    [["check", "--timeout", "-0.5"], /--timeout must be a number of seconds/],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.join(" ")}: a usage error saying what the option must be`, async () => {
      const run = await cli(argv);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/ambiguous/);
      expect(run.stdout).toBe("");
    });
  }

  it("a value after -- or a negative positional is left alone", async () => {
    const run = await cli(["fuzz", "--", "--runs", "-1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/must be a positive integer/);
  });
});
