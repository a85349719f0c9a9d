/**
 * `pagelog fuzz`: the crash-recovery fuzzer. Each schedule is a random workload on the
 * simulator with the power cut at a random storage operation (and again inside recovery),
 * checked against a model of what was appended and flushed. Exit 0 with no violation, 1 with
 * one (its report and replay command printed), 2 on bad arguments.
 */
import type { CrashTestAdapter } from "../testing/engine/adapter.js";
import type { Workload } from "../testing/engine/schedule.js";
import { BROKEN_VARIANTS, isBrokenVariant, variantWorkload } from "../testing/broken/variants.js";
import { formatReach } from "../testing/engine/reach.js";
import { runSchedule } from "../testing/engine/run-schedule.js";
import { LOG_DECISIONS } from "../testing/pagelog-adapter.js";
import { violationMessage } from "../testing/engine/violation.js";
import {
  type FuzzProgress,
  type FuzzReport,
  fuzzAdapter,
  fuzzedLog,
  replayCommand,
  scheduleFor,
  shellWord,
} from "../testing/fuzz.js";
import { formatSteps, parseSteps, shrinkSchedule, withSteps } from "../testing/engine/shrink.js";
import { policyNames, withPolicies } from "../testing/with-policies.js";
import { intOption, parseCommandLine } from "./terminal/args.js";
import { ADAPTER_TIMEOUT_S, DID_NOT_SETTLE, loadAdapter } from "./modules/adapter-module.js";
import { type CliIo, UsageError } from "./terminal/io.js";
import { loadPolicies } from "./modules/policies-module.js";
import { refuseHanging } from "./modules/refuse-hanging.js";
import { plural } from "../text/plural.js";

export const FUZZ_HELP = `pagelog fuzz [options]
pagelog fuzz --adapter ./my-log.mjs [options]

Runs random crash schedules against pagelog's Log on the page-cache simulator: appends (one by
one and concurrent), flushes, truncations, start-offset moves, clean reopens, crashes, clock
jumps, OS write-back and injected I/O faults, with the power cut at a random storage operation
and again inside recovery. After every reboot it checks the guarantees (docs/guarantees.md): the log is a valid prefix
of what was appended, keeps every flushed record, never brings a lost one back, its indexes
agree with a scan, what recovery repaired is on the disk (not only in the page cache), and
appends and clean closes work after recovery.

With --adapter it fuzzes any log instead, with the same engine: the module (ES or CommonJS)
exports a crashTest adapter, { name, open(storage, context) }, as its default export or as
\`adapter\` (docs/testing.md). Its workloads take appends, flushes, clean reopens, write-back,
clock jumps and crashes, plus the extra steps the adapter declares (concurrent appends,
truncation, start moves, checkpoints, injected faults).

With --policies it runs pagelog's Log on your course functions (docs/homework.md): the module
(ES or CommonJS) exports any of writeVarint, lookup, segmentsToDelete, recover, by name or as a
default object. A violation is shrunk to the fewest steps that still fail, printed with the
command that replays just those steps.

Options:
  --policies PATH   run the log on the course policies the module at PATH exports
  --adapter PATH    fuzz the crashTest adapter that the module at PATH exports
  --max-ops N       at most N steps per workload (default 30)
  --workload W      swarm (default: each seed draws a focus), classic (the first engine's
                    one mix, which older schedule seeds were printed with) or compaction (a
                    compacted log: compact steps, repeated keys, tombstones; the default of a
                    compaction --broken variant)
  --runs N          schedules to run (default 2000 unless --minutes is given)
  --minutes M       run for M minutes instead
  --seed S          seed of the run (default: random, printed)
  --replay X        run only the schedule with seed X, printing its trace
  --steps LIST      with --replay: only these steps of it (as a shrunk case prints them: 0-3,5)
  --broken VARIANT  fuzz a deliberately broken log (the fuzzer must catch it): ${BROKEN_VARIANTS.join(", ")}
  --keep-going      do not stop at the first violation
  --timeout S       seconds the adapter's open() and each call on its log may take (default
                    ${ADAPTER_TIMEOUT_S}): one that does not settle fails the schedule instead of hanging the
                    run; with --policies, also the time each policy has for the course's cases first
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
  adapter: { type: "string" },
  policies: { type: "string" },
  steps: { type: "string" },
  "max-ops": { type: "string" },
  workload: { type: "string" },
  "keep-going": { type: "boolean" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine(args, OPTIONS, false);
  if (values.help) {
    io.stdout.write(FUZZ_HELP);
    return 0;
  }
  const broken = values.broken;
  if (broken !== undefined && !isBrokenVariant(broken))
    throw new UsageError(`--broken must be one of ${BROKEN_VARIANTS.join(", ")}, got '${broken}'`);
  if (values.adapter !== undefined && broken !== undefined)
    throw new UsageError("give --adapter or --broken, not both");
  const maxOps = intOption(values["max-ops"], "max-ops", 30, 1, 100_000);
  if (values.policies !== undefined && broken !== undefined)
    throw new UsageError("give --policies or --broken, not both (a broken variant runs pagelog's own policies)");
  if (values.steps !== undefined && values.replay === undefined)
    throw new UsageError("--steps goes with --replay (it picks steps of that one schedule)");
  const given = values.workload;
  if (given !== undefined && given !== "swarm" && given !== "classic" && given !== "compaction")
    throw new UsageError(`--workload must be swarm, classic or compaction, got '${given}'`);
  // A compaction variant's bug is only reached by the compaction workload: its default.
  const workload = given ?? variantWorkload(broken);
  const timeoutMs = 1000 * secondsOption(values.timeout, ADAPTER_TIMEOUT_S);
  const policiesPath = values.policies;
  const policies = policiesPath === undefined ? undefined : await loadPolicies(policiesPath);
  if (policies !== undefined) await refuseHanging(policies, policiesPath!, timeoutMs);

  // One engine for both: pagelog's own log (or a broken variant of it), or the module's adapter.
  const path = values.adapter;
  const adapter =
    path === undefined
      ? fuzzedLog(broken, undefined, policies)
      : withPolicies(await loadAdapter(path, timeoutMs), policies);
  const replayOf = (seed: number, steps?: readonly number[]): string =>
    path === undefined
      ? replayCommand(seed, { brokenVariant: broken, maxOps, policiesPath, steps, workload })
      : adapterReplayCommand(path, values["max-ops"] === undefined ? undefined : maxOps, policiesPath, seed, steps) +
        (workload === undefined || workload === "swarm" ? "" : ` --workload ${workload}`) +
        (values.timeout === undefined ? "" : ` --timeout ${timeoutMs / 1000}`);
  const yours = policyNames(policies);
  const name =
    (path === undefined ? "" : ` · adapter ${String(adapter.name ?? path)}`) +
    (yours === undefined ? "" : ` · running on: your ${yours}`);

  if (values.replay !== undefined)
    return replayOne(adapter, values.replay, values.steps, { maxOps, workload, yours }, io);

  const { runs, minutes, seed } = runLength(values);
  io.stdout.write(
    `pagelog fuzz${name} · seed ${seed} · ${runs === undefined ? `${minutes} min` : plural(runs, "schedule")}${broken === undefined ? "" : ` · BROKEN variant: ${broken}`}\n`,
  );
  const report = await fuzzAdapter(adapter, {
    seed,
    ...(runs === undefined ? {} : { schedules: runs }),
    ...(minutes === undefined ? {} : { minutes }),
    maxOps,
    ...(workload === undefined ? {} : { workload }),
    failFast: values["keep-going"] !== true,
    replayCommand: (seed) => replayOf(seed),
    onProgress: progressDrawer(io),
  });
  printReport(report, io);
  await shrinkFirst(adapter, report, { broken, maxOps, workload, replayOf, yours }, io);
  return brokenOutcome(report, broken, io) ?? (report.violations === 0 ? 0 : 1);
}

/** `--replay SEED [--steps …]`: runs that one schedule and prints its trace, or its violation. */
async function replayOne(
  adapter: CrashTestAdapter,
  replay: string,
  stepsText: string | undefined,
  how: { maxOps: number; workload: Workload | undefined; yours: string | undefined },
  io: CliIo,
): Promise<number> {
  const seed = intOption(replay, "replay", 0, 0, 2 ** 31 - 1);
  const steps = stepsText === undefined ? undefined : parseSteps(stepsText);
  if (stepsText !== undefined && steps === undefined)
    throw new UsageError(`--steps must be step numbers and ranges such as 0-3,5, got '${stepsText}'`);
  const full = scheduleFor(adapter, seed, how.maxOps, how.workload);
  let schedule = full;
  try {
    if (steps !== undefined) schedule = withSteps(full, steps);
  } catch (err) {
    throw new UsageError(`--steps: ${(err as Error).message}`);
  }
  try {
    const outcome = await runSchedule(adapter, schedule);
    io.stdout.write(
      `${outcome.trace.join("\n")}\n\nschedule ${seed}: no violation (${plural(outcome.powerCuts, "power cut")}, ${plural(outcome.recordsRecovered, "record")} recovered)\n`,
    );
    return 0;
  } catch (err) {
    io.stdout.write(
      `schedule ${seed}${how.yours === undefined ? "" : ` on your ${how.yours}`}: VIOLATION\n${violationMessage(err)}\n`,
    );
    return 1;
  }
}

/** After a run of pagelog's own log or an adapter: the first violation, shrunk to its fewest steps. */
async function shrinkFirst(
  adapter: CrashTestAdapter,
  report: FuzzReport,
  how: {
    broken: string | undefined;
    maxOps: number;
    workload: Workload | undefined;
    replayOf: (seed: number, steps?: readonly number[]) => string;
    yours: string | undefined;
  },
  io: CliIo,
): Promise<void> {
  const first = report.violationList[0];
  if (first !== undefined && first.message.includes(DID_NOT_SETTLE)) {
    // Every rerun of a hang waits out the time limit: shrinking would take hundreds of them.
    io.stdout.write(`\nnot shrinking schedule ${first.seed}: a call that never settles would hang every rerun\n`);
  } else if (first !== undefined && how.broken === undefined) {
    // The smallest case is what a reader debugs: the same seed with the fewest steps that fail.
    io.stdout.write(`\nshrinking schedule ${first.seed} (at most 400 reruns)…\n`);
    const shrunk = await shrinkSchedule(adapter, scheduleFor(adapter, first.seed, how.maxOps, how.workload));
    if (shrunk === undefined)
      io.stdout.write("it did not fail again when rerun: the log under test is not deterministic\n");
    else if (shrunk.steps.length === shrunk.of) io.stdout.write("no smaller case: every step of it is needed\n");
    else
      io.stdout.write(
        `\nsmallest failing case: ${shrunk.steps.length} of the ${plural(shrunk.of, "step")} of schedule ${first.seed} (steps ${formatSteps(shrunk.steps)}, numbered as in the full schedule${how.yours === undefined ? "" : `; running on: your ${how.yours}`}):\n${shrunk.message}\nreplay: ${how.replayOf(first.seed, shrunk.steps)}\n`,
      );
  }
}

/** Fuzzing a broken log, a violation is the suite doing its job: the exit code says whether it bit. */
function brokenOutcome(report: FuzzReport, broken: string | undefined, io: CliIo): number | undefined {
  if (broken === undefined) return undefined;
  if (report.violations === 0) {
    io.stdout.write(`the broken variant '${broken}' was NOT caught: the suite does not bite (try more --runs)\n`);
    return 1;
  }
  io.stdout.write(
    `the broken variant '${broken}' was caught at schedule ${report.violationList[0]!.index} (seed ${report.violationList[0]!.seed})\n`,
  );
  return 0;
}

/** The command that replays one schedule of the adapter at `path`. */
function adapterReplayCommand(
  path: string,
  maxOps: number | undefined,
  policiesPath: string | undefined,
  seed: number,
  steps: readonly number[] | undefined,
): string {
  return (
    `npx pagelog fuzz --adapter ${shellWord(path)}` +
    (policiesPath === undefined ? "" : ` --policies ${shellWord(policiesPath)}`) +
    ` --replay ${seed}` +
    (steps === undefined ? "" : ` --steps ${formatSteps(steps)}`) +
    (maxOps === undefined ? "" : ` --max-ops ${maxOps}`)
  );
}

type Values = {
  runs?: string;
  minutes?: string;
  seed?: string;
  replay?: string;
  "max-ops"?: string;
  "keep-going"?: boolean;
};

/** `--runs` / `--minutes` / `--seed`, checked. */
function runLength(values: Values): { runs: number | undefined; minutes: number | undefined; seed: number } {
  if (values.runs !== undefined && values.minutes !== undefined)
    throw new UsageError("give --runs or --minutes, not both");
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0 && Number.isFinite(minutes)))
    throw new UsageError(`--minutes must be a positive number, got '${values.minutes}'`);
  const runs =
    values.runs === undefined
      ? minutes === undefined
        ? 2000
        : undefined
      : intOption(values.runs, "runs", 2000, 1, Number.MAX_SAFE_INTEGER);
  const seed = intOption(values.seed, "seed", Math.floor(Math.random() * 2 ** 31), 0, 2 ** 31 - 1);
  return { runs, minutes, seed };
}

/** A live line on a terminal; a line every 10 s in a log file or a pipe. */
function progressDrawer(io: CliIo): (p: FuzzProgress) => void {
  const tty = io.stdout.isTTY === true;
  let lastDraw = 0;
  return (p) => {
    const now = p.elapsedMs;
    if (tty && now - lastDraw >= 200) {
      io.stdout.write(`\r${progressLine(p)}`);
      lastDraw = now;
    } else if (!tty && now - lastDraw >= 10_000) {
      io.stdout.write(`${progressLine(p)}\n`);
      lastDraw = now;
    }
  };
}

function printReport(report: FuzzReport, io: CliIo): void {
  if (io.stdout.isTTY === true) io.stdout.write("\r");
  io.stdout.write(`${progressLine(report)}\n`);
  const rate = report.elapsedMs > 0 ? (report.schedules / (report.elapsedMs / 1000)).toFixed(0) : "-";
  io.stdout.write(
    `summary: ${plural(report.schedules, "schedule")}, ${plural(report.powerCuts, "power cut")}, ${plural(report.recordsRecovered, "record")} recovered, ${plural(report.violations, "violation")}, ${rate} schedules/s, seed ${report.seed}\n`,
  );
  // What the workloads reached: a decision at 0 is a recovery path no schedule of this run took.
  io.stdout.write(`reach (decision, times it fired):\n${formatReach(report.reach, LOG_DECISIONS).join("\n")}\n`);
  for (const v of report.violationList) {
    io.stdout.write(`\nVIOLATION in schedule ${v.index} (seed ${v.seed}):\n${v.message}\nreplay: ${v.replay}\n`);
  }
}

/** `--timeout S`: seconds in (0, 3600], as `pagelog check --timeout`. */
function secondsOption(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0 && value <= 3600))
    throw new UsageError(`--timeout must be a number of seconds in (0, 3600], got '${text}'`);
  return value;
}
