/**
 * `crashTest(…, { policies })` and `pagelog fuzz --policies`: the adapter, opened with a reader's
 * course policies in its context (pagelog's adapters plug them into the Log). Its name says so,
 * so every report names the functions under test.
 */
import { type CoursePolicies, POLICY_NAMES } from "../policies/policy-types.js";
import type { CrashTestAdapter } from "./engine/adapter.js";

/** The given policy names, as "recover, lookup", or undefined for none. */
export function policyNames(policies: Partial<CoursePolicies> | undefined): string | undefined {
  const names = POLICY_NAMES.filter((name) => typeof policies?.[name] === "function");
  return names.length === 0 ? undefined : names.join(", ");
}

export function withPolicies(
  adapter: CrashTestAdapter,
  policies: Partial<CoursePolicies> | undefined,
): CrashTestAdapter {
  if (policies === undefined) return adapter;
  if (typeof policies !== "object" || policies === null || Array.isArray(policies))
    throw new TypeError(
      "options.policies must be an object with any of writeVarint, lookup, segmentsToDelete, recover",
    );
  const names = policyNames(policies);
  return {
    ...adapter,
    name: names === undefined ? adapter.name : `${adapter.name} on your ${names}`,
    open: (storage, context) => adapter.open(storage, { ...context, policies }),
  };
}
