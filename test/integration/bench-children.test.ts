/**
 * `pagelog bench` runs each row in a child process of its own, from the built CLI: the child is
 * a separate entry (bench-child.js) run with `process.execPath`, so the public parser has no
 * hidden flag for it. A quick row proves the protocol end to end (a peak RSS per row).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { privateBuild } from "../support/private-build.js";
import { tempDir } from "../unit/cli/helpers.js";

let buildDir: string;
const dirs: string[] = [];

beforeAll(() => {
  buildDir = privateBuild();
}, 120_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const pagelog = (...args: string[]) =>
  spawnSync(process.execPath, [join(buildDir, "main.js"), ...args], { encoding: "utf8", timeout: 120_000 });

it("runs rows and fixtures in child processes, each with a peak RSS of its own, and removes its directories", () => {
  const dir = tempDir("bench-children");
  dirs.push(dir);
  const run = pagelog(
    "bench",
    ...["--rows", "records,lookups", "--scale", "0.001", "--repeats", "1", "--dir", dir, "--tmpfs", dir, "--json"],
  );
  expect(run.status, run.stderr).toBe(0);
  const out = JSON.parse(run.stdout) as { meta: { mode: string }; rows: Array<{ row: string; peakRssMB: unknown }> };
  expect(out.meta.mode).toBe("child-processes");
  expect(out.rows.map((r) => r.row)).toEqual(["records", "lookups/read", "lookups/offsetForTimestamp"]);
  for (const r of out.rows) expect(typeof r.peakRssMB, r.row).toBe("number");
  expect(run.stderr).toMatch(/built the segments fixture/);
  expect(readdirSync(dir)).toEqual([]);
});

it("the child protocol is no flag of the public parser, and the child entry refuses to run by hand", () => {
  for (const flag of ["--child-row", "--child-fixture"]) {
    const run = pagelog("bench", flag, "records");
    expect(run.status, flag).toBe(2);
    expect(run.stderr).toContain(`unknown option '${flag}'`);
  }
  const child = spawnSync(process.execPath, [join(buildDir, "bench-child.js")], { encoding: "utf8" });
  expect(child.status).toBe(1);
  expect(child.stderr).toMatch(/not run by hand/);
});
