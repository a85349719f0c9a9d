/*
 * The Clock type on its own, so that the clock's helpers (log-clock.ts) and the options that take
 * one (log-options.ts) both import it and neither imports the other back.
 */

/**
 * Where the log reads the time: `Date.now` unless a test injects its own. `now()` must return
 * milliseconds since the epoch as a safe integer, synchronously; one that throws or returns
 * anything else fails the call that read it with a `TypeError` naming the option, and the log
 * stays open.
 */
export interface Clock {
  /** Milliseconds since the epoch, as a safe integer. */
  now(): number;
}
