/**
 * One schedule, run and checked: the workload against the adapter's log on a fresh
 * `SimStorage`, the power cut after a chosen storage operation (and again, several levels deep,
 * while the reopen recovers), then reboot, reopen, and check the model (`model.ts`), the log's
 * own self-checks, and progress: an append after recovery lands at the end and a clean close and
 * reopen gives back exactly what is there.
 */
import type { CrashTestAdapter } from "./adapter.js";
import { cutInside, cutWhereSeeded } from "./cuts.js";
import { CutRun, type ScheduleOutcome } from "./cut-run.js";
import type { Schedule } from "./schedule.js";

export type { ScheduleOutcome } from "./cut-run.js";

/**
 * Runs one schedule and checks it: first the whole workload with the cut at its end (a schedule
 * in its own right, which also counts its storage operations), then the same seed again, cut
 * where `cutAt` says (with `cutInCleaning`, among the operations of its cleanings only). Rejects
 * with a `CrashViolation` when a guarantee broke.
 */
export async function runSchedule(adapter: CrashTestAdapter, schedule: Schedule): Promise<ScheduleOutcome> {
  const place =
    schedule.cutInCleaning === true
      ? (atEnd: ScheduleOutcome) => cutInside(schedule.cutAt, atEnd.cleaningOps)
      : undefined;
  return cutWhereSeeded(schedule.cutAt, (cutAfter) => runCut(adapter, schedule, cutAfter), place);
}

/**
 * Runs the workload with the power cut after exactly `cutAfter` storage operations (or at its
 * end), then reboots and checks, as `runSchedule` does for its random cut.
 */
export async function runCut(
  adapter: CrashTestAdapter,
  schedule: Schedule,
  cutAfter: number,
): Promise<ScheduleOutcome> {
  return new CutRun(adapter, schedule, cutAfter).run();
}
