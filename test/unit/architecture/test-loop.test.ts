/**
 * The contributor's loop (docs/testing.md, "Which runs where"): one budget switch sizes every long
 * run, and only test/support/budget.ts reads it; `npm run check` is the cached inner loop; a file
 * that outgrows its tier fails; the property tier uses both cores; test/unit mirrors src/. Each
 * rule is shown refusing a planted violation, so that it cannot pass by checking nothing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../../vitest.config.js";
import { BUDGETS, SIZES, type SizeName, size, sizeIn } from "../../support/budget.js";
import { fileTimeVerdict } from "../../support/file-time.js";
import { FILE_COSTS } from "../../setup/file-costs.js";
import { CostliestFirst, runOrder } from "../../setup/sequencer.js";
import { budgetMinutes } from "../../../scripts/soak-ci.mjs";

const repo = resolve(import.meta.dirname, "../../..");
const read = (file: string): string => readFileSync(join(repo, file), "utf8");

function files(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Size variables a test reads itself instead of through the budget: `process.env.PAGELOG_X` for a size-like X. */
function sizeReaders(sources: ReadonlyArray<{ path: string; text: string }>): string[] {
  const sizeLike =
    /process\.env(?:\.|\[["'`])PAGELOG_(BUDGET|\w*(RUNS|SCHEDULES|KILLS|STATES|EVERY|RANDOM|CASES|COUNT))\b/;
  const known = new Set<string>(Object.values(SIZES).map((row) => row.env));
  return (
    sources
      // budget.ts reads them; this file plants them.
      .filter(({ path }) => path !== "test/support/budget.ts" && path !== "test/unit/architecture/test-loop.test.ts")
      .filter(({ text }) => sizeLike.test(text) || [...known].some((env) => text.includes(`process.env.${env}`)))
      .map(({ path }) => path)
  );
}

describe("PAGELOG_BUDGET: one switch sizes every long run", () => {
  it("only test/support/budget.ts reads a size from the environment; a planted reader is refused", () => {
    const sources = [...files("test"), ...files("src/testing")]
      .filter((f) => /\.(ts|mjs|cjs)$/.test(f))
      .map((path) => ({ path, text: read(path) }));
    expect(sizeReaders(sources)).toEqual([]);
    const planted = [
      { path: "test/property/x.test.ts", text: "const RUNS = Number(process.env.PAGELOG_WIDGET_RUNS ?? 5);" },
      { path: "test/property/y.test.ts", text: 'const K = Number(process.env["PAGELOG_KILLS"] ?? 60);' },
      { path: "test/property/z.test.ts", text: "const S = process.env.PAGELOG_SWEEP_FS_EVERY;" },
    ];
    expect(sizeReaders(planted)).toEqual(planted.map((p) => p.path));
  });

  it("each budget picks its column; a per-size override changes that size alone", () => {
    for (const name of Object.keys(SIZES) as SizeName[]) {
      const row = SIZES[name];
      expect(sizeIn(name, {}), name).toBe(row.ci);
      for (const budget of BUDGETS) expect(sizeIn(name, { PAGELOG_BUDGET: budget }), name).toBe(row[budget]);
      expect(sizeIn(name, { PAGELOG_BUDGET: "quick", [row.env]: "7" }), name).toBe(7);
    }
    // The two SIGKILL tests once shared PAGELOG_KILLS: asking for 500 kills also ran 500 cleanings' kills.
    expect(sizeIn("compactionKills", { PAGELOG_KILLS: "500" })).toBe(SIZES.compactionKills.ci);
  });

  it("quick is smaller than ci and soak bigger, for every size (a stride: every n-th case, so reversed)", () => {
    for (const [name, row] of Object.entries(SIZES)) {
      const order = row.kind === "runs" ? [row.quick, row.ci, row.soak] : [row.soak, row.ci, row.quick];
      expect(order[0]! < order[1]! && order[1]! < order[2]!, `${name}: ${order.join(" < ")}`).toBe(true);
    }
  });

  it("a budget or an override that is not one fails loudly instead of running another size", () => {
    expect(() => sizeIn("crashRuns", { PAGELOG_BUDGET: "fast" })).toThrow(
      /PAGELOG_BUDGET must be one of quick, ci, soak/,
    );
    for (const bad of ["abc", "0", "-3", "2.5", " "])
      expect(() => sizeIn("crashRuns", { PAGELOG_CRASH_RUNS: bad }), bad).toThrow(/PAGELOG_CRASH_RUNS/);
    expect(size("crashRuns")).toBeGreaterThan(0);
  });

  // The figures the README's guarantees table and docs/testing.md print per `npm test`: ci runs
  // at least that many (a stride at most that wide). Lowering one lowers a guarantee.
  const PROMISES: Array<[SizeName, string, RegExp]> = [
    ["crashRuns", "README.md", /`log-crash` property: ([\d,]+) random cut schedules per `npm test`/],
    ["crashRuns", "docs/testing.md", /\| ([\d,]+) schedules per `npm test` \|/],
    ["kills", "README.md", /`sigkill` test: ([\d,]+) kills/],
    ["kills", "docs/testing.md", /([\d,]+) kills on one directory/],
    ["compactionSchedules", "docs/testing.md", /\| ([\d,]+) schedules \(about [\d,]+ power cuts\) per `npm test`/],
    ["optionsRuns", "docs/testing.md", /\| ([\d,]+) sequences, about/],
    ["recordsRuns", "docs/testing.md", /records-history[^\n]*\| ([\d,]+) sequences/],
    ["crashTestRuns", "docs/testing.md", /\| ([\d,]+) \+ [\d,]+ \+ [\d,]+ \+ [\d,]+ schedules/],
    ["hostileRandom", "docs/testing.md", /([\d,]+) seeded random damages per `npm test`/],
    ["sweepFsEvery", "docs/testing.md", /on SimStorage, every ([\d,]+)th also on real files/],
    ["hostileFsEvery", "docs/testing.md", /\(every ([\d,]+)th also on real files\)/],
  ];
  for (const [name, doc, pattern] of PROMISES)
    it(`ci keeps ${doc}'s promise for ${name}`, () => {
      const m = pattern.exec(read(doc));
      expect(m, `${doc} no longer states ${pattern}`).not.toBeNull();
      const promised = Number(m![1]!.replaceAll(",", ""));
      const row = SIZES[name];
      if (row.kind === "runs") expect(row.ci).toBeGreaterThanOrEqual(promised);
      else expect(row.ci).toBeLessThanOrEqual(promised);
    });
});

interface Project {
  test: { name: string; maxWorkers?: number; provide?: { fileLimits?: { cpuSeconds: number; wallSeconds: number } } };
}
const projects = ((config as { test: { projects?: Project[] } }).test.projects ?? []).map((p) => p.test);
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

describe("npm run check, npm test, npm run test:soak", () => {
  it("check is the inner loop: cached prettier and eslint, incremental tsc, then the unit tier", () => {
    const steps = scripts.check!.split(" && ");
    expect(steps[0]).toMatch(/^prettier --check --cache /);
    expect(steps[1]).toMatch(/^eslint --cache --cache-location node_modules\/\.cache\/eslint\/ \.$/);
    expect(steps[2]).toMatch(/^tsc --noEmit --incremental --tsBuildInfoFile node_modules\/\.cache\//);
    expect(steps[3]).toBe("vitest run --project unit");
    expect(steps).toHaveLength(4);
  });

  it("test:soak:ci is the soak with a wall-clock budget; a missing or bad budget is refused", () => {
    expect(scripts["test:soak:ci"]).toMatch(/^node scripts\/soak-ci\.mjs --minutes \d+$/);
    expect(budgetMinutes(["--minutes", "45"])).toBe(45);
    for (const bad of [[], ["--minutes"], ["--minutes", "0"], ["--minutes", "x"], ["--minutes", "-5"]])
      expect(() => budgetMinutes(bad), bad.join(" ")).toThrow(TypeError);
  });

  it("test:soak runs every tier that a budget sizes under the soak budget (the unit tier for its read-only races)", () => {
    expect(scripts["test:soak"]).toBe(
      "node scripts/ensure-built.mjs && PAGELOG_BUDGET=soak vitest run --project unit --project property --project integration --testTimeout 0 --hookTimeout 0",
    );
  });
});

/** The commands `.ci/run` runs, in order (lines that start with `npm` or `timeout … npm`). */
function ciCommands(script: string): string[] {
  return script
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^(npm |timeout .* npm )/.test(line));
}

describe(".ci/run", () => {
  it("runs npm ci and npm test as the README says, then the soak within its budget", () => {
    expect(ciCommands(read(".ci/run"))).toEqual(["npm ci", "npm test", "npm run test:soak:ci"]);
    // The soak's budget leaves CI's 90 minutes room for npm ci, npm test and the machine set-up.
    const minutes = budgetMinutes(scripts["test:soak:ci"]!.split(" "));
    expect(minutes).toBeLessThanOrEqual(50);
    // A planted unbounded soak line is seen (so the check above would refuse one).
    expect(ciCommands("npm ci\nnpm test\nnpm run test:soak\n")).toEqual(["npm ci", "npm test", "npm run test:soak"]);
  });
});

describe("the alarm for a file too slow for its tier", () => {
  it("every tier gives its files a CPU and a wall-clock limit, the unit tier the shortest", () => {
    for (const p of projects) {
      const limits = p.provide?.fileLimits;
      expect(limits, p.name).toBeDefined();
      expect(limits!.cpuSeconds, p.name).toBeLessThanOrEqual(limits!.wallSeconds);
    }
    const unit = projects.find((p) => p.name === "unit")!.provide!.fileLimits!;
    for (const p of projects) expect(p.provide!.fileLimits!.cpuSeconds).toBeGreaterThanOrEqual(unit.cpuSeconds);
  });

  it("a planted file over its CPU limit fails, one over its wall limit only warns, one within both passes", () => {
    const limits = { tier: "unit", cpuSeconds: 10, wallSeconds: 20 };
    const slow = fileTimeVerdict({ cpuSeconds: 12.5, wallSeconds: 13 }, limits);
    expect(slow.failure).toMatch(/too slow for the unit tier: 12\.5 CPU-s, 13\.0 s wall, over its limit of 10 CPU-s/);
    const waiting = fileTimeVerdict({ cpuSeconds: 2, wallSeconds: 25 }, limits);
    expect(waiting).toEqual({ failure: undefined, warning: expect.stringMatching(/over 20 s wall/) });
    expect(fileTimeVerdict({ cpuSeconds: 9.9, wallSeconds: 19.9 }, limits)).toEqual({
      failure: undefined,
      warning: undefined,
    });
  });

  it("test/setup/file-time.ts, the hook that applies it, runs for every test file", () => {
    const setupFiles = (config as { test: { setupFiles?: string[] } }).test.setupFiles ?? [];
    expect(setupFiles).toContain("test/setup/file-time.ts");
  });
});

describe("one pool for every tier, costliest file first", () => {
  const raw = (config as { test: { projects?: Array<{ test: { sequence?: { groupOrder?: number } } }> } }).test;
  it("every tier runs on both cores, in one group: the same maxWorkers, no groupOrder", () => {
    for (const p of projects) expect(p.maxWorkers, p.name).toBe(2);
    // A tier with its own groupOrder (or maxWorkers) would wait for the others, one core idle at each end.
    for (const p of raw.projects ?? []) expect(p.test.sequence?.groupOrder).toBeUndefined();
    expect((config as { test: { sequence?: { sequencer?: unknown } } }).test.sequence?.sequencer).toBe(CostliestFirst);
  });

  it("orders other tiers' files before the unit tier's, unmeasured first, then costliest first", () => {
    const costs = { "p/long.ts": 70, "i/longer.ts": 150, "p/short.ts": 2, "u/a.ts": 5, "u/b.ts": 0.3 };
    const files = [
      { project: "unit", path: "u/b.ts" },
      { project: "property", path: "p/short.ts" },
      { project: "unit", path: "u/new.ts" },
      { project: "unit", path: "u/a.ts" },
      { project: "property", path: "p/long.ts" },
      { project: "integration", path: "i/new.ts" },
      { project: "integration", path: "i/longer.ts" },
    ];
    expect(runOrder(files, costs).map((f) => f.path)).toEqual([
      "i/new.ts",
      "i/longer.ts",
      "p/long.ts",
      "p/short.ts",
      "u/new.ts",
      "u/a.ts",
      "u/b.ts",
    ]);
  });

  it("the cost table names only test files that exist, each with a cost; a planted stale entry is seen", () => {
    const stale = (costs: Record<string, number>) =>
      Object.entries(costs).filter(([path, cost]) => !existsSync(join(repo, path)) || !(cost >= 0));
    expect(stale(FILE_COSTS)).toEqual([]);
    expect(Object.keys(FILE_COSTS).length).toBeGreaterThan(100);
    expect(stale({ ...FILE_COSTS, "test/property/gone.test.ts": 3 })).toEqual([["test/property/gone.test.ts", 3]]);
  });
});

/** The repository paths a file imports (relative specifiers only), without their extension. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/\bfrom ["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
    join(dirname(file), m[1]!).replace(/\.(js|mjs|ts)$/, ""),
  );
}

/**
 * Unit tests in the wrong folder of test/unit/<room>/: the room names nothing in src/; or the
 * file imports the src/ file it is named after from another room (`plural.test.ts` importing
 * src/text/plural.ts); or it imports nothing of its own room (src/<room>, or a helper beside it)
 * while it imports another room's internals, or is named `<room>-…` after another src/ folder
 * (`bench-goals.test.ts` in test/unit/cli).
 */
function misplacedUnitTests(
  tests: ReadonlyArray<{ path: string; text: string }>,
  sources: readonly string[],
): string[] {
  const srcFolders = new Set(sources.filter((f) => f.split("/").length > 2).map((f) => f.split("/")[1]!));
  const srcModules = new Set(sources.map((f) => f.split("/")[1]!.replace(/\.ts$/, "")));
  return tests
    .filter(({ path, text }) => {
      const parts = path.split("/");
      if (parts.length < 4) return false; // test/unit/x.test.ts: the package's entries
      const room = parts[2]!;
      if (room === "architecture") return false; // the house rules, which test the repository itself
      if (!srcModules.has(room)) return true;
      const name = basename(path, ".test.ts").replace(/\.contract$/, "");
      const imports = importsOf(path, text);
      const srcRoom = (i: string) => (i.startsWith("src/") ? i.split("/")[1]! : undefined);
      if (imports.some((i) => i.startsWith("src/") && basename(i) === name && !i.startsWith(`src/${room}/`)))
        return true;
      const own = imports.some((i) => srcRoom(i) === room || i.startsWith(`test/unit/${room}/`));
      // A room that is one module (src/options.ts) tests what crosses rooms: only its name rule applies.
      if (own || !srcFolders.has(room)) return false;
      const prefix = /^([a-z]+)-/.exec(name)?.[1];
      // An import of another room's internals (an entry point, src/index.ts or src/testing.ts, is public).
      const other = imports.some((i) => i.split("/").length > 2 && srcRoom(i) !== room);
      return other || (prefix !== undefined && prefix !== room && srcFolders.has(prefix));
    })
    .map(({ path }) => path);
}

describe("test/unit mirrors src/", () => {
  const src = files("src").filter((f) => f.endsWith(".ts"));
  const unit = files("test/unit")
    .filter((f) => f.endsWith(".test.ts"))
    .map((path) => ({ path, text: read(path) }));

  it("every unit test sits in the folder of the src/ code it tests", () => {
    expect(misplacedUnitTests(unit, src)).toEqual([]);
  });

  it("a planted misplaced test is refused", () => {
    // Where these tests sat before test/unit mirrored src/ again, with the imports they had.
    const planted = [
      { path: "test/unit/cli/bench-goals.test.ts", text: 'import { finish } from "../../../src/bench/measure.js";' },
      { path: "test/unit/cli/bench-peers.test.ts", text: 'import { ROWS } from "../../../bench/peers-table.mjs";' },
      {
        path: "test/unit/cli/plural.test.ts",
        text: 'import { plural } from "../../../src/text/plural.js";\nimport { cli } from "./helpers.js";',
      },
      { path: "test/unit/widgets/thing.test.ts", text: "" },
    ];
    const fine = [
      { path: "test/unit/cli/demo.test.ts", text: 'import { cli } from "./helpers.js";' },
      {
        path: "test/unit/course/log-policies.test.ts",
        text: 'import { LogDir } from "../../../src/log/log-dir.js";\nimport { kafkaPolicies } from "../../../src/course.js";',
      },
    ];
    expect(misplacedUnitTests([...planted, ...fine], src)).toEqual(planted.map((p) => p.path));
  });
});
