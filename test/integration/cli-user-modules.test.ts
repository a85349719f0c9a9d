/**
 * The built CLI (dist/cli.js: run `npm run build` first) on a reader's broken modules, in a real
 * process: what only a process shows. A module whose top-level await never settles used to make
 * Node exit 13 without a word; a failing policy's report and a missing module's message used to
 * show pagelog's dist/chunk-*.js paths.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

const CLI = "dist/cli.js";
const OWN_PATHS = /dist\/|chunk-|node:internal|\/src\//;

function pagelog(...args: string[]): { code: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build before this test`);
});

describe("the built pagelog CLI on a reader's modules", () => {
  it("a top-level await that never settles: a clear message and exit 2 (not 13 in silence), at once", () => {
    for (const args of [
      ["check", "--policies", "test/fixtures/policies/top-level-await.mjs"],
      ["fuzz", "--policies", "test/fixtures/policies/top-level-await.mjs"],
      ["demo", "--policies", "test/fixtures/policies/top-level-await.mjs"],
      ["fuzz", "--adapter", "test/fixtures/adapters/top-level-await.mjs"],
    ]) {
      const run = pagelog(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(
        new RegExp(
          `^pagelog ${args[0]}: --(policies|adapter): '${args[2]}' never finished loading: its top-level await waits for something that can never happen\\n$`,
        ),
      );
      expect(run.ms).toBeLessThan(8_000);
    }
  });

  it("a missing module and a syntax error name their file, line and column, and no path of pagelog's", () => {
    const missing = pagelog("check", "--policies", "test/fixtures/policies/nope.mjs");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "pagelog check: --policies: cannot load 'test/fixtures/policies/nope.mjs': no such file (looked for ./test/fixtures/policies/nope.mjs)\n",
    );
    const nested = pagelog("check", "--policies", "test/fixtures/policies/imports-missing.mjs");
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain(
      "Cannot find module './test/fixtures/policies/helpers/floor-search.mjs' imported from ./test/fixtures/policies/imports-missing.mjs",
    );
    const syntax = pagelog("fuzz", "--policies", "test/fixtures/policies/syntax-error.mjs");
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toContain(
      `SyntaxError: Unexpected token '{' at ./test/fixtures/policies/syntax-error.mjs:7:36: "const mid = (low + high) >>> 1 {"`,
    );
    const folder = pagelog("check", "--policies", "test/fixtures/policies");
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(
      "pagelog check: --policies: cannot load 'test/fixtures/policies': it is a directory, not a module file\n",
    );
    for (const run of [missing, nested, syntax, folder]) expect(run.stderr).not.toMatch(OWN_PATHS);
  });

  it("a failing policy's violation shows their frames and none of pagelog's chunks", () => {
    const run = pagelog(
      "fuzz",
      "--policies",
      "test/fixtures/policies/recover-bad-read.mjs",
      "--runs",
      "50",
      "--seed",
      "1",
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/your recover threw RangeError: readInt32/);
    expect(run.stdout).toMatch(/at nextBatch \(file:\/\/\S+recover-bad-read\.mjs:8:\d+\)/);
    expect(run.stdout).not.toMatch(OWN_PATHS);
  });

  it("fuzz --adapter with an open() that never settles ends after --timeout, exit 1", () => {
    const run = pagelog("fuzz", "--adapter", "test/fixtures/adapters/open-never-settles.mjs", "--timeout", "1");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("the adapter's open() did not settle within 1 s");
    expect(run.ms).toBeLessThan(15_000);
  });

  it("a module that leaves a timer running does not keep the command up once it is done", () => {
    const check = pagelog("check", "--policies", "test/fixtures/policies/leaves-a-timer.mjs");
    expect(check.stdout).toMatch(/all given policies pass/);
    expect(check.code).toBe(0);
    const fuzz = pagelog(
      "fuzz",
      "--adapter",
      "test/fixtures/adapters/leaves-a-timer.mjs",
      "--runs",
      "5",
      "--seed",
      "1",
    );
    expect(fuzz.stdout).toMatch(/violations 0/);
    expect(fuzz.code).toBe(0);
    for (const run of [check, fuzz]) expect(run.ms).toBeLessThan(30_000);
  });

  it("the course's reference answers pass check in the installed CLI's worker threads", () => {
    const run = pagelog("check", "--policies", "test/fixtures/policies/course-reference.mjs");
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/all given policies pass \(\d+ cases\)/);
    expect(run.code).toBe(0);
  });
});
