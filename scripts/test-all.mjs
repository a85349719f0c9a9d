#!/usr/bin/env node
/**
 * `npm test` (what `.ci/run` calls): every static check of `npm run lint` and every test tier, the
 * checks beside the tests instead of before them.
 *
 * Run one after the other, lint took about 2 minutes of a 2-core machine before the first test
 * began, its two lanes leaving part of a core idle. Now only what the tests need comes first: the
 * API reports, then dist/ (the build copies the reports' declarations, and the integration and
 * kafka tiers run the built CLI and pack the package), about 25 s on one core while Prettier,
 * eslint and `tsc` start on the other. Then `vitest run` starts, and the checks still running
 * share the cores with it; publint reads the finished dist/ meanwhile. Every step runs to its
 * end, so one run reports every failing check and every failing test; the exit code is 1 if any
 * failed. A failed build starts no tests (they would fail for the build, not for themselves).
 *
 *   node scripts/test-all.mjs [vitest arguments]   # npm test -- --project unit, for example
 *
 * Run in the package root. `npm run lint` still runs the checks alone (scripts/lint-lanes.mjs).
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LANES, runLane } from "./lint-lanes.mjs";

/**
 * The lint steps by when they run, named by their labels in LANES: `beforeTests` in order, then
 * the tests; each lane of `besideTests` from the start; `afterBuild` once dist/ is there.
 * test/unit/architecture/test-tiers.test.ts checks that every step of LANES is here once.
 */
export const TEST_PLAN = {
  beforeTests: ["api reports", "build"],
  besideTests: [["prettier", "eslint"], ["tsc"]],
  afterBuild: ["publint"],
};

/** The LANES step labelled `label`. */
function step(label) {
  const found = LANES.flat().find(([l]) => l === label);
  if (found === undefined) throw new Error(`test-all: no lint step "${label}" in scripts/lint-lanes.mjs`);
  return found;
}

/** Runs `vitest run` with the caller's arguments, output shown as it comes; resolves with its exit code. */
function runVitest(args) {
  return new Promise((resolve) => {
    const child = spawn(join("node_modules", ".bin", "vitest"), ["run", ...args], { stdio: "inherit" });
    child.on("error", (err) => {
      process.stderr.write(`npm test: vitest did not start: ${err.message}\n`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) {
  const verbose = process.argv.includes("--verbose-lint");
  const vitestArgs = process.argv.slice(2).filter((a) => a !== "--verbose-lint");
  const beside = TEST_PLAN.besideTests.map((lane) => runLane(lane.map(step), verbose));
  const built = await runLane(TEST_PLAN.beforeTests.map(step), verbose);
  let testsCode = 1;
  let afterBuild;
  if (built === undefined) {
    afterBuild = runLane(TEST_PLAN.afterBuild.map(step), verbose);
    testsCode = await runVitest(vitestArgs);
  } else {
    process.stderr.write(`npm test: ${built} failed, so no test ran\n`);
  }
  const failed = [built, ...(await Promise.all([...beside, afterBuild]))].filter((f) => f !== undefined);
  if (failed.length > 0) process.stderr.write(`npm test: lint: ${failed.join(", ")} failed\n`);
  else {
    const all = [...TEST_PLAN.beforeTests, ...TEST_PLAN.besideTests.flat(), ...TEST_PLAN.afterBuild];
    process.stdout.write(`npm test: lint: ${all.join(", ")} passed\n`);
  }
  process.exitCode = failed.length > 0 || testsCode !== 0 ? 1 : 0;
}
