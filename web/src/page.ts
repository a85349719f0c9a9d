/**
 * The page: reads the state from the URL, starts the controller, wires the buttons, the keys
 * (the terminal demo's: p c r w f s, and a for Auto) and "your code", and keeps the URL in step.
 */
import type { ScriptStep } from "../../src/demo/script.js";
import { FLUSH_CHOICES } from "../../src/demo/session.js";
import { checksWorkerSource } from "./checks/loader.js";
import { ChecksPanel } from "./checks/panel.js";
import { type ActivePolicies, DemoController, type Frame } from "./controller.js";
import { $ } from "./dom.js";
import { drawFrame, wireHover } from "./frame-view.js";
import { exposeHooks } from "./hooks.js";
import { formatHash, type PageState, parseHash } from "./url-state.js";
import { ANSWER, STARTER } from "./starter-code.js";
import { trialRun } from "./checks/trial.js";
import { compilePolicies } from "./your-code.js";

/** Auto produces a batch this often. */
const AUTO_MS = 700;

const KEY_STEPS: Record<string, () => ScriptStep> = {
  p: () => ({ kind: "produce", count: 1 }),
  c: () => ({ kind: "cut" }),
  r: () => ({ kind: "restart" }),
  w: () => ({ kind: "writeback", pages: undefined }),
  s: () => ({ kind: "flush" }),
  o: () => ({ kind: "own" }),
};

export async function startPage(): Promise<void> {
  const parsed = parseHash(location.hash);
  // Code in a link never runs by itself: it goes into "Your code" for the reader to read, and runs
  // (after its trial) only when they press "Run the log on my code". Until then the run is on
  // pagelog's own functions.
  const linkCode = parsed.state.code;
  parsed.state = { ...parsed.state, code: undefined };
  $<HTMLTextAreaElement>("code").value = linkCode ?? STARTER;
  showLinkNote(linkCode !== undefined);
  $("code-error").textContent = parsed.problem ?? "";
  const hooks = exposeHooks();
  // Auto: a produce every AUTO_MS while the power is on and nothing else is queued.
  let timer: ReturnType<typeof setInterval> | undefined;
  const stopAuto = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    $("auto").setAttribute("aria-pressed", "false");
  };
  let shownOutcome: string | undefined;
  const onFrame = (frame: Frame) => {
    drawFrame(frame);
    if (frame.outcome !== shownOutcome) keepInView($("outcome"));
    shownOutcome = frame.outcome;
    $<HTMLInputElement>("seed").value = String(frame.state.seed);
    $<HTMLSelectElement>("flush-every").value = String(frame.snapshot.flushEvery);
    history.replaceState(null, "", formatHash(frame.state));
    if (frame.snapshot.power === "cut") stopAuto();
    hooks.frame(frame, controller?.busy ?? true);
  };
  let controller: DemoController | undefined;
  controller = await DemoController.start(parsed.state, undefined, onFrame);
  const c = controller;
  wireHover();

  const step = (s: ScriptStep) => void c.step(s);
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
  addEventListener("hashchange", () => openLink());
  const openLink = () => {
    if (location.hash === formatHash(c.state)) return;
    const next = parseHash(location.hash);
    $("code-error").textContent = next.problem ?? "";
    if (next.state.code !== undefined) $<HTMLTextAreaElement>("code").value = next.state.code;
    showLinkNote(next.state.code !== undefined);
    newRun({ ...next.state, code: undefined }, undefined);
  };
  $("use-code").addEventListener("click", () => void useCode());
  const useCode = async () => {
    const source = $<HTMLTextAreaElement>("code").value;
    const button = $<HTMLButtonElement>("use-code");
    button.disabled = true;
    $("code-error").textContent = "trying your code on the course's cases first…";
    try {
      const problem = await trialRun(checksWorkerSource, source);
      if (problem !== undefined) throw new Error(problem);
      const compiled = compilePolicies(source);
      $("code-error").textContent = "";
      showLinkNote(false);
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
  wireAnswer();
  const checks = new ChecksPanel(checksWorkerSource);
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

/**
 * A new outcome off screen (a short window, or the page scrolled away) is brought just into view:
 * what a cut or a restart did must be seen without scrolling. The phone layout (style.css) puts it
 * under the buttons, so this rarely moves anything.
 */
function keepInView(el: HTMLElement): void {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) el.scrollIntoView({ block: "nearest" });
}

/** The note that says the link's code is in "Your code" and has not run. */
function showLinkNote(shown: boolean): void {
  $("link-note").hidden = !shown;
}

/** "Show pagelog's answer": the answer stays out of sight (and out of the box) until asked for. */
function wireAnswer(): void {
  const toggle = $("show-answer");
  const panel = $("answer");
  $("answer-code").textContent = ANSWER;
  toggle.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute("aria-expanded", String(!panel.hidden));
    toggle.textContent = panel.hidden ? "Show pagelog's answer" : "Hide pagelog's answer";
  });
  $("use-answer").addEventListener("click", () => {
    $<HTMLTextAreaElement>("code").value = ANSWER;
  });
}
