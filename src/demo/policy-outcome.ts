/**
 * The demo on a reader's policies (`pagelog demo --policies`, the web page's "your code"): what
 * it says it runs on, and the outcome of a restart whose recovery a policy broke, in the course
 * demo's words: "broken" (the policy kept bytes reading breaks on: where and why) or "threw".
 */
import { ErrorCode, isPagelogError, type PolicyFault } from "../errors.js";
import type { CoursePolicies } from "../policies/policy-types.js";
import { policyNames } from "../testing/with-policies.js";

/** "pagelog's own functions", or "your recover" / "your lookup, recover". */
export function runningOn(policies: Partial<CoursePolicies> | undefined): string {
  const yours = policyNames(policies);
  return yours === undefined ? "pagelog's own functions" : `your ${yours}`;
}

/** A restart a policy refused: what the picture marks and the outcome line says. */
export interface PolicyBreak {
  readonly kind: "broken" | "threw";
  readonly policy: string;
  /** The first byte where reading the kept bytes fails (a `recover` that kept too much). */
  readonly position: number | undefined;
  /** The log's words: "your recover kept … but reading breaks at …: why". */
  readonly message: string;
}

/** The PolicyBreak an open failed with, or undefined for any other error. */
export function policyBreakOf(err: unknown): PolicyBreak | undefined {
  if (!isPagelogError(err, ErrorCode.POLICY)) return undefined;
  const fault: PolicyFault | undefined = err.policy;
  return {
    kind: fault?.why.startsWith("threw") === true ? "threw" : "broken",
    policy: fault?.policy ?? "policy",
    position: fault?.breaksAt,
    message: err.message,
  };
}

/** The outcome line of a restart that a policy broke. */
export function brokenOutcome(b: PolicyBreak): string {
  const what = b.kind === "threw" ? "THREW" : "BROKEN";
  return `restart after a power cut: ${what}: ${b.message}. The log stays down (o: run on pagelog's own functions, then r)`;
}
