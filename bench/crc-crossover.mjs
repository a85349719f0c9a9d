// Where the native CRC-32C overtakes the pure-JS table on this machine: the crossover pagelog's
// NATIVE_CRC32C_FROM_BYTES (src/format/crc32c-accelerator.ts) is set from. For each input length,
// the table (crc-32) and @node-rs/crc32 alternate over the same subarray views (offsets 0–7), in
// rounds; each figure is the median of the rounds. The crossover printed is the shortest length
// from which the native one is at least as fast at that length and every longer one measured.
// Run: npm run bench:crc [-- --rounds 11]
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

const require = createRequire(import.meta.url);
const table = require("crc-32/crc32c.js");
let native;
try {
  native = require("@node-rs/crc32");
} catch {
  console.error("bench:crc: @node-rs/crc32 is not installed (pagelog's optional dependency): npm install");
  process.exit(2);
}
const version = require("@node-rs/crc32/package.json").version;
const { values } = parseArgs({ options: { rounds: { type: "string", default: "11" } } });
const rounds = Number(values.rounds);

const LENGTHS = [32, 64, 100, 128, 192, 256, 384, 512, 768, 1024, 2048, 4096, 16384, 65536, 1 << 20];
const pool = new Uint8Array((1 << 20) + 64).map((_, i) => (Math.imul(i, 2654435761) >>> 24) & 0xff);

// One loop per implementation, so that each call site sees one function.
function runTable(views, calls) {
  let acc = 0;
  for (let i = 0; i < calls; i++) acc ^= table.buf(views[i & 7]) >>> 0;
  return acc;
}
function runNative(views, calls) {
  let acc = 0;
  for (let i = 0; i < calls; i++) acc ^= native.crc32c(views[i & 7]) >>> 0;
  return acc;
}

/** GB/s of `run` over `calls` calls. */
function rate(run, views, calls, length) {
  const start = process.hrtime.bigint();
  run(views, calls);
  return (calls * length) / Number(process.hrtime.bigint() - start);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const results = [];
for (const length of LENGTHS) {
  const views = Array.from({ length: 8 }, (_, at) => pool.subarray(at, at + length));
  for (let i = 0; i < 8; i++) if (runTable([views[i]], 1) !== runNative([views[i]], 1)) throw new Error("disagree");
  const calls = Math.max(2000, Math.ceil(8e6 / length));
  runTable(views, calls);
  runNative(views, calls);
  const t = [];
  const n = [];
  for (let r = 0; r < rounds; r++) {
    t.push(rate(runTable, views, calls, length));
    n.push(rate(runNative, views, calls, length));
  }
  results.push({ length, table: median(t), native: median(n) });
}

console.log(`CRC-32C, crc-32 (pure JS) vs @node-rs/crc32 ${version}, median of ${rounds} rounds, GB/s`);
console.log("  length   table  native  native/table");
for (const r of results)
  console.log(
    `${String(r.length).padStart(8)} ${r.table.toFixed(2).padStart(7)} ${r.native.toFixed(2).padStart(7)} ${(r.native / r.table).toFixed(2).padStart(13)}`,
  );
let crossover;
for (let i = results.length - 1; i >= 0 && results[i].native >= results[i].table; i--) crossover = results[i].length;
console.log(
  crossover === undefined
    ? "crossover: none (the table is as fast at the longest length measured)"
    : `crossover: the native CRC-32C wins from ${crossover} B up`,
);
