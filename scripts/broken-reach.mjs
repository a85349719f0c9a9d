#!/usr/bin/env node
/**
 * How soon the fuzzer catches each broken variant, over many run seeds: for every variant and
 * run seed, `pagelog fuzz --broken <variant> --seed <seed> --runs <cap>` and the schedule it was
 * caught at. Prints a table of variant × (max, median, misses) of schedules to the first catch
 * (1-based: 1 is the run's first schedule). The crash property checks a few seeds in CI
 * (test/property/broken-reach.test.ts); this measures many, too slow for every run.
 *
 *   node scripts/broken-reach.mjs [--seeds 1-20] [--cap 100] [--max-ops 30] [--cli dist/cli.js] [--jobs 2]
 *
 * Run `npm run build` first (it runs the built CLI; `--cli` picks another build, to compare).
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "1-20" },
    cap: { type: "string", default: "100" },
    "max-ops": { type: "string", default: "30" },
    cli: { type: "string", default: "dist/cli.js" },
    jobs: { type: "string", default: String(Math.max(1, Math.min(2, availableParallelism()))) },
    variants: { type: "string" },
  },
});

function range(text) {
  const out = [];
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map(Number);
    for (let s = a; s <= (b ?? a); s++) out.push(s);
  }
  return out;
}

/** One fuzz run: the 1-based schedule the variant was caught at, or undefined within the cap. */
function caughtAt(variant, seed) {
  return new Promise((resolve, reject) => {
    const args = [values.cli, "fuzz", "--broken", variant, "--seed", String(seed), "--runs", values.cap];
    args.push("--max-ops", values["max-ops"]);
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("close", () => {
      const m = /was caught at schedule (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]) + 1);
      else if (out.includes("was NOT caught")) resolve(undefined);
      else reject(new Error(`fuzz --broken ${variant} --seed ${seed}: unexpected output\n${out}`));
    });
  });
}

async function variantNames() {
  if (values.variants !== undefined) return values.variants.split(",");
  const help = await new Promise((resolve) => {
    const child = spawn(process.execPath, [values.cli, "fuzz", "--help"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => resolve(out));
  });
  const line = /--broken VARIANT {2}fuzz a deliberately broken log \(the fuzzer must catch it\): (.*)/.exec(help);
  return line[1].split(", ").map((v) => v.trim());
}

const seeds = range(values.seeds);
const variants = await variantNames();
const jobs = [];
for (const variant of variants) for (const seed of seeds) jobs.push({ variant, seed });
const results = new Map(variants.map((v) => [v, []]));
const started = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: Number(values.jobs) }, async () => {
    while (next < jobs.length) {
      const { variant, seed } = jobs[next++];
      results.get(variant).push({ seed, at: await caughtAt(variant, seed) });
    }
  }),
);

const cap = Number(values.cap);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  `schedules to the first catch, run seeds ${values.seeds}, --max-ops ${values["max-ops"]}, cap ${cap} (a miss counts as >${cap})`,
);
console.log(`| variant | max | median | missed |`);
console.log(`|---|---|---|---|`);
for (const [variant, rs] of results) {
  const ats = rs.map((r) => r.at ?? cap + 1);
  const misses = rs.filter((r) => r.at === undefined);
  const show = (n) => (n > cap ? `>${cap}` : String(n));
  console.log(
    `| ${variant} | ${show(Math.max(...ats))} | ${show(median(ats))} | ${misses.length}/${rs.length}${misses.length === 0 ? "" : ` (seeds ${misses.map((r) => r.seed).join(",")})`} |`,
  );
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
