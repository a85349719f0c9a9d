/**
 * Where the power cuts of a schedule fall: the dry run that counts a workload's storage
 * operations before the real cut, and the reboot with further power cuts nested inside recovery.
 */
import { type Reach, sumReach } from "./reach.js";
import { CrashViolation } from "./violation.js";

/** What a run with one cut must report for `cutWhereSeeded` to place the next. */
interface CutOutcome {
  /** Storage operations the workload ran before its cut. */
  readonly workloadOps: number;
  readonly powerCuts: number;
  /** The decisions the run made. */
  readonly reach: Reach;
}

/**
 * Runs the workload with the cut at its very end — a schedule in its own right, which also
 * counts the workload's storage operations — then the same seed again, cut after
 * `floor(cutAt × ops)` operations (or where `place` puts it, given the dry run). Resolves with the
 * second run, its power cuts and reach summed with the dry run's.
 */
export async function cutWhereSeeded<O extends CutOutcome>(
  cutAt: number,
  runCut: (cutAfter: number) => Promise<O>,
  place?: (atEnd: O) => number | undefined,
): Promise<O> {
  const atEnd = await runCut(Number.MAX_SAFE_INTEGER);
  const cut = await runCut(place?.(atEnd) ?? Math.floor(cutAt * atEnd.workloadOps));
  return { ...cut, powerCuts: cut.powerCuts + atEnd.powerCuts, reach: sumReach(atEnd.reach, cut.reach) };
}

/** What `recoverThroughNestedCuts` needs from an engine. */
interface NestedCutSteps<L> {
  /** The cuts inside recovery, in storage operations, one per level. */
  readonly cuts: readonly number[];
  /** The schedule's steps so far (the loop adds its own). */
  readonly trace: string[];
  /** Power off and reboot (level 0 follows the workload's own cut); schedule `cut` if given. */
  reboot(level: number, cut: number | undefined): void;
  /** Reopens the log and checks what it holds; `when` names the moment for a report. */
  openAndCheck(when: string, level: number, cut: number | undefined): Promise<L>;
  /** Recovery finished before its cut at this level: what it found is now the model's truth. */
  recoveredBeforeCut?(log: L, level: number): Promise<void> | void;
  /** The power went off inside the recovery at this level, as its cut said. */
  cutInsideRecovery?(level: number): void;
  /** Whether `err` is the storage losing power (not a failure of the log). */
  isPowerCut(err: unknown): boolean;
  /** The violation for a reopen that failed without a power cut. */
  reopenFailed(err: unknown): Promise<CrashViolation> | CrashViolation;
}

/**
 * Reboots, cuts the power again inside each recovery (one level per cut; a recovery that ends
 * before its cut is checked, then cut right away), and reopens for good with the power on.
 * Resolves with the finally reopened log (checked) and the power cuts this took.
 */
export async function recoverThroughNestedCuts<L>(
  steps: NestedCutSteps<L>,
  when: string,
): Promise<{ log: L; powerCuts: number }> {
  let powerCuts = 0;
  for (const [level, cut] of [...steps.cuts, undefined].entries()) {
    steps.reboot(level, cut);
    powerCuts++;
    try {
      const log = await steps.openAndCheck(
        cut === undefined ? when : `${when} (recovery level ${level}, its cut at op ${cut} not reached)`,
        level,
        cut,
      );
      if (cut === undefined) return { log, powerCuts };
      await steps.recoveredBeforeCut?.(log, level);
      steps.trace.push(`level ${level}: recovery finished before its cut at op ${cut}; cutting now`);
    } catch (err) {
      if (err instanceof CrashViolation) throw err;
      if (!steps.isPowerCut(err)) throw await steps.reopenFailed(err);
      steps.cutInsideRecovery?.(level);
      steps.trace.push(`level ${level}: POWER CUT inside recovery after ${cut} op(s)`);
    }
  }
  throw new Error("unreachable: the last level has no cut");
}

/**
 * The operation `cutAt` falls on when only the operations inside `ranges` count (one after
 * another), or undefined if they hold none.
 */
export function cutInside(cutAt: number, ranges: ReadonlyArray<readonly [number, number]>): number | undefined {
  const total = ranges.reduce((sum, [from, to]) => sum + (to - from), 0);
  let at = Math.floor(cutAt * total);
  for (const [from, to] of ranges) {
    if (at < to - from) return from + at;
    at -= to - from;
  }
  return undefined;
}
