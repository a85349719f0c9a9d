/**
 * `pagelog check`: pagelog's own policies pass (built in, and from a module), and each typical
 * wrong answer under test/fixtures/policies is caught with a reason that names the mistake.
 */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers.js";

const fixture = (name: string) => `test/fixtures/policies/${name}`;

describe("pagelog check", () => {
  it("passes pagelog's own policies without --policies", async () => {
    const { code, stdout, stderr } = await cli(["check"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("pagelog's own policies");
    expect(stdout).toMatch(/all given policies pass \(\d+ cases\)/);
    expect(stdout).not.toContain("FAIL");
  });

  it("passes a module re-exporting them, with --json", async () => {
    const { code, stdout } = await cli(["check", "--policies", fixture("pagelog.mjs"), "--json"]);
    expect(code).toBe(0);
    const { policies } = JSON.parse(stdout) as {
      policies: Record<string, { given: boolean; passed: number; failed: unknown[] }>;
    };
    expect(Object.keys(policies)).toEqual(["writeVarint", "lookup", "segmentsToDelete", "recover"]);
    for (const p of Object.values(policies)) expect(p).toEqual({ given: true, passed: expect.any(Number), failed: [] });
  });

  const wrong: Array<[file: string, policy: string, message: RegExp]> = [
    [
      "recover-no-crc.mjs",
      "recover",
      /a flipped byte .* → expected \d+, got \d+: trusts the length without checking the CRC/,
    ],
    [
      "recover-past-end.mjs",
      "recover",
      /the last batch cut in half → threw RangeError: crcMatches.*check that it fits first/,
    ],
    [
      "lookup-first-above.mjs",
      "lookup",
      /target 57 between entries 50 and 60 → expected \{offset: 50, position: 16384\}, got \{offset: 60, .*not the first one above it/,
    ],
    ["lookup-linear.mjs", "lookup", /reads \d+ entries: a linear scan\? use binary search/],
    [
      "lookup-loops.mjs",
      "lookup",
      /threw RangeError: read more than \d+ entries of a 6-entry index for target \d+: does the search range shrink/,
    ],
    [
      "retention-deletes-active.cjs",
      "segmentsToDelete",
      /never the last segment.* → expected 2, got 3: deletes the active \(last\) segment/,
    ],
    [
      "retention-not-prefix.mjs",
      "segmentsToDelete",
      /a recent segment stops the prefix.* → expected 1, got 2: .*only deletes a prefix/,
    ],
    ["varint-no-zigzag.mjs", "writeVarint", /-1 → expected \[1\], got \[255, 255, 255, 255, 15\]: no zigzag\?/],
    [
      "recover-length-at-zero.mjs",
      "recover",
      /one whole batch → expected \d+, got 0: read the length at byte 0 of the batch at 0 .*the int32 at byte 8/,
    ],
    [
      "recover-skips-bad-batch.mjs",
      "recover",
      /a flipped byte .* → expected (\d+), got \d+: goes on past a batch whose crcMatches\(\1, \d+\) is false/,
    ],
    [
      "recover-off-by-one.mjs",
      "recover",
      /three whole batches → expected (\d+), got \d+: stops before the batch at \d+, which ends exactly at the end of the log \(\1\)/,
    ],
    [
      "recover-cuts-valid-batches.mjs",
      "recover",
      /one whole batch → expected (\d+), got 0: crcMatches\(0, \1\) said the batch at 0 is whole and valid, and recover cut it anyway/,
    ],
  ];

  it("each wrong recover gets the hint for its own mistake, on every case it fails, never another's", async () => {
    const hints: Array<[file: string, hint: RegExp, failed: number]> = [
      ["recover-length-at-zero.mjs", /read the length at byte 0 of the batch at 0/, 9],
      ["recover-skips-bad-batch.mjs", /goes on past a batch whose crcMatches/, 1],
      ["recover-off-by-one.mjs", /which ends exactly at the end of the log/, 3],
      ["recover-cuts-valid-batches.mjs", /said the batch at \d+ is whole and valid, and recover cut it anyway/, 9],
    ];
    for (const [file, hint, failed] of hints) {
      const { stdout } = await cli(["check", "--policies", fixture(file)]);
      const lines = stdout.split("\n").filter((l) => l.includes("FAIL  recover: "));
      expect(lines, file).toHaveLength(failed);
      for (const line of lines) expect(line, file).toMatch(hint);
      expect(stdout, file).not.toMatch(/stops too early|trusts the length without checking the CRC/);
    }
  });

  for (const [file, policy, message] of wrong) {
    it(`catches ${file}`, async () => {
      const { code, stdout } = await cli(["check", "--policies", fixture(file)]);
      expect(code).toBe(1);
      expect(stdout).toMatch(new RegExp(`FAIL  ${policy}: `));
      expect(stdout).toMatch(message);
      const json = JSON.parse((await cli(["check", "--policies", fixture(file), "--json"])).stdout) as {
        policies: Record<string, { given: boolean; failed: Array<{ case: string; reason: string }> }>;
      };
      expect(json.policies[policy]!.failed.length).toBeGreaterThan(0);
      for (const [name, p] of Object.entries(json.policies))
        if (name !== policy) expect(p).toEqual({ given: false, passed: 0, failed: [] });
    });
  }

  it("says which policies were not given", async () => {
    const { stdout } = await cli(["check", "--policies", fixture("lookup-linear.mjs")]);
    expect(stdout).toContain("writeVarint: not given (skipped)");
    expect(stdout).toContain("recover: not given (skipped)");
  });

  it("a policy that throws fails its case with the message", async () => {
    const { code, stdout } = await cli(["check", "--policies", fixture("throws.cjs")]);
    expect(code).toBe(1);
    expect(stdout).toContain("writeVarint: 0 → threw Error: not written yet");
  });

  it("usage errors: a missing module, one with none of the four, a bad flag (exit 2, one line)", async () => {
    for (const [args, message] of [
      [["--policies", fixture("missing.mjs")], /--policies: cannot load/],
      [["--policies", fixture("none.mjs")], /exports none of writeVarint, lookup, segmentsToDelete, recover/],
      [["--polices", "x.mjs"], /unknown option '--polices'/],
      [["--policies"], /--policies needs a value/],
      [["--timeout", "0"], /--timeout must be a number of seconds in \(0, 3600\], got '0'/],
      [["--timeout", "soon"], /--timeout must be a number of seconds/],
    ] as const) {
      const { code, stdout, stderr } = await cli(["check", ...args]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^pagelog check: .*\n$/);
      expect(stderr).toMatch(message);
    }
  });

  it("--help", async () => {
    const { code, stdout } = await cli(["check", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("pagelog check [--policies ./my-policies.mjs] [--json]");
  });
});
