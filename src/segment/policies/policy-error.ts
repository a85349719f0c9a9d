/**
 * The error a reader's policy earns when the log cannot use its answer: `PAGELOG_POLICY`, with
 * the function named first in the message ("your recover …") and in `error.policy`, because the
 * reader must see that it was their code, not pagelog, that went wrong.
 */
import { ErrorCode, PagelogError, type PolicyFault } from "../../errors.js";

/** A short, printable form of whatever a policy returned (values can be anything). */
export function shown(value: unknown): string {
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 80)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** `your <policy> <why>` as a PAGELOG_POLICY error. */
export function policyError(fault: PolicyFault, path?: string): PagelogError {
  return new PagelogError(`your ${fault.policy} ${fault.why}`, ErrorCode.POLICY, {
    policy: fault,
    ...(path === undefined ? {} : { path }),
  });
}

/** Calls a policy; an exception becomes a PAGELOG_POLICY error that names it ("threw …"). */
export function callPolicy<T>(policy: string, call: () => T, path?: string): T {
  try {
    return call();
  } catch (err) {
    const what = err instanceof Error ? `${err.name}: ${err.message.split("\n")[0]}` : shown(err);
    throw new PagelogError(`your ${policy} threw ${what}`, ErrorCode.POLICY, {
      cause: err,
      policy: { policy, why: `threw ${what}` },
      ...(path === undefined ? {} : { path }),
    });
  }
}
