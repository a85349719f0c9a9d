/**
 * The demo's scripts: `--script "produce 5, writeback, cut, restart"` (steps separated by commas
 * or semicolons; each a word and an optional number; the interactive keys work as words too),
 * and the chapter's "Break it" exercise as `--script break-it`.
 */
import { UsageError } from "../text/usage-error.js";
import { plural } from "../text/plural.js";
import { flushLabel } from "./render.js";
import { type DemoSession, FLUSH_CHOICES, type LossCount } from "./session.js";

export type Step =
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
export const BREAK_IT_ROUNDS = 3;
/** Batches produced before each cut in "Break it". */
const BREAK_IT_BATCHES = 4;
/** Largest count one step takes: a typo such as "produce 50000" should not hang a pipe. */
const MAX_STEP_COUNT = 1000;

const WORDS: Record<string, Step["kind"]> = {
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

export function parseScript(text: string): Step[] {
  const steps: Step[] = [];
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

export function stepLabel(step: Step): string {
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
export async function applyStep(session: DemoSession, step: Step): Promise<string> {
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

export interface BreakItResult {
  readonly flushEveryBatch: LossCount;
  readonly flushOff: LossCount;
}

/**
 * The chapter's "Break it": with flush every 1 batch, produce, let the OS write back some pages,
 * cut the power and restart, several times: nothing acknowledged is lost. Then the same with
 * flushing off: acknowledged records disappear. `show` gets every step, for the frames.
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
  const half = async (every: number): Promise<LossCount> => {
    await show(`flush-every ${flushLabel(every)}`, session.setFlushEvery(every));
    session.takeCounts();
    for (let i = 0; i < BREAK_IT_ROUNDS; i++) await round();
    return session.takeCounts();
  };
  const flushEveryBatch = await half(1);
  const flushOff = await half(0);
  return { flushEveryBatch, flushOff };
}

export function breakItSummary(r: BreakItResult): string {
  const line = (label: string, c: LossCount) =>
    `  ${label.padEnd(20)} ${plural(c.cuts, "power cut")}, ${c.lost} of ${plural(c.acknowledged, "acknowledged record")} lost`;
  return (
    [
      "Break it:",
      line("flush every 1 batch:", r.flushEveryBatch),
      line("flush off:", r.flushOff),
      r.flushOff.lost > 0
        ? "Every flush made a produce wait for the disk, and nothing acknowledged was lost; without flushing, a power cut took acknowledged records with it."
        : "This time the page cache got lucky: try another --seed.",
    ].join("\n") + "\n"
  );
}
