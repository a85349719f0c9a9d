/**
 * The checks' Web Worker: the course's unit cases (`checkPolicies`, as `pagelog check` runs them)
 * and a short power-cut fuzz run (`crashTest`) of pagelog's log on the pasted policies, off the
 * page's thread so the page stays responsive and a policy that loops forever can be stopped.
 */
import { checkPolicies, POLICY_NAMES } from "../../../src/course.js";
import { crashTest, pagelogAdapter } from "../../../src/testing.js";
import type { CheckReport, CheckRequest } from "./messages.js";
import { compilePolicies } from "../your-code.js";

interface WorkerScope {
  onmessage: ((event: MessageEvent<CheckRequest>) => void) | null;
  postMessage(message: CheckReport): void;
}

export function startWorker(): void {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = (event) => void check(event.data, (m) => scope.postMessage(m));
}

async function check(request: CheckRequest, post: (m: CheckReport) => void): Promise<void> {
  let policies;
  try {
    policies = compilePolicies(request.source).policies;
  } catch (err) {
    post({ kind: "error", message: (err as Error).message });
    return;
  }
  const result = checkPolicies(policies);
  const failures = POLICY_NAMES.flatMap((n) => result[n].failed);
  const passed = POLICY_NAMES.reduce((sum, n) => sum + result[n].passed.length, 0);
  post({
    kind: "cases",
    passed,
    failed: failures.map((f) => f.reason),
    loops: failures.filter((f) => f.loop === true).map((f) => f.reason),
  });
  if (request.casesOnly === true) return;
  const summary = await crashTest(pagelogAdapter(), {
    policies,
    seed: request.seed,
    schedules: request.schedules,
    maxOps: request.maxOps,
    throwOnViolation: false,
    failFast: true,
    onProgress: (p) =>
      post({ kind: "progress", schedules: p.schedules, total: request.schedules, powerCuts: p.powerCuts }),
  });
  const first = summary.violations[0];
  post({
    kind: "fuzz",
    schedules: summary.schedules,
    powerCuts: summary.powerCuts,
    failure: first === undefined ? undefined : { seed: first.seed, message: first.message, replay: first.replay },
  });
}
