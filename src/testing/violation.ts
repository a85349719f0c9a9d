/**
 * The one violation type of the crash engines: `crashTest` (any adapter), the log-crash harness
 * (pagelog's `Log` with truncation, retention and faults) and `pagelog fuzz` all throw a
 * `CrashViolation` inside a schedule and report a `CrashTestViolation` for it.
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

/** One schedule that broke a guarantee, as a run reports it. */
export interface CrashTestViolation {
  /** The schedule's seed: it replays that schedule alone. */
  readonly seed: number;
  /** What broke, then the last steps of the schedule. */
  readonly message: string;
  /** The call or command that replays it. */
  readonly replay: string;
}

/** The report of whatever a schedule threw: a violation's own message, else the harness's failure. */
export function violationMessage(err: unknown): string {
  return err instanceof CrashViolation ? err.message : `the harness failed: ${(err as Error)?.stack ?? String(err)}`;
}
