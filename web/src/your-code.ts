/**
 * "Your code": turns pasted source into course policies. The source is what a reader writes for
 * `pagelog check --policies`: function declarations (with or without `export`), `export default
 * { ... }`, or `module.exports = { ... }`; only the four policy names are picked up.
 *
 * It runs as a plain function in the page (and in the checks' worker), and only when the reader
 * presses a button: code that came in a link waits in the box until then (page.ts).
 */
import type { CoursePolicies, PolicyName } from "../../src/course.js";
import { POLICY_NAMES } from "../../src/course.js";

export interface Compiled {
  readonly policies: Partial<CoursePolicies>;
  /** The policies found, in chapter order. */
  readonly names: readonly PolicyName[];
}

/** Compiles `source`; throws (a SyntaxError, or an Error saying none was found) when it cannot. */
export function compilePolicies(source: string): Compiled {
  const body = source
    // `export function recover` and `export const recover = ...` declare the name locally.
    .replace(/^(\s*)export\s+(?=(?:async\s+)?function\b|const\b|let\b|var\b)/gm, "$1")
    .replace(/^(\s*)export\s+default\s+/gm, "$1__default = ")
    .replace(/^\s*export\s*\{[^}]*\}\s*;?/gm, "");
  const picks = POLICY_NAMES.map((n) => `${n}: typeof ${n} === "function" ? ${n} : undefined`).join(", ");
  const factory = new Function(
    "module",
    "exports",
    `"use strict";\nlet __default;\n${body}\n;return { named: { ${picks} }, __default };`,
  ) as (module: { exports: unknown }, exports: unknown) => { named: Record<string, unknown>; __default: unknown };
  const module = { exports: {} as unknown };
  const { named, __default } = factory(module, module.exports);
  const sources = [named, __default, module.exports].filter((o): o is Record<string, unknown> => isObject(o));
  const policies: Record<string, unknown> = {};
  for (const name of POLICY_NAMES) {
    const found = sources.map((o) => o[name]).find((f) => typeof f === "function");
    if (found !== undefined) policies[name] = found;
  }
  const names = POLICY_NAMES.filter((n) => n in policies);
  if (names.length === 0) throw new Error(`no policy found: define a function named ${POLICY_NAMES.join(", ")}`);
  return { policies, names };
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}
