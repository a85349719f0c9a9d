#!/usr/bin/env node
/**
 * Rewrites test/setup/file-costs.ts, the table the test sequencer (test/setup/sequencer.ts) orders
 * the files by, from one or more profiles of a run:
 *
 *   PAGELOG_FILE_TIMES=/tmp/times.jsonl npx vitest run      # one JSON line per test file
 *   node scripts/file-costs.mjs /tmp/times.jsonl [more.jsonl …]
 *
 * A file's cost is its CPU-seconds: the worker's own and those of the child processes it ran
 * (what the file costs whatever the machine's load; wall time on a shared machine measures the
 * neighbours too). A file profiled twice keeps its last figure; files a profile does not name keep
 * theirs, and files that no longer exist are dropped.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const TABLE = join(repo, "test/setup/file-costs.ts");

/** The table as it is: path → CPU-seconds. */
function currentTable() {
  if (!existsSync(TABLE)) return {};
  const costs = {};
  for (const m of readFileSync(TABLE, "utf8").matchAll(/^ {2}"([^"]+)": ([\d.]+),$/gm)) costs[m[1]] = Number(m[2]);
  return costs;
}

const profiles = process.argv.slice(2);
if (profiles.length === 0) {
  process.stderr.write("usage: node scripts/file-costs.mjs <PAGELOG_FILE_TIMES file>…\n");
  process.exit(2);
}
const costs = currentTable();
for (const profile of profiles)
  for (const line of readFileSync(profile, "utf8").split("\n").filter(Boolean)) {
    const row = JSON.parse(line);
    const path = relative(repo, row.file);
    costs[path] = Math.round((row.cpuSeconds + (row.childCpuSeconds ?? 0)) * 10) / 10;
  }
const rows = Object.entries(costs)
  .filter(([path]) => existsSync(join(repo, path)))
  .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
writeFileSync(
  TABLE,
  [
    "// What each test file costs, in CPU-seconds (the worker's and its child processes'), for the",
    "// order the files start in (test/setup/sequencer.ts). Written by scripts/file-costs.mjs from a",
    "// profile of a run (PAGELOG_FILE_TIMES, docs/testing.md); rewrite it when a file's cost moves.",
    "export const FILE_COSTS: Readonly<Record<string, number>> = {",
    ...rows.map(([path, cost]) => `  "${path}": ${cost},`),
    "};",
    "",
  ].join("\n"),
);
process.stdout.write(`${relative(repo, TABLE)}: ${rows.length} files\n`);
