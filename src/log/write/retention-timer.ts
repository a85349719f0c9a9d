/*
 * The log's timers, armed at open: the flush timer of `flushMs` (flush-timer.ts) and the
 * retention check of `retentionCheckIntervalMs` (Kafka's `log.retention.check.interval.ms`):
 * time and size retention, and the cleaner's due check, for a log that does not roll. Without it
 * a quiet log kept records past `retentionMs` until its next roll or `applyRetention()`.
 */
import { systemClock } from "../options/log-options.js";
import { guard, type LogState } from "../state/log-state.js";
import { armFlushTimer } from "./flush-timer.js";
import { retains } from "../options/cleanup-policy.js";
import { loadRetention } from "./door-retention.js";

type Queue = <T>(task: () => Promise<T>) => Promise<T>;

/** What the timers call on their log: its `flush()`, its queue, and its cleaner's due check. */
interface TimerCalls {
  readonly flush: () => Promise<void>;
  readonly run: Queue;
  readonly recheckCleaning: () => void;
}

/**
 * Arms the timers of a writable log. Only on the system clock: with an injected clock, real time
 * must not decide what a test sees (flushMs is then checked at each append, retention at each
 * roll and `applyRetention()`). flushMs 0 flushes at every append, so its timer would have
 * nothing to do. Both are unref'd (they never keep a process alive) and stop at close.
 */
export function armTimers(s: LogState, calls: TimerCalls): void {
  if (s.options.clock !== systemClock || s.readOnly !== undefined) return;
  if (s.options.flushMs > 0) armFlushTimer(s, s.options.flushMs, calls.flush);
  if (s.options.retentionCheckIntervalMs !== -1) armRetentionTimer(s, s.options.retentionCheckIntervalMs, calls);
}

/** Retention as of the clock's wall time now (`applyRetention()`, the timer and nothing else). */
export async function retainNow(s: LogState): Promise<void> {
  s.lastRetentionAt = s.stopwatch.now();
  if (!retains(s.options)) return; // retention off: nothing to delete, and its part need not load
  // Outside the guard: a chunk that fails to load, or a reader's rule refused (PAGELOG_POLICY),
  // has changed nothing.
  const { applyRetention, retentionCount } = await loadRetention();
  const count = await retentionCount(s, s.options.clock.now());
  await guard(s, () => applyRetention(s, count));
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
