/**
 * What the URL's hash holds, so any state can be shared and replayed: the seed, the flush policy
 * the run started with, the steps taken so far (in `pagelog demo --script` syntax), and the code
 * pasted into "your code", if any. The simulator is seeded, so the same hash gives the same bytes.
 *
 *   #seed=7&flush=off&script=p+4,w,c,r
 */
import { parseScript, type ScriptStep } from "../../src/demo/script.js";
import { FLUSH_CHOICES } from "../../src/demo/session.js";

export interface PageState {
  readonly seed: number;
  /** The flush policy the run started with: 0 (never), 1 or 5 batches. */
  readonly flushEvery: number;
  readonly steps: readonly ScriptStep[];
  /** Policies pasted into "your code", as source text. */
  readonly code: string | undefined;
}

export const DEFAULT_STATE: PageState = { seed: 1, flushEvery: 0, steps: [], code: undefined };

/** Reads the hash; a part that does not parse falls back to its default (and says so in `problem`). */
export function parseHash(hash: string): { state: PageState; problem: string | undefined } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  let problem: string | undefined;
  const seedText = params.get("seed");
  const seed = seedText === null ? DEFAULT_STATE.seed : Number(seedText);
  const flushText = params.get("flush") ?? "off";
  const flushEvery = flushText === "off" ? 0 : Number(flushText);
  let steps: readonly ScriptStep[] = [];
  const script = params.get("script");
  if (script !== null && script.trim() !== "") {
    try {
      steps = parseScript(script).filter((s) => s.kind !== "quit");
    } catch (err) {
      problem = `the URL's script was not replayed: ${(err as Error).message}`;
    }
  }
  const state: PageState = {
    seed: Number.isSafeInteger(seed) && seed >= 0 ? seed : DEFAULT_STATE.seed,
    flushEvery: (FLUSH_CHOICES as readonly number[]).includes(flushEvery) ? flushEvery : 0,
    steps,
    code: params.get("code") ?? undefined,
  };
  return { state, problem };
}

export function formatHash(state: PageState): string {
  const params = new URLSearchParams();
  params.set("seed", String(state.seed));
  params.set("flush", state.flushEvery === 0 ? "off" : String(state.flushEvery));
  if (state.steps.length > 0) params.set("script", formatScript(state.steps));
  if (state.code !== undefined) params.set("code", state.code);
  // Commas may stand as they are in a fragment: the script stays readable in the address bar.
  return `#${params.toString().replace(/%2C/g, ",")}`;
}

/** Steps in the terminal demo's script syntax, short words, a run of produces merged into one. */
export function formatScript(steps: readonly ScriptStep[]): string {
  const words: string[] = [];
  let produced = 0;
  const flushProduced = () => {
    // parseScript takes at most 1000 batches a step: a long Auto run becomes several words.
    for (; produced > 0; produced -= Math.min(produced, 1000))
      words.push(produced === 1 ? "p" : `p ${Math.min(produced, 1000)}`);
  };
  for (const step of steps) {
    if (step.kind === "produce") {
      produced += step.count;
      continue;
    }
    flushProduced();
    if (step.kind === "writeback") words.push(step.pages === undefined ? "w" : `w ${step.pages}`);
    else if (step.kind === "flush") words.push("s");
    else if (step.kind === "cut") words.push("c");
    else if (step.kind === "restart") words.push("r");
    else if (step.kind === "own") words.push("o");
    else if (step.kind === "flush-every") words.push(step.every === undefined ? "f" : `f ${step.every || "off"}`);
  }
  flushProduced();
  return words.join(",");
}
