/**
 * `fuzz --policies` and `demo --policies` run a reader's functions in this thread, where an
 * endless loop would hang the command for good. So first each policy runs the course's cases in
 * a worker with a time limit (as `pagelog check` does); one that does not finish is refused.
 */
import type { CoursePolicies } from "../../policies/policy-types.js";
import { hangingPolicies } from "../check/check-worker.js";
import { UsageError } from "../terminal/io.js";

/** How long a policy may take for all its cases before the command refuses it (`fuzz --timeout`). */
const TRIAL_MS = 10_000;

export async function refuseHanging(
  policies: Partial<CoursePolicies>,
  path: string,
  trialMs = TRIAL_MS,
): Promise<void> {
  const hanging = await hangingPolicies(policies, path, trialMs);
  if (hanging.length > 0)
    throw new UsageError(
      `--policies: your ${hanging.join(", ")} did not finish the course's cases within ${trialMs / 1000} s (an infinite loop?); it would hang this command: see where with pagelog check --policies ${path}`,
    );
}
