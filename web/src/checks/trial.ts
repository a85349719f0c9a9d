/**
 * Before the log runs on pasted code in the page's own thread, the code gets a trial in a
 * throwaway worker: it is compiled there and runs the course's cases. Code that never finishes
 * (a loop at its top level, a `recover` that never moves forward) would freeze this tab, so it is
 * refused instead; the worker is simply terminated. Loops that only a rare crash state reaches are
 * not caught (docs/web-demo.md). The worker is the checks' (checks.js, loaded on the first trial
 * or check: web/src/checks/loader.ts).
 */
import type { CheckReport, CheckRequest } from "./messages.js";

/** Long enough for a loaded machine (the cases take well under a second); short for a reader. */
export const TRIAL_MS = 5000;

/**
 * Why the page must not run `source`, or undefined when it may. The time limit starts once the
 * worker's source is at hand (loading checks.js is not the code's time).
 */
export async function trialRun(
  workerSource: () => Promise<string>,
  source: string,
  timeoutMs = TRIAL_MS,
): Promise<string | undefined> {
  let code: string;
  try {
    code = await workerSource();
  } catch (err) {
    return `your code was not tried, so the log does not run on it: ${(err as Error).message}`;
  }
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
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
