#!/usr/bin/env node
/**
 * The soak as CI runs it (`npm run test:soak:ci`, after `npm test` in `.ci/run`): `npm run
 * test:soak` with a wall-clock budget, so that it fits CI's 90 minutes on a slow or busy machine.
 *
 * - a failing test stops the soak at once (`--bail 1`) and fails the run, with vitest's report and
 *   the base seed and replay command a randomized test prints when it fails;
 * - the soak ending within its budget passes;
 * - at the budget, the soak is stopped (its whole process group: no child is left behind) and the
 *   run passes, saying so: every file that finished had passed (a failure would have stopped it
 *   first), and the files cut short ran part of their schedules without a failure.
 *
 *   node scripts/soak-ci.mjs --minutes 45
 *
 * The soak's whole size and what it runs: docs/testing.md, "Which runs where".
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** `--minutes N` from `argv` (a positive number), or a TypeError naming what is wrong. */
export function budgetMinutes(argv) {
  const at = argv.indexOf("--minutes");
  const value = at === -1 ? undefined : Number(argv[at + 1]);
  if (value === undefined || !Number.isFinite(value) || value <= 0)
    throw new TypeError("soak-ci: --minutes <n> (a positive number of minutes) is required");
  return value;
}

/** Ends the process group of `child`: SIGTERM, then SIGKILL for whatever is still there 10 s later. */
function stopGroup(child) {
  const kill = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  kill("SIGTERM");
  setTimeout(() => kill("SIGKILL"), 10_000).unref();
}

if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) {
  const minutes = budgetMinutes(process.argv.slice(2));
  const started = Date.now();
  // Its own process group (detached), so that stopping it stops vitest's workers and their children.
  const child = spawn("npm", ["run", "test:soak", "--", "--bail", "1"], {
    stdio: "inherit",
    detached: true,
  });
  let outOfTime = false;
  const timer = setTimeout(() => {
    outOfTime = true;
    stopGroup(child);
  }, minutes * 60_000);
  // Interrupted by hand or by CI: stop the soak too.
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      stopGroup(child);
      process.exit(130);
    });
  const code = await new Promise((done) => child.on("close", (c) => done(c ?? 1)));
  clearTimeout(timer);
  const took = ((Date.now() - started) / 60_000).toFixed(1);
  if (outOfTime) {
    process.stdout.write(
      `soak-ci: stopped at its budget of ${minutes} min: no test had failed (a failure stops the soak at once); the files still running were cut short\n`,
    );
    process.exitCode = 0;
  } else if (code === 0) {
    process.stdout.write(`soak-ci: the whole soak passed in ${took} min\n`);
  } else {
    process.stderr.write(`soak-ci: the soak failed after ${took} min (exit ${code}): see the report above\n`);
    process.exitCode = 1;
  }
}
