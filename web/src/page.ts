/**
 * The page: reads the state from the URL, starts the controller, wires the buttons, the keys
 * (the terminal demo's: p c r w f s, and a for Auto) and "your code", and keeps the URL in step.
 */
import type { Step } from "../../src/cli/demo/script.js";
import { FLUSH_CHOICES } from "../../src/cli/demo/session.js";
import { ChecksPanel } from "./checks-panel.js";
import { type ActivePolicies, DemoController, type Frame } from "./controller.js";
import { $ } from "./dom.js";
import { drawFrame, wireHover } from "./frame-view.js";
import { exposeHooks } from "./hooks.js";
import { formatHash, type PageState, parseHash } from "./url-state.js";
import { trialRun } from "./trial.js";
import { compilePolicies } from "./your-code.js";

/** Auto produces a batch this often. */
const AUTO_MS = 700;

const EXAMPLE = `// Chapter 4: how many bytes at the start of \`log\` are whole, valid batches?
// (A batch: 8-byte base offset, 4-byte length, then \`length\` bytes; magic is byte 16.)
function recover(log, { readInt32, crcMatches }) {
  let pos = 0;
  while (log.length - pos >= 17) {
    const length = readInt32(log, pos + 8);
    if (length < 49 || pos + 12 + length > log.length || log[pos + 16] !== 2) break;
    if (!crcMatches(pos, pos + 12 + length)) break;
    pos += 12 + length;
  }
  return pos;
}
`;

const KEY_STEPS: Record<string, () => Step> = {
  p: () => ({ kind: "produce", count: 1 }),
  c: () => ({ kind: "cut" }),
  r: () => ({ kind: "restart" }),
  w: () => ({ kind: "writeback", pages: undefined }),
  s: () => ({ kind: "flush" }),
  o: () => ({ kind: "own" }),
};

export async function startPage(workerSource: () => string): Promise<void> {
  const parsed = parseHash(location.hash);
  const linkCode = parsed.state.code;
  let policies: ActivePolicies | undefined;
  let codeProblem: string | undefined;
  if (parsed.state.code !== undefined) {
    // A link's code gets the same trial as pasted code: a loop in it must not freeze the page.
    codeProblem = await trialRun(workerSource, parsed.state.code);
    if (codeProblem !== undefined) codeProblem = `the code in the URL: ${codeProblem}`;
    try {
      if (codeProblem === undefined) policies = compilePolicies(parsed.state.code);
    } catch (err) {
      codeProblem = `the code in the URL: ${(err as Error).message}`;
    }
    if (codeProblem !== undefined) parsed.state = { ...parsed.state, code: undefined };
  }
  $<HTMLTextAreaElement>("code").value = linkCode ?? EXAMPLE;
  $("code-error").textContent = codeProblem ?? parsed.problem ?? "";
  const hooks = exposeHooks();
  // Auto: a produce every AUTO_MS while the power is on and nothing else is queued.
  let timer: ReturnType<typeof setInterval> | undefined;
  const stopAuto = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    $("auto").setAttribute("aria-pressed", "false");
  };
  const onFrame = (frame: Frame) => {
    drawFrame(frame);
    $<HTMLInputElement>("seed").value = String(frame.state.seed);
    $<HTMLSelectElement>("flush-every").value = String(frame.snapshot.flushEvery);
    history.replaceState(null, "", formatHash(frame.state));
    if (frame.snapshot.power === "cut") stopAuto();
    hooks.frame(frame, controller?.busy ?? true);
  };
  let controller: DemoController | undefined;
  controller = await DemoController.start(parsed.state, policies, onFrame);
  const c = controller;
  wireHover();

  const step = (s: Step) => void c.step(s);
  for (const [id, key] of [
    ["produce", "p"],
    ["writeback", "w"],
    ["flush", "s"],
    ["cut", "c"],
    ["restart", "r"],
  ] as const)
    $(id).addEventListener("click", () => step(KEY_STEPS[key]!()));
  $<HTMLSelectElement>("flush-every").addEventListener("change", (e) =>
    step({ kind: "flush-every", every: Number((e.target as HTMLSelectElement).value) }),
  );
  // f: the next choice after the one shown (off, 1, 5 batches), as in the terminal.
  const cycleFlush = () => {
    const shown = Number($<HTMLSelectElement>("flush-every").value) as (typeof FLUSH_CHOICES)[number];
    step({ kind: "flush-every", every: FLUSH_CHOICES[(FLUSH_CHOICES.indexOf(shown) + 1) % FLUSH_CHOICES.length]! });
  };

  const toggleAuto = () => {
    if (timer !== undefined) return stopAuto();
    $("auto").setAttribute("aria-pressed", "true");
    timer = setInterval(() => {
      if (!c.busy && !c.powerIsOff) step({ kind: "produce", count: 1 });
    }, AUTO_MS);
  };
  $("auto").addEventListener("click", toggleAuto);

  const newRun = (state: PageState, active: ActivePolicies | undefined) => {
    stopAuto();
    void c.reset(state, active);
  };
  $("new-run").addEventListener("click", () => {
    const seed = Number($<HTMLInputElement>("seed").value);
    $("seed-error").textContent = Number.isSafeInteger(seed) && seed >= 0 ? "" : "a seed is a whole number, 0 or more";
    if ($("seed-error").textContent !== "") return;
    newRun({ ...c.state, seed, steps: [], flushEvery: Number($<HTMLSelectElement>("flush-every").value) }, c.policies);
  });
  $("seed").addEventListener("keydown", (e) => {
    if (e.key === "Enter") $("new-run").click();
  });
  // A link pasted into this tab changes only the hash: start the run it describes.
  addEventListener("hashchange", () => void openLink());
  const openLink = async () => {
    if (location.hash === formatHash(c.state)) return;
    const next = parseHash(location.hash);
    let active: ActivePolicies | undefined;
    try {
      const problem = next.state.code === undefined ? undefined : await trialRun(workerSource, next.state.code);
      if (problem !== undefined) throw new Error(problem);
      active = next.state.code === undefined ? undefined : compilePolicies(next.state.code);
    } catch (err) {
      $("code-error").textContent = `the code in the URL: ${(err as Error).message}`;
    }
    $<HTMLTextAreaElement>("code").value = next.state.code ?? EXAMPLE;
    newRun(active === undefined ? { ...next.state, code: undefined } : next.state, active);
  };
  $("use-code").addEventListener("click", () => void useCode());
  const useCode = async () => {
    const source = $<HTMLTextAreaElement>("code").value;
    const button = $<HTMLButtonElement>("use-code");
    button.disabled = true;
    $("code-error").textContent = "trying your code on the course's cases first…";
    try {
      const problem = await trialRun(workerSource, source);
      if (problem !== undefined) throw new Error(problem);
      const compiled = compilePolicies(source);
      $("code-error").textContent = "";
      newRun({ ...c.state, code: source }, compiled);
    } catch (err) {
      const message = (err as Error).message;
      $("code-error").textContent = message.startsWith("your code") ? message : `your code: ${message}`;
    } finally {
      button.disabled = false;
    }
  };
  // The terminal's `o`: pagelog's own functions from the next restart on, on the same disk.
  $("drop-code").addEventListener("click", () => step({ kind: "own" }));
  $<HTMLSelectElement>("segment-picker").addEventListener("change", (e) => {
    const value = (e.target as HTMLSelectElement).value;
    void c.showSegment(value === "" ? undefined : Number(value));
  });
  const checks = new ChecksPanel(workerSource);
  $("check-code").addEventListener("click", () => checks.run($<HTMLTextAreaElement>("code").value, c.state.seed));

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    if (target.closest("input, textarea, select") !== null) return;
    const key = e.key.toLowerCase();
    const make = KEY_STEPS[key];
    if (make !== undefined) step(make());
    else if (key === "f") cycleFlush();
    else if (key === "a") toggleAuto();
    else return;
    e.preventDefault();
  });
  hooks.ready(c);
}
