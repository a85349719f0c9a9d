/*
 * What of the log's timed work every writable log loads: retention as of now (`applyRetention()`,
 * and the retention timer's turn), and which timers a log arms. The timers themselves
 * (retention-timer.ts, flush-timer.ts) are a part loaded at open through door-timers.ts, only by
 * a log that arms one: on the system clock, with `flushMs` above 0, or a retention check that has
 * something to do.
 */
import { systemClock } from "../options/log-clock.js";
import { compacts, retains } from "../options/cleanup-policy.js";
import { guard, type LogState } from "../state/log-state.js";
import { loadRetention } from "./door-retention.js";
import type { ResolvedLogOptions } from "../options/log-options.js";

/**
 * The timers a log of these options arms. None with an injected clock: real time must not decide
 * what a test sees (flushMs is then checked at each append, retention at each roll and
 * `applyRetention()`). No flush timer with flushMs 0 (every append flushes) or -1. No retention
 * check when it is off (-1), or when it would find nothing to do: retention off and no cleaner to
 * ask whether time made a cleaning due.
 */
export function timersOf(o: ResolvedLogOptions): { readonly flush: boolean; readonly retention: boolean } {
  const onClock = o.clock === systemClock;
  return {
    flush: onClock && o.flushMs > 0,
    retention: onClock && o.retentionCheckIntervalMs !== -1 && (retains(o) || compacts(o.cleanupPolicy)),
  };
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
