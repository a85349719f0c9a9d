/**
 * `LogOptions.policies`: a reader's versions of the course's four functions. Checked once when
 * the log opens (a typo or a non-function is a TypeError naming it); an empty object, or one
 * with no function, resolves to undefined, so the default paths run exactly as without it.
 * A module namespace (`import * as mine`) may export other things too; its default export is
 * used when it has none of the four by name, as `--policies` does.
 */
import { type CoursePolicies, POLICY_NAMES } from "../../policies/policy-types.js";

export type LogPolicies = Readonly<Partial<CoursePolicies>>;

export function resolvePolicies(given: unknown): LogPolicies | undefined {
  if (given === undefined) return undefined;
  const known = POLICY_NAMES.join(", ");
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new TypeError(`option policies must be an object with any of ${known}`);
  let from = given as Record<string, unknown>;
  const isModule = Object.prototype.toString.call(given) === "[object Module]";
  if (isModule && !POLICY_NAMES.some((name) => from[name] !== undefined) && typeof from.default === "object")
    from = (from.default ?? {}) as Record<string, unknown>;
  for (const key of isModule ? [] : Object.keys(from))
    if (!(POLICY_NAMES as readonly string[]).includes(key))
      throw new TypeError(`option policies: unknown policy ${JSON.stringify(key)} (known: ${known})`);
  const out: Record<string, unknown> = {};
  // By name, not by own keys: a class instance's methods live on its prototype.
  for (const name of POLICY_NAMES) {
    const policy = from[name];
    if (policy === undefined) continue;
    if (typeof policy !== "function") throw new TypeError(`option policies.${name} must be a function`);
    out[name] = policy;
  }
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out as Partial<CoursePolicies>);
}
