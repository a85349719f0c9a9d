/**
 * The one violation type of the crash engine: a schedule throws a `CrashViolation` when a
 * guarantee broke, and the run loop reports a `CrashTestViolation` for it.
 */

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

/** The report of whatever a schedule threw: a violation's own message, else the harness's failure. */
export function violationMessage(err: unknown): string {
  return err instanceof CrashViolation ? err.message : `the harness failed: ${(err as Error)?.stack ?? String(err)}`;
}
