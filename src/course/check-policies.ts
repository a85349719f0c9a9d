/**
 * Runs each given policy through its chapter's cases. A case passes, fails with a one-line
 * reason naming the policy and the case, or fails with the exception the policy threw.
 * No `node:`: a course page can run this in the browser as `pagelog check` does in a terminal.
 */
import type { PolicyCase } from "./cases/case.js";
import { lookupCases } from "./cases/lookup-cases.js";
import { recoverCases } from "./cases/recover-cases.js";
import { retentionCases } from "./cases/retention-cases.js";
import { varintCases } from "./cases/varint-cases.js";
import { type CoursePolicies, POLICY_NAMES, type PolicyName } from "../policies/policy-types.js";
import { isLoopCaught } from "./loop-guard.js";
import { readLimited } from "./read-limited.js";

/** One failed case: its name and why, as `lookup: target 57 … → expected …, got …`. */
export interface FailedCase {
  /** The case's name, as `pagelog check` prints it. */
  readonly case: string;
  /** Why the answer was wrong, in a sentence. */
  readonly reason: string;
  /** True when a case's loop guard stopped the policy (it would have run for ever); absent otherwise. */
  readonly loop?: true;
}

/** What checking one policy found; `given: false` when the policies did not include it. */
export interface PolicyCheck {
  /** Whether the policies given hold this function (false: nothing was run). */
  readonly given: boolean;
  /** Names of the cases it passed. */
  readonly passed: readonly string[];
  /** The cases it failed, with why. */
  readonly failed: readonly FailedCase[];
}

/** What `checkPolicies` found, per course function. */
export type PoliciesCheck = Record<PolicyName, PolicyCheck>;

const CASES: { [N in PolicyName]: readonly PolicyCase<CoursePolicies[N]>[] } = {
  writeVarint: varintCases,
  lookup: lookupCases,
  segmentsToDelete: retentionCases,
  recover: recoverCases,
};

function runCases<N extends PolicyName>(name: N, given: CoursePolicies[N]): PolicyCheck {
  const passed: string[] = [];
  const failed: FailedCase[] = [];
  const policy = (name === "lookup" ? readLimited(given as CoursePolicies["lookup"]) : given) as CoursePolicies[N];
  for (const c of CASES[name]) {
    let problem: string | undefined;
    let loop = false;
    try {
      problem = c.check(policy);
    } catch (err) {
      const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      problem = `threw ${message.split("\n")[0]}`;
      loop = isLoopCaught(err);
    }
    if (problem === undefined) passed.push(c.name);
    else failed.push({ case: c.name, reason: `${name}: ${c.name} → ${problem}`, ...(loop ? { loop: true } : {}) });
  }
  return { given: true, passed, failed };
}

/** Checks the policies that `policies` has (functions under the four names); the others are not given. */
export function checkPolicies(policies: Partial<CoursePolicies>): PoliciesCheck {
  const result = {} as Record<PolicyName, PolicyCheck>;
  for (const name of POLICY_NAMES) {
    const policy = policies[name];
    result[name] = typeof policy === "function" ? runCases(name, policy) : { given: false, passed: [], failed: [] };
  }
  return result;
}
