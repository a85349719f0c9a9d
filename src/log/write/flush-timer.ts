/*
 * The flush timer of `LogOptions.flushMs`: its own file so that `log.ts` stays a class shell.
 */
import { MAX_TIMER_MS } from "../options/log-option-resolvers.js";
import { endOffsetOf, type LogState } from "../state/log-state.js";

/**
 * Arms the flush timer to fire `wait` ms from now; `flush` is the log's `flush()` (through its
 * queue). The timer keeps its own schedule: armed after a flush, it fires when flushMs has
 * passed by the timer's clock, whatever the wall clock did meanwhile. It re-arms only after its
 * own flush finished, so a slow disk never builds a queue of timed flushes for `flush()` to wait behind.
 */
export function armFlushTimer(s: LogState, wait: number, flush: () => Promise<void>): void {
  // Past setTimeout's limit the timer fires early and waits out the rest.
  const delay = Math.min(MAX_TIMER_MS, Math.max(1, wait));
  const flushes = s.flushes;
  const timer = setTimeout(() => {
    // timedFlush never rejects: a failed flush is kept in the status for the next call.
    void timedFlush(s, flushes, wait - delay, flush).then((next) => {
      if (s.flushTimer === timer && s.status === "open") armFlushTimer(s, next, flush);
    });
  }, delay);
  s.flushTimer = timer;
  (timer as { unref?: () => void }).unref?.();
}

/**
 * The flush timer fired: flushes if none ran since it was armed and nothing of its wait is
 * left. Returns how long to wait next.
 */
async function timedFlush(
  s: LogState,
  flushesWhenArmed: number,
  left: number,
  flush: () => Promise<void>,
): Promise<number> {
  const { flushMs } = s.options;
  // Another flush ran meanwhile: the next one is due flushMs after it.
  if (s.flushes !== flushesWhenArmed) return flushMs - (s.stopwatch.now() - s.lastFlushAt);
  if (left > 0) return left;
  if (s.status === "open" && s.recoveryPoint !== endOffsetOf(s)) {
    await flush().catch(() => undefined); // the failure is kept in the status; callers see it on their next call
  }
  return flushMs;
}
