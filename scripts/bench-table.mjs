#!/usr/bin/env node
// Turns `npm run -s bench -- --json` output into the Markdown table of docs/performance.md, so
// the page's table is the run's own figures, not copied by hand:
//
//   npm run -s bench -- --json > bench.json
//   node scripts/bench-table.mjs bench.json [more.json …]   # rows of later files replace earlier ones
//   node scripts/bench-table.mjs --except compact-throughput,compact-space bench.json
//
// Prints the run's machine line, then one table row per bench row: pagelog's median (min–max),
// the reference's median, the ratio's median (min–max), the goal and whether it was met.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const exceptAt = args.indexOf("--except");
const except = new Set(exceptAt < 0 ? [] : args.splice(exceptAt, 2)[1].split(","));
const files = args;
if (files.length === 0) {
  console.error("usage: node scripts/bench-table.mjs bench.json [more.json …]");
  process.exit(2);
}

const runs = files.map((file) => JSON.parse(readFileSync(file, "utf8")));
const rows = new Map();
for (const run of runs) for (const row of run.rows) if (!except.has(row.row)) rows.set(row.row, row);

/** Three significant figures, thousands separated; integers above 1,000 whole. */
function figure(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString("en-US");
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/**
 * A goal as the docs write it (test/unit/bench/goals-docs.test.ts holds them to src/bench/goals.ts):
 * the bench prints a goal on pagelog's own figure ("< 100 ms") or on the peak RSS ("RSS < 150 MB")
 * without saying whose it is; a ratio's goal has no unit.
 */
function goalCell(goal) {
  if (goal === null || goal === undefined) return "—";
  if (goal.startsWith("RSS ")) return `peak ${goal}`;
  return /\d [A-Za-z]+$/.test(goal) ? `pagelog ${goal}` : goal;
}

const spread = (s) => (s === null ? "—" : `${figure(s.median)} (${figure(s.min)}–${figure(s.max)})`);
const met = (row) => (row.met === true ? "**yes**" : row.met === false ? "no" : "—");

for (const run of runs) {
  const m = run.meta;
  console.log(
    `<!-- ${m.cpu}, ${m.cores} cores, Node ${m.node}; CRC-32C: ${m.crc}; scale ${m.scale}, ` +
      `repeats ${m.repeats}, ${m.mode}; fsync rows on ${m.dir}, CPU rows on ${m.tmpfs} -->`,
  );
}
console.log("");
console.log("| row | unit | pagelog median (min–max) | reference median | ratio median (min–max) | goal | met |");
console.log("|---|---|---|---|---|---|---|");
for (const row of rows.values()) {
  if (row.skipped !== undefined) {
    console.log(`| \`${row.row}\` | — | skipped: ${row.skipped} | — | — | ${goalCell(row.goal)} | — |`);
    continue;
  }
  if (row.error !== undefined || row.pagelog === undefined || row.pagelog === null) {
    console.log(`| \`${row.row}\` | — | failed: ${row.error ?? "no figures"} | — | — | ${goalCell(row.goal)} | no |`);
    continue;
  }
  const reference = row.reference === null ? "—" : figure(row.reference.median);
  console.log(
    `| \`${row.row}\` | ${row.unit} | ${spread(row.pagelog)} | ${reference} | ${spread(row.ratio)} | ${goalCell(row.goal)} | ${met(row)} |`,
  );
}
