#!/usr/bin/env node
/**
 * `npm run lint` (and so the first step of `npm test`): every static check, in two lanes that run
 * at once, because each tool uses one core and CI has two. Sequential, the steps took about
 * 150 CPU-seconds; in two balanced lanes the wall time is about half.
 *
 *   lane 1: prettier --check (cached: its cache is keyed by content and options, so never stale),
 *           then the type-aware eslint (not cached here: a cached file's type-aware verdict can go
 *           stale when a file it imports changes; `npm run check` takes that risk, this does not)
 *   lane 2: tsc --noEmit, the API reports (scripts/api.mjs check), dist/ when stale
 *           (scripts/ensure-built.mjs, whose .d.ts rollups are the API check's, kept by content
 *           hash in .tmp/api-cache), then publint on it
 *
 * A step's output is shown only when it fails (or with --verbose), after its lane stops; the
 * other lane runs to its end, so one run reports every failing step. Exit 1 if any failed.
 *
 * Run in the package root: `node scripts/lint-lanes.mjs [--verbose]`.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const bin = (name) => join("node_modules", ".bin", name);

/** The files prettier checks: the same globs as `npm run format` writes. */
export const PRETTIER_GLOBS = [
  "src/**/*.ts",
  "test/**/*.{ts,mjs}",
  "bench/**/*.mjs",
  "scripts/**/*.mjs",
  "web/**/*.{ts,mjs,mts}",
  "*.{ts,mjs}",
];

/** The two lanes: each a list of [label, command, args], run in order until one fails. */
export const LANES = [
  [
    ["prettier", bin("prettier"), ["--check", "--cache", "--log-level", "warn", ...PRETTIER_GLOBS]],
    ["eslint", bin("eslint"), ["."]],
  ],
  [
    ["tsc", bin("tsc"), ["--noEmit"]],
    ["api reports", process.execPath, ["scripts/api.mjs", "check"]],
    ["build", process.execPath, ["scripts/ensure-built.mjs"]],
    ["publint", bin("publint"), ["--strict", "--pack", "false"]],
  ],
];

/** Runs one step; resolves with its exit code and everything it printed. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on("close", (code, signal) =>
      resolve({ code: code ?? 1, output: signal ? `${output}killed by ${signal}\n` : output }),
    );
  });
}

/** Runs a lane's steps in order; resolves with the label of the step that failed, or undefined. */
export async function runLane(steps, verbose) {
  for (const [label, command, args] of steps) {
    const started = performance.now();
    const { code, output } = await run(command, args);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (code !== 0) {
      process.stderr.write(`lint: ${label} failed (${seconds} s)\n${output}`);
      return label;
    }
    if (verbose) process.stdout.write(`lint: ${label} ok (${seconds} s)\n${output}`);
  }
  return undefined;
}

/**
 * The checks `npm test` counts on that `lanes` leaves out, as "command args" strings: prettier
 * before eslint in one lane, and every other step somewhere. The lint-rules and test-tiers tests
 * hold LANES to it.
 */
export function missingChecks(lanes) {
  const steps = lanes.map((lane) =>
    lane.map(([, command, args]) => `${command.split(/[\\/]/).pop()} ${args.join(" ")}`),
  );
  const required = [
    /^prettier --check /,
    /^eslint \.$/,
    /^tsc --noEmit$/,
    /^\S+ scripts\/api\.mjs check$/,
    /^\S+ scripts\/ensure-built\.mjs$/,
    /^publint --strict/,
  ];
  const missing = required.filter((re) => !steps.some((lane) => lane.some((s) => re.test(s)))).map(String);
  const formattedFirst = steps.some((lane) => {
    const p = lane.findIndex((s) => required[0].test(s));
    const e = lane.findIndex((s) => required[1].test(s));
    return p !== -1 && p < e;
  });
  if (!formattedFirst) missing.push("prettier before eslint in one lane");
  return missing;
}

if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) {
  const verbose = process.argv.includes("--verbose");
  const failed = (await Promise.all(LANES.map((lane) => runLane(lane, verbose)))).filter((f) => f !== undefined);
  if (failed.length > 0) {
    process.stderr.write(`lint: ${failed.join(", ")} failed\n`);
    process.exitCode = 1;
  }
}
