/**
 * `pagelog bench`: pagelog's hot paths, each beside its raw reference measured in the same
 * process, as min / median / max over repeats and a ratio, on the user's own disk. Each run works
 * in fresh temp directories (one under `--dir`, one under `--tmpfs`) and removes them afterwards,
 * also on failure and on SIGINT or SIGTERM. Exit 0 when every row ran (goals missed or not: figures are
 * printed, never asserted), 1 when a row failed, 2 on bad arguments.
 */
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseCommandLine } from "./args.js";
import { type CliIo, UsageError } from "./io.js";
import type { RowResult } from "./bench/measure.js";
import { benchOptions, type BenchOptions, OPTIONS } from "./bench/options.js";
import { ROWS, rowNamed } from "./bench/rows.js";
import { childMain, Runner } from "./bench/runner.js";
import { type BenchMeta, renderJson, renderText } from "./bench/table.js";

export const BENCH_HELP = `pagelog bench [options]

Measures pagelog's hot paths against what they must at least do (their raw reference: write +
CRC, write + fdatasync, a CRC pass, open + read + close), in the same process, and prints one
table: pagelog min / median / max, the reference's median, the ratio pagelog / reference (min /
median / max over the repeats), the goal, whether it is met, and the peak RSS of the process
that ran the row. Each row runs in a child process of its own. CPU-bound rows run on tmpfs;
the fsync row on the real disk. Everything is written under fresh temp directories, removed
afterwards. docs/cli.md says what each row measures.

Rows:
${ROWS.map((r) => `  ${r.name.padEnd(20)}${r.summary}`).join("\n")}

Options:
  --dir DIR         where the real-disk rows run (default: the OS temp directory)
  --tmpfs DIR       where the CPU-bound rows run (default: /dev/shm if writable, else --dir)
  --repeats N       repeats of each measurement (default 5)
  --scale X         multiplies every size and count (default 1; 0.01 for a quick look:
                    below 1 the goals are not judged, "met" says n/a)
  --rows a,b,c      run only these rows
  --crc js|native   js: pagelog's bundled CRC-32C (default); native: @node-rs/crc32's, for
                    pagelog and the references alike (npm install @node-rs/crc32 first)
  --json            print one JSON document { meta, rows } and nothing else on stdout
  --in-process      run the rows in this process (no peak RSS per row)
  -h, --help        show this help

Exit status: 0 every row ran, 1 a row failed (named on stderr), 2 usage.
`;

/** Linux's statfs type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;

function isTmpfs(path: string): boolean | undefined {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return undefined;
  }
}

function metaOf(options: BenchOptions, inChildren: boolean): BenchMeta {
  const cpuList = cpus();
  const diskNote = isTmpfs(options.dir) === true ? " (a tmpfs: the fsync row reaches no disk)" : "";
  const tmpfsNote = isTmpfs(options.tmpfs) === false ? " (not a tmpfs)" : "";
  return {
    node: process.version,
    cpu: cpuList[0]?.model.trim() ?? "unknown CPU",
    cores: cpuList.length,
    dir: options.dir + diskNote,
    tmpfs: options.tmpfs + tmpfsNote,
    crc: options.crcLabel,
    scale: options.scale,
    repeats: options.repeats,
    mode: inChildren ? "child-processes" : "in-process",
  };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, true);
  if (values.help) {
    io.stdout.write(BENCH_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (try --help)`);
  const options = benchOptions(values);

  // A child of a run: the directories are the run's own, already made; the parent removes them.
  const childRow = values["child-row"];
  const childFixture = values["child-fixture"];
  if (childRow !== undefined || childFixture !== undefined) {
    const row = childRow === undefined ? undefined : rowNamed(childRow);
    if (childRow !== undefined && row === undefined) throw new UsageError(`--child-row: unknown row '${childRow}'`);
    await childMain(
      options,
      { ...(row === undefined ? {} : { row }), ...(childFixture === undefined ? {} : { fixture: childFixture }) },
      io,
    );
    return 0;
  }

  const made: string[] = [];
  const removeAll = () => {
    // A child killed a moment ago may still be writing: retry a directory that is not empty yet.
    for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  let runner: Runner | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    runner?.kill();
    removeAll();
    io.stderr.write(`pagelog bench: ${signal}: stopped, its temp directories removed\n`);
    process.exit(signal === "SIGTERM" ? 143 : 130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    made.push(mkdtempSync(join(options.dir, "pagelog-bench-")));
    made.push(mkdtempSync(join(options.tmpfs, "pagelog-bench-")));
    runner = new Runner(options, { disk: made[0]!, tmpfs: made[1]! }, process.argv[1], (line) =>
      io.stderr.write(`pagelog bench: ${line}\n`),
    );
    const meta = metaOf(options, runner.inChildren);
    const results: RowResult[] = [];
    for (const spec of options.rows) {
      const started = Date.now();
      const rows = await runner.row(spec);
      results.push(...rows);
      for (const r of rows)
        if (r.error !== undefined) io.stderr.write(`pagelog bench: row ${r.row} failed: ${r.error}\n`);
      io.stderr.write(`pagelog bench: ${spec.name} ran in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
    io.stdout.write(options.json ? renderJson(meta, results) : renderText(meta, results));
    return results.some((r) => r.error !== undefined) ? 1 : 0;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    removeAll();
  }
}
