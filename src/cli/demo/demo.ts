/**
 * `pagelog demo`: the chapter's page-cache demo in a terminal, on pagelog's real Log over
 * SimStorage with 64-byte pages. Interactive (one key per step) when stdin and stdout are
 * terminals and no --script is given; otherwise it runs a script and prints every frame.
 */
import { intOption, parseCommandLine } from "../terminal/args.js";
import { runInteractive } from "./interactive.js";
import { renderFrame } from "../../demo/render.js";
import {
  applyStep,
  BREAK_IT,
  breakItSummary,
  DEFAULT_SCRIPT,
  parseScript,
  runBreakIt,
  stepLabel,
} from "../../demo/script.js";
import { type DemoConfig, DemoSession, FLUSH_CHOICES } from "../../demo/session.js";
import { pagesPerRow } from "../../demo/strip.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import { loadPolicies } from "../modules/policies-module.js";
import { refuseHanging } from "../modules/refuse-hanging.js";
import type { CoursePolicies } from "../../policies/policy-types.js";
import { colorWanted, makeStyle } from "../terminal/style.js";

/** The chapter's demo uses small pages so a torn page is visible. */
const DEFAULT_PAGE_SIZE = 64;
/** A quarter of a page: a torn page keeps some of its four sectors. */
const SECTORS_PER_PAGE = 4;
/** Four rows of four 64-byte pages: about ten batches before the log rolls to a new segment. */
const DEFAULT_SEGMENT_BYTES = 1024;

export const DEMO_HELP = `pagelog demo [options]

The page-cache demo of "Build your own Kafka", chapter 4, on pagelog's real Log over
SimStorage (a simulated disk and page cache). It draws the active segment: bytes on disk
(green), bytes only in the page cache (gold), torn bytes and bytes recovery cuts away (red),
a tick at every page boundary and a mark where each batch starts.

At a terminal, one key per step:
  p  produce a batch (1-3 records: key sensor-N, value "reading N")
  c  cut the power: each dirty page is written, lost or torn
  r  restart: reopen the log and recover (after a cut), or a clean shutdown and start
  w  let the OS write back some dirty pages on its own
  f  cycle "flush every": off, 1, 5 batches
  s  flush now (fsync)
  o  run on pagelog's own functions from the next restart (after --policies)
  q  quit

Options:
  --script <steps>     run steps and print every frame, e.g.
                       "produce 5, writeback, cut, restart" (steps: produce [n],
                       writeback [pages], cut, restart, flush, flush-every [off|1|5], quit),
                       or "break-it": the chapter's exercise, flush every 1 batch vs off,
                       with counts of acknowledged records lost. Without a terminal the
                       default is "${DEFAULT_SCRIPT}".
  --seed <n>           seeds the simulator and the records (default 1)
  --page-size <bytes>  page size (default ${DEFAULT_PAGE_SIZE})
  --sector-size <b>    sector size, the unit a torn page keeps or loses (default page/4)
  --segment-bytes <n>  roll to a new segment past this size (default ${DEFAULT_SEGMENT_BYTES})
  --flush-every <off|1|5>  flush policy to start with (default off, as Kafka's)
  --policies <module>  run the log on your course functions (docs/homework.md): an ES
                       or CommonJS module exporting any of writeVarint, lookup,
                       segmentsToDelete, recover, by name or as a default object. The
                       frame says "running on: your recover"; when your recover keeps a
                       torn batch, a restart shows BROKEN and where reading breaks.
  --no-color           no colours (also NO_COLOR=1, FORCE_COLOR=0, TERM=dumb); --color forces them
  -h, --help           show this help
`;

const OPTIONS = {
  script: { type: "string" },
  seed: { type: "string" },
  "page-size": { type: "string" },
  "sector-size": { type: "string" },
  "segment-bytes": { type: "string" },
  "flush-every": { type: "string" },
  policies: { type: "string" },
  color: { type: "boolean" },
  "no-color": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, true);
  if (values.help === true) {
    io.stdout.write(DEMO_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (try --help)`);
  const pageSize = intOption(values["page-size"], "page-size", DEFAULT_PAGE_SIZE, 16, 65536);
  const sectorSize = intOption(
    values["sector-size"],
    "sector-size",
    Math.max(1, Math.floor(pageSize / SECTORS_PER_PAGE)),
    1,
    pageSize,
  );
  if (pageSize % sectorSize !== 0)
    throw new UsageError(`--page-size ${pageSize} must be a multiple of --sector-size ${sectorSize}`);
  const flushArg = values["flush-every"] ?? "off";
  const flushEvery = flushArg === "off" ? 0 : Number(flushArg);
  if (!(FLUSH_CHOICES as readonly number[]).includes(flushEvery))
    throw new UsageError(`--flush-every must be off, 1 or 5, got '${flushArg}'`);
  const config: DemoConfig = {
    seed: intOption(values.seed, "seed", 1, 0, Number.MAX_SAFE_INTEGER),
    pageSize,
    sectorSize,
    segmentBytes: intOption(values["segment-bytes"], "segment-bytes", DEFAULT_SEGMENT_BYTES, 128, 1 << 30),
    flushEvery,
    ...(values.policies === undefined ? {} : { policies: await loadChecked(values.policies) }),
  };
  const style = makeStyle(colorWanted(io, values));
  const interactive = values.script === undefined && io.stdout.isTTY === true && io.stdin?.isTTY === true;
  const script = values.script ?? DEFAULT_SCRIPT;
  // Parse before starting, so a bad script is a usage error with nothing printed.
  const steps = script.trim() === BREAK_IT || interactive ? [] : parseScript(script);
  const session = await DemoSession.start(config);
  const rowPages = pagesPerRow(interactive ? io.stdout.columns : undefined, pageSize);
  if (interactive) return runInteractive(session, io, style, rowPages);
  let n = 0;
  const show = async (label: string, message: string | undefined) => {
    const title = `── ${n++}. ${label} `;
    io.stdout.write(`${n === 1 ? "" : "\n"}${style.paint(title.padEnd(Math.max(title.length, 72), "─"), "2")}\n`);
    io.stdout.write(
      renderFrame(await session.snapshot(), {
        style,
        pagesPerRow: rowPages,
        ...(message === undefined ? {} : { message }),
      }),
    );
  };
  await show("start", undefined);
  if (script.trim() === BREAK_IT) {
    const result = await runBreakIt(session, show);
    io.stdout.write("\n" + breakItSummary(result));
  } else {
    for (const step of steps) {
      if (step.kind === "quit") break;
      await show(stepLabel(step), await applyStep(session, step));
    }
  }
  await session.close();
  return 0;
}

/** The policies of `--policies`, refused if one would hang the demo (refuse-hanging.ts). */
async function loadChecked(path: string): Promise<Partial<CoursePolicies>> {
  const policies = await loadPolicies(path);
  await refuseHanging(policies, path);
  return policies;
}
