/**
 * `pagelog fuzz`: the crash-recovery fuzzer. Each schedule is a random workload on the
 * simulator with the power cut at a random storage operation (and again inside recovery),
 * checked against a model of what was appended and flushed. Exit 0 with no violation, 1 with
 * one (its report and replay command printed), 2 on bad arguments.
 */
import { parseArgs } from "node:util";
import { BROKEN_VARIANTS, isBrokenVariant } from "../testing/broken/variants.js";
import { CrashViolation } from "../testing/crash-harness.js";
import { type FuzzProgress, fuzz, replay } from "../testing/fuzz.js";
import { intOption, joinNegativeNumbers, parsing } from "./args.js";
import { type CliIo, UsageError } from "./io.js";

export const FUZZ_HELP = `pagelog fuzz [options]

Runs random crash schedules against pagelog's Log on the page-cache simulator: appends (one by
one and concurrent), flushes, truncations, start-offset moves, clean reopens, crashes, clock
jumps, OS write-back and injected I/O faults, with the power cut at a random storage operation
and again inside recovery. After every reboot it checks the guarantees (docs/guarantees.md): the log is a valid prefix
of what was appended, keeps every flushed record, never brings a lost one back, its indexes
agree with a scan, and appends and clean closes work after recovery.

Options:
  --runs N          schedules to run (default 2000 unless --minutes is given)
  --minutes M       run for M minutes instead
  --seed S          seed of the run (default: random, printed)
  --replay X        run only the schedule with seed X, printing its trace
  --broken VARIANT  fuzz a deliberately broken log (the fuzzer must catch it): ${BROKEN_VARIANTS.join(", ")}
  --keep-going      do not stop at the first violation
  -h, --help        show this help

Exit status: 0 no violation, 1 a violation (printed with the command that replays it), 2 usage.
With --broken the other way round: 0 when the fuzzer caught the broken log, 1 when it did not.
`;

function progressLine(p: FuzzProgress): string {
  const seconds = (p.elapsedMs / 1000).toFixed(0);
  return `schedules ${p.schedules} · power cuts ${p.powerCuts} · records recovered ${p.recordsRecovered} · violations ${p.violations} · ${seconds} s`;
}

const OPTIONS = {
  runs: { type: "string" },
  minutes: { type: "string" },
  seed: { type: "string" },
  replay: { type: "string" },
  broken: { type: "string" },
  "keep-going": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parsing(() =>
    parseArgs({
      args: joinNegativeNumbers(args, OPTIONS),
      strict: true,
      options: OPTIONS,
    }),
  );
  if (values.help) {
    io.stdout.write(FUZZ_HELP);
    return 0;
  }
  const broken = values.broken;
  if (broken !== undefined && !isBrokenVariant(broken)) throw new UsageError(`--broken must be one of ${BROKEN_VARIANTS.join(", ")}, got '${broken}'`);

  if (values.replay !== undefined) {
    const seed = intOption(values.replay, "replay", 0, 0, 2 ** 31 - 1);
    try {
      const outcome = await replay(seed, broken);
      io.stdout.write(`${outcome.trace.join("\n")}\n\nschedule ${seed}: no violation (${outcome.powerCuts} power cuts, ${outcome.recordsRecovered} records recovered)\n`);
      return 0;
    } catch (err) {
      io.stdout.write(`schedule ${seed}: VIOLATION\n${err instanceof CrashViolation ? err.message : String((err as Error)?.stack ?? err)}\n`);
      return 1;
    }
  }

  if (values.runs !== undefined && values.minutes !== undefined) throw new UsageError("give --runs or --minutes, not both");
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0 && Number.isFinite(minutes))) throw new UsageError(`--minutes must be a positive number, got '${values.minutes}'`);
  const runs = values.runs === undefined ? (minutes === undefined ? 2000 : undefined) : intOption(values.runs, "runs", 2000, 1, Number.MAX_SAFE_INTEGER);
  const seed = intOption(values.seed, "seed", Math.floor(Math.random() * 2 ** 31), 0, 2 ** 31 - 1);
  const tty = io.stdout.isTTY === true;
  io.stdout.write(`pagelog fuzz · seed ${seed} · ${runs === undefined ? `${minutes} min` : `${runs} schedules`}${broken === undefined ? "" : ` · BROKEN variant: ${broken}`}\n`);

  let lastDraw = 0;
  const report = await fuzz({
    seed,
    ...(runs === undefined ? {} : { runs }),
    ...(minutes === undefined ? {} : { minutes }),
    ...(broken === undefined ? {} : { brokenVariant: broken }),
    stopOnViolation: values["keep-going"] !== true,
    onProgress: (p) => {
      // A live line on a terminal; a line every 10 s in a log file or a pipe.
      const now = p.elapsedMs;
      if (tty && now - lastDraw >= 200) {
        io.stdout.write(`\r${progressLine(p)}`);
        lastDraw = now;
      } else if (!tty && now - lastDraw >= 10_000) {
        io.stdout.write(`${progressLine(p)}\n`);
        lastDraw = now;
      }
    },
  });
  if (tty) io.stdout.write("\r");
  io.stdout.write(`${progressLine(report)}\n`);
  const rate = report.elapsedMs > 0 ? (report.schedules / (report.elapsedMs / 1000)).toFixed(0) : "-";
  io.stdout.write(`summary: ${report.schedules} schedules, ${report.powerCuts} power cuts, ${report.recordsRecovered} records recovered, ${report.violations} violations, ${rate} schedules/s, seed ${seed}\n`);
  for (const v of report.violationList) {
    io.stdout.write(`\nVIOLATION in schedule ${v.index} (seed ${v.scheduleSeed}):\n${v.message}\nreplay: ${v.replay}\n`);
  }
  if (broken !== undefined) {
    // Fuzzing a broken log, a violation is the suite doing its job.
    if (report.violations === 0) {
      io.stdout.write(`the broken variant '${broken}' was NOT caught: the suite does not bite (try more --runs)\n`);
      return 1;
    }
    io.stdout.write(`the broken variant '${broken}' was caught at schedule ${report.violationList[0]!.index} (seed ${report.violationList[0]!.scheduleSeed})\n`);
    return 0;
  }
  return report.violations === 0 ? 0 : 1;
}
