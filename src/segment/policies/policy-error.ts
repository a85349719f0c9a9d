/**
 * The error a reader's policy earns when the log cannot use its answer: `PAGELOG_POLICY`, with
 * the function named first in the message ("your recover …") and in `error.policy`, because the
 * reader must see that it was their code, not pagelog, that went wrong. (Kept small: this code
 * ships in every browser bundle of the log.)
 */
import { ErrorCode, PagelogError, type PolicyFault } from "../../errors.js";

/** A short, printable form of whatever a policy returned (values can be anything). */
export function shown(value: unknown): string {
  let text: string | undefined;
  try {
    text = typeof value === "number" ? undefined : JSON.stringify(value);
  } catch {
    // a cycle: String() below
  }
  text ??= typeof value === "function" ? "a function" : String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** `your <policy> <why>` as a PAGELOG_POLICY error. */
export function policyError(fault: PolicyFault, path?: string, cause?: unknown): PagelogError {
  return new PagelogError(`your ${fault.policy} ${fault.why}`, ErrorCode.POLICY, {
    policy: fault,
    cause,
    ...(path === undefined ? {} : { path }),
  });
}

/** Calls a policy; an exception becomes a PAGELOG_POLICY error that names it ("threw …"). */
export function callPolicy<T>(policy: string, call: () => T, path?: string): T {
  try {
    return call();
  } catch (err) {
    const what = err instanceof Error ? `${err.name}: ${err.message.split("\n")[0]}` : shown(err);
    throw policyError({ policy, why: `threw ${what}` }, path, err);
  }
}
