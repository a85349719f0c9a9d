/**
 * `pagelog check` runs each given policy's cases in a worker thread with a time limit: a policy
 * that never returns (a `writeVarint` whose loop never ends on a negative number, say) then fails
 * its cases with a message, instead of hanging the command. The worker is this very module,
 * loaded again (`workerData` says which module and policy); so this works where the module is
 * JavaScript, as in the built and installed CLI. Run from the TypeScript sources (the unit tests),
 * the cases run in this thread, unguarded: the course's own guards (lookup reads, recover's
 * helper calls) still end the common loops there.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { checkPolicies, type PoliciesCheck, type PolicyCheck } from "../../course/check-policies.js";
import { type CoursePolicies, POLICY_NAMES, type PolicyName } from "../../policies/policy-types.js";
import { loadPolicies } from "../modules/policies-module.js";

interface Job {
  readonly pagelogCheck?: { readonly path: string; readonly policy: PolicyName };
}

/** Whether a worker can load this module (JavaScript, not the TypeScript sources). */
const workerCanLoad = import.meta.url.endsWith(".js");

/** Each given policy's cases, in a worker of its own when `path` names the module and workers can run. */
export async function checkWithTimeout(
  policies: Partial<CoursePolicies>,
  path: string | undefined,
  timeoutMs: number,
): Promise<PoliciesCheck> {
  if (path === undefined || !workerCanLoad) return checkPolicies(policies);
  const result = checkPolicies({}); // every policy "not given"; the given ones are filled in below
  await Promise.all(
    POLICY_NAMES.filter((name) => typeof policies[name] === "function").map(async (name) => {
      result[name] = await inWorker(path, name, timeoutMs);
    }),
  );
  return result;
}

/** The case name of a policy that did not finish its cases in time. */
const TIMED_OUT = "every case, in time";

/**
 * The given policies that do not finish the course's cases within `timeoutMs` (an endless loop):
 * `fuzz` and `demo` would hang on them, so they refuse them first. Needs the built CLI (workers).
 */
export async function hangingPolicies(
  policies: Partial<CoursePolicies>,
  path: string,
  timeoutMs: number,
): Promise<PolicyName[]> {
  const result = await checkWithTimeout(policies, path, timeoutMs);
  return POLICY_NAMES.filter((name) => result[name].failed.some((f) => f.case === TIMED_OUT));
}

function failedAll(policy: PolicyName, why: string, name = "every case"): PolicyCheck {
  return { given: true, passed: [], failed: [{ case: name, reason: `${policy}: ${why}` }] };
}

function inWorker(path: string, policy: PolicyName, timeoutMs: number): Promise<PolicyCheck> {
  return new Promise((resolve) => {
    const job: Job = { pagelogCheck: { path, policy } };
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    let settled = false;
    const done = (check: PolicyCheck) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(check);
    };
    const timer = setTimeout(
      () =>
        done(
          failedAll(
            policy,
            `did not finish its cases within ${timeoutMs / 1000} s: an infinite loop? (--timeout gives it longer)`,
            TIMED_OUT,
          ),
        ),
      timeoutMs,
    );
    worker.once("message", (check: PolicyCheck) => done(check));
    worker.once("error", (err) => done(failedAll(policy, `its check stopped: ${err.message.split("\n")[0]}`)));
    // A worker that ends without a word (their module called process.exit, or its top-level await
    // can never settle there): a failed check, not a command that waits for ever.
    worker.once("exit", (code) =>
      done(failedAll(policy, `its check stopped: the worker exited with code ${code} before it finished`)),
    );
  });
}

// Loaded as a worker by inWorker(): run one policy's cases and post the result.
const job = isMainThread ? undefined : (workerData as Job | undefined)?.pagelogCheck;
if (job !== undefined) {
  void loadPolicies(job.path).then((policies) =>
    parentPort!.postMessage(checkPolicies({ [job.policy]: policies[job.policy] })[job.policy]),
  );
}
