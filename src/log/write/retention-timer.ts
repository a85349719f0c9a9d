/*
 * The log's timers, armed at open: the flush timer of `flushMs` (flush-timer.ts) and the
 * retention check of `retentionCheckIntervalMs` (Kafka's `log.retention.check.interval.ms`):
 * time and size retention, and the cleaner's due check, for a log that does not roll. Without it
 * a quiet log kept records past `retentionMs` until its next roll or `applyRetention()`. A part
 * loaded at open (door-timers.ts) only by a log that arms one of them (`timersOf`, retain-now.ts).
 */
import type { LogState } from "../state/log-state.js";
import { armFlushTimer } from "./flush-timer.js";
import { retainNow, timersOf } from "./retain-now.js";

type Queue = <T>(task: () => Promise<T>) => Promise<T>;

/** What the timers call on their log: its `flush()`, its queue, and its cleaner's due check. */
interface TimerCalls {
  readonly flush: () => Promise<void>;
  readonly run: Queue;
  readonly recheckCleaning: () => void;
}

/**
 * Arms the timers of a writable log that `timersOf` gives any (never a read-only one). Both are
 * unref'd (they never keep a process alive) and stop at close.
 */
export function armTimers(s: LogState, calls: TimerCalls): void {
  if (s.readOnly !== undefined) return;
  const timers = timersOf(s.options);
  if (timers.flush) armFlushTimer(s, s.options.flushMs, calls.flush);
  if (timers.retention) armRetentionTimer(s, s.options.retentionCheckIntervalMs, calls);
}

/**
 * Fires `wait` ms from now. The interval is elapsed time since retention last ran (the stopwatch,
 * never wall-clock differences: a clock set back does not hold it off); a retention that ran
 * meanwhile (`applyRetention()`) pushes it back. It re-arms only after its own turn finished, so
 * a slow disk never queues a stack of them.
 */
function armRetentionTimer(s: LogState, wait: number, calls: TimerCalls): void {
  const timer = setTimeout(
    () => {
      void timedRetention(s, calls).then((next) => {
        if (s.retentionTimer === timer && s.status === "open") armRetentionTimer(s, next, calls);
      });
    },
    Math.max(1, wait),
  );
  s.retentionTimer = timer;
  (timer as { unref?: () => void }).unref?.();
}

/** The timer fired: runs retention in the log's queue if the interval is up; returns the next wait. */
async function timedRetention(s: LogState, calls: TimerCalls): Promise<number> {
  const interval = s.options.retentionCheckIntervalMs;
  const left = interval - (s.stopwatch.now() - s.lastRetentionAt);
  if (left > 0) return left;
  if (s.status !== "open") return interval;
  await calls
    .run(async () => {
      if (s.status === "open") await retainNow(s);
    })
    // A reader's rule refused, or an old segment failed its first-use check: nothing was deleted
    // and the log is open. A storage failure failed the log (guard): its next call says so.
    .catch(() => undefined);
  calls.recheckCleaning(); // time alone may have made a cleaning due (the lag rules, the horizon)
  return interval;
}
