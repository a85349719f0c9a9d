/**
 * The tests' own house rules (docs/testing.md, "Test tiers" and "Replaying a failure"): every test
 * file is in exactly one tier, each tier has its own time limit, and `PAGELOG_SEED` has one meaning:
 * only test/support/seed.ts reads it, every randomized test draws through it, and the command it
 * prints replays exactly the test that failed.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../../vitest.config.js";
import { replayCommand, seedFor } from "../../support/seed.js";
import { LANES, missingChecks } from "../../../scripts/lint-lanes.mjs";
import { TEST_PLAN } from "../../../scripts/test-all.mjs";

const repo = resolve(import.meta.dirname, "../../..");

function files(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const testSources = files("test").filter((f) => /\.(ts|mjs|cjs)$/.test(f));
const testFiles = testSources.filter((f) => f.endsWith(".test.ts"));

interface Project {
  test: { name: string; include: string[]; testTimeout: number; hookTimeout: number; maxWorkers?: number };
}
const projects = ((config as { test: { projects?: Project[] } }).test.projects ?? []).map((p) => p.test);

/** A vitest include glob of the form `dir/**\/*.test.ts` as a RegExp (the only form the config uses). */
function globRegExp(glob: string): RegExp {
  const m = /^([\w/-]+)\/\*\*\/\*\.test\.ts$/.exec(glob);
  if (m === null) throw new Error(`unexpected include glob ${glob}`);
  return new RegExp(`^${m[1]}/(.+/)?[^/]+\\.test\\.ts$`);
}

describe("test tiers", () => {
  it("unit, property, integration, browser and kafka, each with its own time limits, unit the shortest", () => {
    expect(projects.map((p) => p.name)).toEqual(["unit", "property", "integration", "browser", "kafka"]);
    const unit = projects[0]!;
    for (const p of projects.slice(1)) expect(p.testTimeout).toBeGreaterThan(unit.testTimeout);
    expect(unit.testTimeout).toBeLessThanOrEqual(30_000);
    // The crash property has taken over 120 s on a loaded 2-core machine.
    expect(projects[1]!.testTimeout).toBeGreaterThanOrEqual(300_000);
  });

  it("the unit tier runs on two workers: vitest's default on this 2-core machine is one", () => {
    expect(projects[0]!.maxWorkers).toBeGreaterThanOrEqual(2);
  });

  it("every test file is in exactly one tier, and the tier's folder", () => {
    expect(testFiles.length).toBeGreaterThan(90);
    for (const file of testFiles) {
      const tiers = projects.filter((p) => p.include.some((g) => globRegExp(g).test(file)));
      expect(
        tiers.map((t) => t.name),
        file,
      ).toEqual([file.split("/")[1]]);
    }
  });

  it("npm run test:<tier> runs that tier's project; npm test runs lint (tsc among its checks) and every tier", () => {
    const { scripts } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    for (const p of projects) expect(scripts[`test:${p.name}`]).toBe(`vitest run --project ${p.name}`);
    // npm test runs every lint step (scripts/test-all.mjs), each once: dist/ before the tests.
    expect(scripts.test).toBe("node scripts/test-all.mjs");
    const planned = [...TEST_PLAN.beforeTests, ...TEST_PLAN.besideTests.flat(), ...TEST_PLAN.afterBuild];
    expect([...planned].sort()).toEqual(
      LANES.flat()
        .map(([label]) => label)
        .sort(),
    );
    expect(TEST_PLAN.beforeTests.at(-1)).toBe("build");
    expect(scripts.lint).toBe("node scripts/lint-lanes.mjs");
    expect(missingChecks(LANES)).toEqual([]);
    // A planted lint without its type check is refused: tsc is part of what npm test runs.
    expect(missingChecks(LANES.map((lane) => lane.filter(([label]) => label !== "tsc")))).toEqual(["/^tsc --noEmit$/"]);
  });
});

describe("PAGELOG_SEED: one variable, one meaning", () => {
  it("only test/support/seed.ts reads a seed from the environment", () => {
    const readers = testSources.filter(
      (f) => f !== "test/support/seed.ts" && /process\.env\.PAGELOG_\w*SEED|Math\.random\(/.test(read(f)),
    );
    expect(readers).toEqual([]);
  });

  it("every fast-check test draws its seed from test/support/seed.ts", () => {
    for (const f of testSources) {
      const text = read(f);
      const calls = text.match(/\bfc\.(assert|check)\(/g)?.length ?? 0;
      if (calls === 0) continue;
      // Each call's parameters come from fastCheckParams(): one per call, none left on fast-check's clock.
      const seeded = text.match(/fastCheckParams\(\)/g)?.length ?? 0;
      expect(seeded, `${f}: ${calls} fast-check calls, ${seeded} seeded by fastCheckParams()`).toBeGreaterThanOrEqual(
        calls,
      );
    }
  });

  it("each test's seed is its own: fixed by the base seed and the name, changed by either", () => {
    const a = seedFor("test/property/log-crash.test.ts > holds", 42);
    expect(seedFor("test/property/log-crash.test.ts > holds", 42)).toBe(a);
    expect(seedFor("test/property/log-crash.test.ts > holds", 43)).not.toBe(a);
    expect(seedFor("test/property/log-crash.test.ts > holdz", 42)).not.toBe(a);
    const seen = new Set<number>();
    for (let base = 0; base < 200; base++)
      for (const name of ["a", "b", "test/unit/x.test.ts > y"]) {
        const s = seedFor(name, base);
        expect(Number.isInteger(s) && s >= 0 && s < 2 ** 31, String(s)).toBe(true);
        seen.add(s);
      }
    expect(seen.size).toBe(600);
    // Bases past 2^32 are not folded onto smaller ones.
    expect(seedFor("a", 2 ** 32 + 5)).not.toBe(seedFor("a", 5));
  });

  it("the replay command names the base seed, the file, and a -t that matches only that test", () => {
    const name = `suite (x) + y [a] inner 'q' "r" $z \\ a.b*`;
    const command = replayCommand(join(repo, "test/property/log-crash.test.ts"), name, "", 77);
    expect(command).toMatch(/^PAGELOG_SEED=77 npx vitest run test\/property\/log-crash\.test\.ts -t /);
    // What the shell hands vitest as the -t argument, which vitest makes a RegExp.
    const quoted = command.slice(command.indexOf(" -t ") + 4);
    const pattern = execFileSync("sh", ["-c", `printf '%s' ${quoted}`], { encoding: "utf8" });
    const re = new RegExp(pattern);
    expect(re.test(name)).toBe(true);
    expect(re.test(`${name} more`)).toBe(false);
    expect(re.test(`before ${name}`)).toBe(false);
    expect(replayCommand("test/unit/a.test.ts", undefined, "PAGELOG_PATH=3:1", 5)).toBe(
      "PAGELOG_SEED=5 PAGELOG_PATH=3:1 npx vitest run test/unit/a.test.ts",
    );
  });
});

function read(file: string): string {
  return readFileSync(join(repo, file), "utf8");
}
