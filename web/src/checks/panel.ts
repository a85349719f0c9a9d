/**
 * "Check my code": runs the course's cases and a short fuzz run in a Web Worker made from the
 * checks' script (checks.js, loaded on the first check: web/src/checks/loader.ts; a Blob URL, as a
 * worker file could not be loaded from file://), shows progress, then the first failing case and
 * the first failing schedule's seed.
 */
import type { CheckReport, CheckRequest } from "./messages.js";
import { $ } from "../dom.js";

/** A short run: enough to catch a recover that keeps a torn batch, in a few seconds. */
export const FUZZ_SCHEDULES = 60;
const FUZZ_MAX_OPS = 30;

export class ChecksPanel {
  readonly #workerSource: () => Promise<string>;
  #worker: Worker | undefined;
  #url: string | undefined;
  /** Counts the runs ended (#finish): a run whose checks.js arrives after it ended starts nothing. */
  #ended = 0;

  constructor(workerSource: () => Promise<string>) {
    this.#workerSource = workerSource;
    $("stop-check").addEventListener("click", () => this.#finish("stopped"));
  }

  run(source: string, seed: number): void {
    this.#finish(undefined);
    const result = $("check-result");
    const progress = $<HTMLProgressElement>("check-progress");
    result.textContent = "running the course's cases…";
    result.dataset.state = "running";
    progress.hidden = false;
    progress.value = 0;
    $("stop-check").hidden = false;
    const run = this.#ended;
    this.#workerSource().then(
      (code) => {
        if (run === this.#ended) this.#start(code, source, seed);
      },
      (err: unknown) => {
        if (run !== this.#ended) return;
        result.textContent = `the check could not start: ${(err as Error).message}`;
        this.#finish("failed");
      },
    );
  }

  /** Starts the worker on the checks' source `code`, and shows what it reports. */
  #start(code: string, source: string, seed: number): void {
    const result = $("check-result");
    const progress = $<HTMLProgressElement>("check-progress");
    this.#url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
    const worker = new Worker(this.#url);
    this.#worker = worker;
    const lines: string[] = [];
    worker.onmessage = (event: MessageEvent<CheckReport>) => {
      const m = event.data;
      if (m.kind === "error") {
        lines.push(`your code: ${m.message}`);
        this.#finish("failed");
      } else if (m.kind === "cases") {
        lines.push(
          m.failed.length === 0
            ? `course cases: all ${m.passed} passed`
            : `course cases: ${m.failed.length} failed, ${m.passed} passed; the first:\n  ${m.failed[0]}`,
        );
        lines.push(`fuzz: ${FUZZ_SCHEDULES} power-cut schedules from seed ${seed}…`);
      } else if (m.kind === "progress") {
        progress.value = m.schedules / m.total;
        lines[lines.length - 1] = `fuzz: ${m.schedules} of ${m.total} schedules, ${m.powerCuts} power cuts…`;
      } else {
        lines[lines.length - 1] =
          m.failure === undefined
            ? `fuzz: ${m.schedules} schedules, ${m.powerCuts} power cuts: no guarantee broken`
            : `fuzz: FAILED at schedule seed ${m.failure.seed}\n${withoutStack(m.failure.message)}\nreplay: ${m.failure.replay}`;
        const failed = m.failure !== undefined || lines.some((l) => l.includes(" failed, "));
        this.#finish(failed ? "failed" : "passed");
      }
      result.textContent = lines.join("\n");
    };
    worker.onerror = (event) => {
      lines.push(`the check stopped: ${event.message}`);
      result.textContent = lines.join("\n");
      this.#finish("failed");
    };
    const request: CheckRequest = { source, seed, schedules: FUZZ_SCHEDULES, maxOps: FUZZ_MAX_OPS };
    worker.postMessage(request);
  }

  /** Ends the worker; `state` is what the result line says (undefined: no run is over). */
  #finish(state: "passed" | "failed" | "stopped" | undefined): void {
    this.#ended++;
    this.#worker?.terminate();
    this.#worker = undefined;
    if (this.#url !== undefined) URL.revokeObjectURL(this.#url);
    this.#url = undefined;
    $("stop-check").hidden = true;
    $<HTMLProgressElement>("check-progress").hidden = true;
    if (state === "stopped") $("check-result").textContent += "\nstopped";
    if (state !== undefined) $("check-result").dataset.state = state;
  }
}

/** The message without the stack frames of the bundled code (blob: URLs tell a reader nothing). */
function withoutStack(message: string): string {
  return message
    .split("\n")
    .filter((line) => !/^\s+at /.test(line))
    .join("\n");
}
