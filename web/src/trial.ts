/**
 * Before the log runs on pasted code in the page's own thread, the code gets a trial in a
 * throwaway worker: it is compiled there and runs the course's cases. Code that never finishes
 * (a loop at its top level, a `recover` that never moves forward) would freeze this tab, so it is
 * refused instead; the worker is simply terminated. Loops that only a rare crash state reaches are
 * not caught (docs/web-demo.md).
 */
import type { CheckReport, CheckRequest } from "./check-messages.js";

/** Long enough for a loaded machine (the cases take well under a second); short for a reader. */
export const TRIAL_MS = 5000;

/** Why the page must not run `source`, or undefined when it may. */
export function trialRun(
  workerSource: () => string,
  source: string,
  timeoutMs = TRIAL_MS,
): Promise<string | undefined> {
  const url = URL.createObjectURL(new Blob([workerSource()], { type: "text/javascript" }));
  const worker = new Worker(url);
  return new Promise<string | undefined>((resolve) => {
    const done = (problem: string | undefined) => {
      clearTimeout(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
      resolve(problem);
    };
    const timer = setTimeout(
      () =>
        done(
          `your code did not finish the course's cases within ${timeoutMs / 1000} s: an infinite loop? The log does not run on it (it would freeze this page); "Check my code" shows where it stops`,
        ),
      timeoutMs,
    );
    worker.onmessage = (event: MessageEvent<CheckReport>) => {
      const m = event.data;
      if (m.kind === "error") done(`your code: ${m.message}`);
      else if (m.kind === "cases") {
        // The cases' loop guards say so as data (FailedCase.loop), whatever their words.
        const loop = m.loops[0];
        done(
          loop === undefined
            ? undefined
            : `your code loops: ${loop}. The log does not run on it (it would freeze this page)`,
        );
      }
    };
    worker.onerror = (event) => done(`your code: ${event.message}`);
    const request: CheckRequest = { source, seed: 0, schedules: 0, maxOps: 1, casesOnly: true };
    worker.postMessage(request);
  });
}
