/**
 * The one violation type of the crash engine: a schedule throws a `CrashViolation` when a
 * guarantee broke, and the run loop reports a `CrashTestViolation` for it.
 */
import { errorReport, policyFailure } from "./error-report.js";

/** A broken guarantee (as opposed to a bug in the harness), with the schedule's last steps. */
export class CrashViolation extends Error {
  override readonly name = "CrashViolation";
  /** Every step of the schedule so far, oldest first. */
  readonly trace: readonly string[];
  constructor(message: string, trace: readonly string[], lastSteps = 40) {
    super(`${message}\n--- last steps ---\n${trace.slice(-lastSteps).join("\n")}`);
    this.trace = trace;
  }
}

/**
 * The report of whatever a schedule threw: a violation's own message; a reader's policy failing
 * where the engine did not expect a failure (the first open) as their error; else the harness's.
 */
export function violationMessage(err: unknown): string {
  if (err instanceof CrashViolation) return err.message;
  if (policyFailure(err) !== undefined) return `opening the log: ${errorReport(err)}`;
  return `the harness failed: ${(err as Error)?.stack ?? String(err)}`;
}
