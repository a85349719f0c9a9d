/**
 * One bench run: fresh temp directories (one under `dir`, one under `tmpfs`), every row asked
 * for, one after another, and the directories removed afterwards, also on failure and on SIGINT
 * or SIGTERM. Resolves with the results and the header; printing is the caller's.
 */
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { loadCrc } from "./crc.js";
import type { RowResult } from "./measure.js";
import { type BenchOptions, resolveBenchOptions, type ResolvedBenchOptions } from "./options.js";
import { rowNamed } from "./rows/rows.js";
import { childScript, Runner } from "./runner.js";
import type { BenchMeta } from "./table.js";

/** Linux's statfs type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;

function isTmpfs(path: string): boolean | undefined {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return undefined;
  }
}

function metaOf(options: ResolvedBenchOptions, crcLabel: string, inChildren: boolean): BenchMeta {
  const cpuList = cpus();
  const diskNote = isTmpfs(options.dir) === true ? " (a tmpfs: the fsync row reaches no disk)" : "";
  const tmpfsNote = isTmpfs(options.tmpfs) === false ? " (not a tmpfs)" : "";
  return {
    node: process.version,
    cpu: cpuList[0]?.model.trim() ?? "unknown CPU",
    cores: cpuList.length,
    dir: options.dir + diskNote,
    tmpfs: options.tmpfs + tmpfsNote,
    crc: crcLabel,
    scale: options.scale,
    repeats: options.repeats,
    mode: inChildren ? "child-processes" : "in-process",
  };
}

interface BenchRun {
  readonly meta: BenchMeta;
  readonly results: RowResult[];
}

/** Runs the bench; `progress` hears one line per fixture built, row failed and row done. */
export async function runBench(given: BenchOptions | undefined, progress: (line: string) => void): Promise<BenchRun> {
  const options = resolveBenchOptions(given);
  const crc = loadCrc(options.crc);
  const script = options.inProcess ? undefined : childScript();
  if (!options.inProcess && script === undefined)
    throw new Error("the rows' child processes need the built bench-child.js (npm run build), or inProcess");
  const made: string[] = [];
  const removeAll = () => {
    // A child killed a moment ago may still be writing: retry a directory that is not empty yet.
    for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  let runner: Runner | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    runner?.kill();
    removeAll();
    progress(`${signal}: stopped, its temp directories removed`);
    process.exit(signal === "SIGTERM" ? 143 : 130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    made.push(mkdtempSync(join(options.dir, "pagelog-bench-")));
    made.push(mkdtempSync(join(options.tmpfs, "pagelog-bench-")));
    runner = new Runner(options, crc, { disk: made[0]!, tmpfs: made[1]! }, script, progress);
    const meta = metaOf(options, crc.label, runner.inChildren);
    const results: RowResult[] = [];
    for (const name of options.rows) {
      const started = Date.now();
      const rows = await runner.row(rowNamed(name)!);
      results.push(...rows);
      for (const r of rows) if (r.error !== undefined) progress(`row ${r.row} failed: ${r.error}`);
      for (const r of rows) if (r.skipped !== undefined) progress(`row ${r.row} skipped: ${r.skipped}`);
      progress(`${name} ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    return { meta, results };
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    removeAll();
  }
}
