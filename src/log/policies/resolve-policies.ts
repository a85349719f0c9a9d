/**
 * `LogOptions.policies`: a reader's versions of the course's four functions. Checked once when
 * the log opens (a typo or a non-function is a TypeError naming it); an empty object, or one
 * with no function, resolves to undefined, so the default paths run exactly as without it.
 */
import { type CoursePolicies, POLICY_NAMES } from "../../segment/policies/policy-types.js";

export type LogPolicies = Readonly<Partial<CoursePolicies>>;

export function resolvePolicies(given: unknown): LogPolicies | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new TypeError(
      `option policies must be an object with any of ${POLICY_NAMES.join(", ")}, got ${given === null ? "null" : Array.isArray(given) ? "an array" : typeof given}`,
    );
  const out: Partial<Record<(typeof POLICY_NAMES)[number], unknown>> = {};
  for (const key of Object.keys(given)) {
    if (!(POLICY_NAMES as readonly string[]).includes(key))
      throw new TypeError(`option policies: unknown policy ${JSON.stringify(key)} (known: ${POLICY_NAMES.join(", ")})`);
  }
  for (const name of POLICY_NAMES) {
    const policy = (given as Record<string, unknown>)[name];
    if (policy === undefined) continue;
    if (typeof policy !== "function")
      throw new TypeError(
        `option policies.${name} must be a function, got ${policy === null ? "null" : typeof policy}`,
      );
    out[name] = policy;
  }
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out as Partial<CoursePolicies>);
}
