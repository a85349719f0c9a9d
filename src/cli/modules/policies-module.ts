/**
 * `--policies PATH` of `pagelog check`, `demo` and `fuzz`: a reader's module (ES or CommonJS)
 * exporting any of the course's four functions by name, or on one default object.
 */
import { type CoursePolicies, POLICY_NAMES } from "../../policies/policy-types.js";
import { UsageError } from "../terminal/io.js";
import { importUserModule } from "./user-module.js";

/** The policies a module exports: by name, or on its default export (an ES default object, or CommonJS's module.exports). */
export async function loadPolicies(path: string): Promise<Partial<CoursePolicies>> {
  const mod = await importUserModule(path, "policies");
  const found: Partial<Record<keyof CoursePolicies, unknown>> = {};
  try {
    const fromDefault =
      typeof mod.default === "object" && mod.default !== null ? (mod.default as Record<string, unknown>) : {};
    for (const name of POLICY_NAMES) {
      const policy = typeof mod[name] === "function" ? mod[name] : fromDefault[name];
      if (typeof policy === "function") found[name] = policy;
    }
  } catch (err) {
    // A getter that throws (or an export read before it is initialised): their module, exit 2.
    throw new UsageError(`--policies: reading the exports of '${path}' threw ${errorLine(err)}`);
  }
  if (Object.keys(found).length === 0)
    throw new UsageError(
      `--policies: '${path}' exports none of ${POLICY_NAMES.join(", ")} (by name or on a default object)`,
    );
  return found as Partial<CoursePolicies>;
}

/** `Name: first line of the message`. */
export function errorLine(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message.split("\n")[0]}` : String(err);
}
