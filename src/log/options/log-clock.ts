/*
 * The log's two readings of time. Wall time (`clock.now()`) stamps records and drives
 * retention; elapsed time (a `Stopwatch`) decides when `flushMs` and `segmentMs` are up, so a
 * wall clock set back an hour never holds a flush or a roll off for an hour.
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

/** The default clock. A Log runs timers only on this one (an injected clock drives them by hand). */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * An injected clock, checked at every read: a `now()` that throws, is async, or answers
 * anything but a safe integer (ms since the epoch) is a TypeError naming the option, thrown to
 * the call that read it. A TypeError is a caller's mistake: it fails that call, never the log.
 */
export function checkedClock(clock: Clock): Clock {
  return {
    now(): number {
      let t: unknown;
      try {
        t = clock.now();
      } catch (err) {
        throw new TypeError(`option clock: now() threw: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      }
      if (typeof t !== "number" || !Number.isSafeInteger(t)) {
        const got = typeof t === "object" && t !== null && "then" in t ? "a promise" : String(t);
        throw new TypeError(`option clock: now() must return a safe integer (ms since the epoch), got ${got}`);
      }
      return t;
    },
  };
}

/** Elapsed milliseconds: readings never go backwards, and only time that passed moves them. */
export interface Stopwatch {
  /** Reads the clock (the injected one, or a monotonic source for the system clock). */
  now(): number;
  /** The elapsed reading that goes with a wall reading just taken from the log's clock. */
  at(wall: number): number;
}

/**
 * The system clock's stopwatch is the platform's monotonic clock (`performance.now()`, read at
 * each call so a test's fake timers can stand in for it). An injected clock's is a view of its
 * readings that never goes back: a reading below the last one stays at the last one, and later
 * readings count on from there.
 */
export function stopwatchFor(clock: Clock): Stopwatch {
  if (clock === systemClock && typeof performance !== "undefined" && typeof performance.now === "function") {
    const now = (): number => performance.now();
    return { now, at: now };
  }
  return monotonicView(clock);
}

function monotonicView(clock: Clock): Stopwatch {
  let last = Number.NEGATIVE_INFINITY;
  let shift = 0;
  const at = (wall: number): number => {
    let t = wall + shift;
    if (t < last) {
      shift += last - t; // the clock went back: no time passed
      t = last;
    }
    last = t;
    return t;
  };
  return { now: () => at(clock.now()), at };
}
