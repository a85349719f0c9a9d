/**
 * Every command words a malformed command line in pagelog's own one line: never Node's parseArgs
 * text ("To specify a positional argument starting with a '-'…", "argument is ambiguous",
 * "Did you forget…"), and always exit 2.
 */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers.js";

const NODE_TEXT = /To specify|positional argument|ambiguous|Did you forget|ERR_PARSE_ARGS|<value>|\. \(try/;

describe("command lines: pagelog's own words, exit 2", () => {
  const cases: Array<[string[], RegExp]> = [
    [["dump", "-x"], /^pagelog dump: unknown option '-x' \(try --help; a path that starts with '-' goes after --\)$/],
    [["verify", "--bogus", "."], /^pagelog verify: unknown option '--bogus' \(try --help\)$/],
    [["demo", "--nope"], /^pagelog demo: unknown option '--nope' \(try --help\)$/],
    [["bench", "-q"], /^pagelog bench: unknown option '-q'/],
    [["check", "-z"], /^pagelog check: unknown option '-z'/],
    [["fuzz", "--what"], /^pagelog fuzz: unknown option '--what'/],
    [["verify", "-hx", "."], /^pagelog verify: unknown option '-x'/],
    [["dump", "--records=yes", "."], /^pagelog dump: --records takes no value, got '--records=yes'$/],
    [["verify", "--json=1", "."], /^pagelog verify: --json takes no value/],
    [["check", "--policies"], /^pagelog check: --policies needs a value \(try --help\)$/],
    [["fuzz", "--seed"], /^pagelog fuzz: --seed needs a value/],
    [
      ["fuzz", "--seed", "-x"],
      /^pagelog fuzz: --seed needs a value, but is followed by the option '-x' \(write --seed=-x if that is the value\)$/,
    ],
    [
      ["demo", "--script", "--seed", "3"],
      /^pagelog demo: --script needs a value, but is followed by the option '--seed'/,
    ],
    [
      ["check", "extra"],
      /^pagelog check: unexpected argument 'extra': this command takes only options \(try --help\)$/,
    ],
    [["fuzz", "12"], /^pagelog fuzz: unexpected argument '12'/],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.join(" ")}`, async () => {
      const run = await cli(argv);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toMatch(NODE_TEXT);
      expect(run.stderr.endsWith("\n") && run.stderr.split("\n").length === 2, run.stderr).toBe(true);
      expect(run.stderr.trimEnd()).toMatch(message);
    });
  }

  it("a value given with = may start with a dash; a path after -- is a path", async () => {
    const seed = await cli(["fuzz", "--seed=-x"]);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toMatch(/--seed must be an integer/);
    const path = await cli(["dump", "--", "-no-such-file"]);
    expect(path.code).toBe(2);
    expect(path.stderr).toMatch(/^pagelog dump: cannot read -no-such-file: /);
  });
});
