/**
 * `pagelog bench`: the command around the benchmark harness (src/bench/): its flags, turned
 * into the bench's options object, and the table or JSON it prints. Exit 0 when every row ran
 * (goals missed or not: figures are printed, never asserted), 1 when a row failed, 2 on bad
 * arguments. The rows' child processes are a separate entry (src/bench/bench-child.ts), so no
 * internal flag shows here.
 */
import { parseCommandLine, intOption } from "./terminal/args.js";
import { type CliIo, UsageError } from "./terminal/io.js";
import { type BenchOptions, isDirectory } from "../bench/options.js";
import { expandRowNames, rowChoices, ROW_GROUPS, ROWS } from "../bench/rows/rows.js";
import { runBench } from "../bench/run-bench.js";
import { renderJson, renderText } from "../bench/table.js";

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
${Object.entries(ROW_GROUPS)
  .map(([g, rows]) => `  ${g.padEnd(20)}(for --rows) ${rows.join(", ")}`)
  .join("\n")}

Options:
  --dir DIR         where the real-disk rows run (default: the OS temp directory)
  --tmpfs DIR       where the CPU-bound rows run (default: /dev/shm if writable, else --dir)
  --repeats N       repeats of each measurement (default 5)
  --scale X         multiplies every size and count (default 1; 0.01 for a quick look:
                    below 1 the goals are not judged, "met" says n/a)
  --rows a,b,c      run only these rows (kafka: the rows beside a local Kafka broker)
  --crc MODE        the CRC-32C of pagelog and the references alike. auto (default):
                    pagelog's own (@node-rs/crc32 from its crossover length up where it is
                    installed, else pure JS); js: the pure-JS table; native: @node-rs/crc32
                    or exit 2
  --json            print one JSON document { meta, rows } and nothing else on stdout
  --in-process      run the rows in this process (no peak RSS per row)
  -h, --help        show this help

Exit status: 0 every row ran, 1 a row failed (named on stderr), 2 usage.
`;

const OPTIONS = {
  dir: { type: "string" },
  tmpfs: { type: "string" },
  repeats: { type: "string" },
  scale: { type: "string" },
  rows: { type: "string" },
  json: { type: "boolean" },
  crc: { type: "string" },
  "in-process": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};

function directory(value: string | undefined, name: string): string | undefined {
  if (value !== undefined && !isDirectory(value))
    throw new UsageError(`--${name} must be an existing directory, got '${value}'`);
  return value;
}

function scaleOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\s*(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(value) ? Number(value) : Number.NaN;
  if (!(n > 0 && n <= 1000)) throw new UsageError(`--scale must be a number in (0, 1000], got '${value}'`);
  return n;
}

function rowsOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = [...new Set(value.split(",").map((s) => s.trim()))].filter((s) => s !== "");
  if (names.length === 0) throw new UsageError("--rows names no row (try --help)");
  const { rows, unknown } = expandRowNames(names);
  if (unknown !== undefined) throw new UsageError(`--rows: unknown row '${unknown}' (rows: ${rowChoices()})`);
  return rows;
}

/** The flags as the bench's options: each bad value a one-line usage error (exit 2), absent ones left out. */
export function benchOptionsOf(values: Values): BenchOptions {
  const crc = values.crc ?? "auto";
  if (crc !== "auto" && crc !== "js" && crc !== "native")
    throw new UsageError(`--crc must be auto, js or native, got '${crc}'`);
  const given: { -readonly [K in keyof BenchOptions]: BenchOptions[K] | undefined } = {
    dir: directory(values.dir, "dir"),
    tmpfs: directory(values.tmpfs, "tmpfs"),
    repeats: values.repeats === undefined ? undefined : intOption(values.repeats, "repeats", 5, 1, 1000),
    scale: scaleOption(values.scale),
    rows: rowsOption(values.rows),
    json: values.json,
    crc: crc,
    inProcess: values["in-process"],
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, true);
  if (values.help) {
    io.stdout.write(BENCH_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (try --help)`);
  const options = benchOptionsOf(values);
  const { meta, results } = await runBench(options, (line) => io.stderr.write(`pagelog bench: ${line}\n`));
  io.stdout.write(options.json === true ? renderJson(meta, results) : renderText(meta, results));
  return results.some((r) => r.error !== undefined) ? 1 : 0;
}
