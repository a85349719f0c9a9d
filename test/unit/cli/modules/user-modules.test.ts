/**
 * A reader's module on the command line (`--policies`, `--adapter`): whatever is wrong with it is
 * one line, exit 2, that names their file as they typed it, says where a syntax error is, and
 * never shows pagelog's own paths; an adapter whose calls never settle fails its schedule after
 * `--timeout` instead of hanging `fuzz`. (The built CLI: test/integration/cli-user-modules.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers.js";

const policies = (name: string) => `test/fixtures/policies/${name}`;
const adapters = (name: string) => `test/fixtures/adapters/${name}`;
/** Paths of pagelog's own code (from source or built): none belongs in a message about their module. */
const OWN_PATHS = /\/src\/|dist\/|chunk-|node:internal|node_modules/;

/** Runs a command that must fail with one usage line; returns that line. */
async function usage(args: string[]): Promise<string> {
  const run = await cli(args);
  expect(run.code, args.join(" ")).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/^pagelog \w+: .*\n$/);
  expect(run.stderr).not.toMatch(OWN_PATHS);
  return run.stderr;
}

describe("--policies and --adapter modules that cannot be used", () => {
  it("a syntax error says file:line:column and shows the line", async () => {
    for (const command of ["check", "fuzz", "demo"]) {
      const line = await usage([command, "--policies", policies("syntax-error.mjs")]);
      expect(line).toContain(
        `cannot load '${policies("syntax-error.mjs")}': SyntaxError: Unexpected token '{' at ./${policies("syntax-error.mjs")}:7:36: "const mid = (low + high) >>> 1 {"`,
      );
    }
  });

  it("a missing module names the file it looked for, relative to the working directory, as typed", async () => {
    const typed = "./test/fixtures/policies/../policies/nope.mjs";
    const line = await usage(["check", "--policies", typed]);
    expect(line).toContain(`cannot load '${typed}': no such file (looked for ./test/fixtures/policies/nope.mjs)`);
    expect(await usage(["fuzz", "--adapter", adapters("nope.mjs")])).toContain(
      `--adapter: cannot load '${adapters("nope.mjs")}': no such file (looked for ./${adapters("nope.mjs")})`,
    );
  });

  it("a module that imports a missing file names that file and the module importing it", async () => {
    const line = await usage(["check", "--policies", policies("imports-missing.mjs")]);
    expect(line).toContain(`cannot load '${policies("imports-missing.mjs")}': `);
    expect(line).toMatch(/helpers\/floor-search\.mjs/);
    expect(line).toContain("imported from ./test/fixtures/policies/imports-missing.mjs");
    expect(line).not.toContain(process.cwd());
  });

  it("a module that throws while it loads says what it threw and where in their file", async () => {
    const line = await usage(["check", "--policies", policies("throws-on-load.mjs")]);
    expect(line).toMatch(
      /cannot load '\S+throws-on-load\.mjs': SyntaxError: .*JSON.* \(at .*test\/fixtures\/policies\/throws-on-load\.mjs:2:\d+\)/,
    );
  });

  it("a getter that throws on the exports is a usage error (exit 2), for --policies and --adapter", async () => {
    expect(await usage(["check", "--policies", policies("throwing-getter.mjs")])).toContain(
      `--policies: reading the exports of '${policies("throwing-getter.mjs")}' threw Error: recover is not ready`,
    );
    expect(await usage(["fuzz", "--adapter", adapters("throwing-getter.mjs")])).toContain(
      `--adapter: reading the adapter of '${adapters("throwing-getter.mjs")}' threw TypeError: open is not configured`,
    );
    expect(await usage(["fuzz", "--adapter", adapters("throwing-name.cjs")])).toContain("threw Error: no name yet");
  });
});

describe("pagelog fuzz --adapter --timeout", () => {
  it("an open() that never settles fails the schedule after the time limit, with its replay command, unshrunk", async () => {
    const started = Date.now();
    const run = await cli(["fuzz", "--adapter", adapters("open-never-settles.mjs"), "--timeout", "0.5", "--seed", "3"]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "opening the log failed: Error: the adapter's open() did not settle within 0.5 s: a promise that never resolves? (--timeout S gives it longer)",
    );
    expect(run.stdout).toMatch(
      /^replay: npx pagelog fuzz --adapter \S+open-never-settles\.mjs --replay 3 --timeout 0\.5$/m,
    );
    expect(run.stdout).toContain("not shrinking schedule 3: a call that never settles would hang every rerun");
    expect(run.stdout).not.toMatch(OWN_PATHS);
  });

  it("a call on the log that never settles (append) names the step and the call", async () => {
    const run = await cli([
      "fuzz",
      "--adapter",
      adapters("append-never-settles.mjs"),
      "--timeout",
      "0.2",
      "--seed",
      "3",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\(step #\d+ append .*\): Error: the log's append\(\) did not settle within 0\.2 s/);
  });

  it("--timeout must be seconds in (0, 3600]; a working adapter passes with the default", async () => {
    for (const bad of ["0", "-1", "soon", "3601"])
      expect(await usage(["fuzz", "--adapter", adapters("open-never-settles.mjs"), "--timeout", bad])).toContain(
        `--timeout must be a number of seconds in (0, 3600], got '${bad}'`,
      );
  });
});
