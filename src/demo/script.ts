/**
 * The demo's scripts: `--script "produce 5, writeback, cut, restart"` (steps separated by commas
 * or semicolons; each a word and an optional number; the interactive keys work as words too),
 * and the chapter's "Break it" exercise as `--script break-it`.
 */
import { UsageError } from "../text/usage-error.js";
import { plural } from "../text/plural.js";
import { flushLabel } from "./render.js";
import { type DemoSession, FLUSH_CHOICES, type LossCount } from "./session.js";
import type { PolicyBreak } from "./policy-outcome.js";

export type ScriptStep =
  | { readonly kind: "produce"; readonly count: number }
  | { readonly kind: "writeback"; readonly pages: number | undefined }
  | { readonly kind: "cut" }
  | { readonly kind: "restart" }
  | { readonly kind: "flush" }
  | { readonly kind: "flush-every"; readonly every: number | undefined }
  | { readonly kind: "own" }
  | { readonly kind: "quit" };

/** What `npm run demo` does in a pipe or in CI: the chapter's story in four steps. */
export const DEFAULT_SCRIPT = "produce 4, writeback, produce 2, cut, restart";
export const BREAK_IT = "break-it";
/** Power cuts per half of "Break it". */
const BREAK_IT_ROUNDS = 3;
/** The most power cuts the flush-off half of "Break it" makes while waiting for one that tears a batch. */
const BREAK_IT_MAX_ROUNDS = 12;
/** Batches produced before each cut in "Break it". */
const BREAK_IT_BATCHES = 4;
/** Largest count one step takes: a typo such as "produce 50000" should not hang a pipe. */
const MAX_STEP_COUNT = 1000;

const WORDS: Record<string, ScriptStep["kind"]> = {
  produce: "produce",
  p: "produce",
  writeback: "writeback",
  w: "writeback",
  cut: "cut",
  c: "cut",
  restart: "restart",
  r: "restart",
  flush: "flush",
  s: "flush",
  "flush-every": "flush-every",
  f: "flush-every",
  own: "own",
  o: "own",
  quit: "quit",
  q: "quit",
};

export function parseScript(text: string): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (const raw of text.split(/[,;\n]/)) {
    const part = raw.trim();
    if (part === "") continue;
    const [word = "", arg, extra] = part.split(/\s+/);
    const kind = WORDS[word.toLowerCase()];
    if (kind === undefined || extra !== undefined) {
      throw new UsageError(
        `bad script step '${part}' (steps: produce [n], writeback [pages], cut, restart, flush, flush-every [off|1|5], own, quit; or break-it)`,
      );
    }
    const count = (what: string): number | undefined => {
      if (arg === undefined) return undefined;
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 1 || n > MAX_STEP_COUNT)
        throw new UsageError(`bad script step '${part}': ${what} must be an integer in [1, ${MAX_STEP_COUNT}]`);
      return n;
    };
    if (kind === "produce") steps.push({ kind, count: count("the batch count") ?? 1 });
    else if (kind === "writeback") steps.push({ kind, pages: count("the page count") });
    else if (kind === "flush-every") {
      if (arg === undefined) steps.push({ kind, every: undefined });
      else {
        const every = arg === "off" ? 0 : Number(arg);
        if (!(FLUSH_CHOICES as readonly number[]).includes(every))
          throw new UsageError(`bad script step '${part}': flush-every takes off, 1 or 5`);
        steps.push({ kind, every });
      }
    } else {
      if (arg !== undefined) throw new UsageError(`bad script step '${part}': ${kind} takes no argument`);
      steps.push({ kind });
    }
  }
  if (steps.length === 0) throw new UsageError("the script has no steps");
  return steps;
}

export function stepLabel(step: ScriptStep): string {
  switch (step.kind) {
    case "produce":
      return step.count === 1 ? "produce" : `produce ${step.count}`;
    case "writeback":
      return step.pages === undefined ? "writeback" : `writeback ${step.pages}`;
    case "flush-every":
      return step.every === undefined ? "flush-every" : `flush-every ${step.every === 0 ? "off" : step.every}`;
    default:
      return step.kind;
  }
}

/** Runs one step; returns what it did, in one line. */
export async function applyStep(session: DemoSession, step: ScriptStep): Promise<string> {
  switch (step.kind) {
    case "produce":
      return session.produce(step.count);
    case "writeback":
      return session.writeback(step.pages);
    case "cut":
      return session.cut();
    case "restart":
      return session.restart();
    case "flush":
      return session.flush();
    case "flush-every":
      return session.setFlushEvery(step.every);
    case "own":
      return session.usePagelogPolicies();
    case "quit":
      return "quit";
  }
}

interface BreakItResult {
  readonly flushEveryBatch: LossCount;
  /** Undefined when a broken restart stopped "Break it" before the flush-off half. */
  readonly flushOff: LossCount | undefined;
  /** The restart a reader's policy broke, which stopped "Break it" (the log stays down). */
  readonly broken: PolicyBreak | undefined;
  /** The policies the log ran on ("pagelog's own functions", "your recover"). */
  readonly runningOn: string;
}

/**
 * The chapter's "Break it": with flush every 1 batch, produce, let the OS write back some pages,
 * cut the power and restart, several times: nothing acknowledged is lost. Then the same with
 * flushing off: acknowledged records disappear. The chapter's point is the torn batch recovery
 * cuts, and a cut tears one only when the file's new size reached the disk but some of its pages
 * did not (a coin the simulator tosses per cut): so the flush-off half goes on past its rounds,
 * up to a limit, until recovery has cut one. A restart a reader's policy broke stops it all: the
 * log is down, and counting losses on it would say nothing. `show` gets every step, for the frames.
 */
export async function runBreakIt(
  session: DemoSession,
  show: (label: string, message: string) => Promise<void>,
): Promise<BreakItResult> {
  const round = async (): Promise<void> => {
    for (const step of [
      { kind: "produce", count: BREAK_IT_BATCHES },
      { kind: "writeback", pages: undefined },
      { kind: "cut" },
      { kind: "restart" },
    ] as const) {
      await show(stepLabel(step), await applyStep(session, step));
    }
  };
  const half = async (every: number, untilTorn: boolean): Promise<LossCount> => {
    await show(`flush-every ${flushLabel(every)}`, session.setFlushEvery(every));
    session.takeCounts();
    for (let i = 0; i < BREAK_IT_MAX_ROUNDS && session.broken === undefined; i++) {
      if (i >= BREAK_IT_ROUNDS && (!untilTorn || session.counts.tornCuts > 0)) break;
      await round();
    }
    return session.takeCounts();
  };
  const flushEveryBatch = await half(1, false);
  const flushOff = session.broken === undefined ? await half(0, true) : undefined;
  return { flushEveryBatch, flushOff, broken: session.broken, runningOn: session.runningOn };
}

export function breakItSummary(r: BreakItResult): string {
  const line = (label: string, c: LossCount) =>
    `  ${label.padEnd(20)} ${plural(c.cuts, "power cut")}, ${c.lost} of ${plural(c.acknowledged, "acknowledged record")} lost`;
  const lines = ["Break it:", line("flush every 1 batch:", r.flushEveryBatch)];
  if (r.flushOff !== undefined) lines.push(line("flush off:", r.flushOff));
  lines.push(breakItConclusion(r));
  return lines.join("\n") + "\n";
}

/** What the counts show, and only what they show: each sentence follows from the numbers above it. */
function breakItConclusion(r: BreakItResult): string {
  const { flushEveryBatch: every, flushOff: off, broken } = r;
  if (broken !== undefined) {
    const half = off === undefined ? "flush every 1 batch" : "flush off";
    const cuts = (off ?? every).cuts;
    return (
      `Break it stopped at power cut ${cuts} (${half}): the restart ${broken.kind === "threw" ? "THREW" : "was BROKEN"}: ${broken.message}. ` +
      `The log stayed down, so these counts say nothing about flushing: fix your ${broken.policy} (pagelog check --policies runs its cases) or run on pagelog's own functions.`
    );
  }
  const flushed =
    every.lost === 0
      ? "Every flush made a produce wait for the disk, and nothing acknowledged was lost"
      : `Flushing every batch should lose nothing acknowledged, yet ${every.lost} ${every.lost === 1 ? "was" : "were"} lost (running on ${r.runningOn}): recovery cut records that were on the disk`;
  if (off === undefined) return `${flushed}.`;
  const torn =
    off.tornCuts > 0
      ? ` After ${off.tornCuts === 1 ? "one" : off.tornCuts} of the flush-off power cuts the file's new size reached the disk but some of its pages did not: recovery found a torn batch and cut it and everything after it (${plural(off.bytesCut, "byte")} in all).`
      : ` No flush-off power cut tore a batch (each lost the file's new size along with its pages, so recovery had nothing to cut): try another --seed.`;
  return off.lost > 0
    ? `${flushed}; without flushing, a power cut took acknowledged records with it.${torn}`
    : `${flushed}; without flushing, this time the page cache got lucky: try another --seed.${torn}`;
}
