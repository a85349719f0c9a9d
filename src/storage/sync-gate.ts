/*
 * When `FsStorage` may issue a file call synchronously (`writeSync`, `readSync`, `openSync`,
 * `fstatSync`…) instead of through libuv's thread pool. A write into the page cache, or a read
 * or a stat it already holds, is a memory copy: microseconds, where a thread-pool round trip costs
 * 25–90 µs and a wake-up of the event loop. But a synchronous call blocks the event loop for as
 * long as the kernel makes it wait: under dirty-page throttling (balance_dirty_pages) a write
 * waits tens to hundreds of milliseconds, and a read the page cache does not hold waits for the
 * device (milliseconds on a disk, more on a network file system). The gate bounds it:
 *
 * - only calls of at most `maxBytes` go synchronously (a larger one is a longer copy);
 * - every synchronous call is timed; one that took longer than `slowMs` shuts the gate: every
 *   call goes through the thread pool, as it always did, for `cooldownMs`, and then the next
 *   call probes again;
 * - a slow call within one cooldown of the gate reopening (the slowness lasts: throttling, a cold
 *   device) doubles the cooldown, up to `maxCooldownMs`; a slow call after that starts again from
 *   `cooldownMs` (a one-off: the thread was descheduled on a busy machine, a page fault).
 *
 * So the event loop waits at most `slowMs` for a synchronous call that does not shut the gate,
 * and for at most one slow call per cooldown: under sustained slowness, with the write defaults,
 * one at 0, 0.1, 0.3, 0.7, 1.5, 3.1 s, then one every 2 s. An `FsStorage` keeps two gates: one
 * for writes and one for reads and metadata calls, since a throttled writeback says nothing about
 * whether reads hit the cache, and a cold disk nothing about dirty pages.
 *
 * Fast calls need a bound too: a loop of them (a `records()` scan whose reads all hit the page
 * cache, each resolving at once) would otherwise never give the event loop a turn, and timers,
 * sockets and other logs would wait for the whole scan. So a gate also lets calls through for at
 * most `turnBudgetMs` after the first synchronous call of an event-loop turn: the next call goes
 * through the thread pool, whose completion comes back on a later turn, and the turn after that
 * starts a new budget. No `node:` imports: the clock is `performance.now()` and the turn is
 * `setImmediate` (else `setTimeout`) unless a test injects them.
 */

/** The bounds of a `SyncGate`. */
export interface SyncGateLimits {
  /** Largest call (bytes read or written) that may go synchronously. */
  readonly maxBytes: number;
  /** A synchronous call that took longer than this (ms) shuts the gate. */
  readonly slowMs: number;
  /** How long the gate stays shut after a one-off slow call (ms). */
  readonly cooldownMs: number;
  /** The longest it stays shut, however long the slowness lasts (ms). */
  readonly maxCooldownMs: number;
  /** How long after the first synchronous call of an event-loop turn calls may still go synchronously (ms). */
  readonly turnBudgetMs: number;
  /** Milliseconds from any fixed origin, non-decreasing. */
  readonly now: () => number;
  /** Runs `callback` on a later turn of the event loop. */
  readonly nextTurn: (callback: () => void) => void;
}

/** `setImmediate` where there is one (Node), else a zero timeout. */
function laterTurn(callback: () => void): void {
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate !== undefined) immediate(callback);
  else setTimeout(callback, 0);
}

/**
 * 1 MiB: a large group commit or a recovery chunk, a copy well under a millisecond. 10 ms: far
 * above what a copy of that size takes, about the least pause dirty-page throttling imposes (a
 * shorter wait is no worse than any other short task). 100 ms: a one-off (a 2-core machine shared
 * with others trips it every second or two) costs a tenth of a second of thread-pool writes. 2 s:
 * a throttled device (pauses of up to 200 ms on Linux) holds the event loop under a tenth of the time.
 * 10 ms a turn: a scan gives the event loop a turn about every 10 ms, for one thread-pool round
 * trip (30–90 µs) each time, under 1% of its speed.
 */
export const DEFAULT_SYNC_WRITE_LIMITS: SyncGateLimits = {
  maxBytes: 1024 * 1024,
  slowMs: 10,
  cooldownMs: 100,
  maxCooldownMs: 2_000,
  turnBudgetMs: 10,
  now: () => performance.now(),
  nextTurn: laterTurn,
};

/**
 * Reads and metadata calls (open, stat, fstat, close): as for writes, but slow at 5 ms. A 1 MiB
 * read from the page cache takes 0.1–0.6 ms on a loaded 2-core machine (p99 of 2,000 on tmpfs); a
 * stat or an open of a cached inode 10–20 µs. A read that waits for a disk seek (4–10 ms) is a
 * cold device, which the next read will likely meet too, so it goes through the thread pool; one
 * from a cold SSD (1–2 ms for 1 MiB) stays synchronous, no longer than the CRC of what it read.
 */
export const DEFAULT_SYNC_READ_LIMITS: SyncGateLimits = {
  ...DEFAULT_SYNC_WRITE_LIMITS,
  slowMs: 5,
};

/** Decides, call by call, whether a call may block the event loop (see the file header). */
export class SyncGate {
  readonly #limits: SyncGateLimits;
  /** The clock's reading before which every call goes through the thread pool. */
  #shutUntil = -Infinity;
  /** How long the gate shut for the last time. */
  #cooldown: number;
  /** When the first synchronous call of this event-loop turn began, or undefined before it. */
  #turnStartedAt: number | undefined;

  constructor(limits: SyncGateLimits = DEFAULT_SYNC_WRITE_LIMITS) {
    this.#limits = limits;
    this.#cooldown = limits.cooldownMs;
  }

  /** The clock's reading to pass to `ran()` if a call of `bytes` may go synchronously now, else undefined. */
  start(bytes: number): number | undefined {
    if (bytes > this.#limits.maxBytes) return undefined;
    const now = this.#limits.now();
    if (now < this.#shutUntil) return undefined;
    if (this.#turnStartedAt === undefined) this.#startTurn(now);
    else if (now - this.#turnStartedAt > this.#limits.turnBudgetMs) return undefined;
    return now;
  }

  /** Starts this turn's budget, and ends it on a later turn of the event loop. */
  #startTurn(now: number): void {
    this.#turnStartedAt = now;
    this.#limits.nextTurn(() => (this.#turnStartedAt = undefined));
  }

  /** A synchronous call that began at `startedAt` has ended (done or failed). */
  ran(startedAt: number): void {
    const { now: clock, slowMs, cooldownMs, maxCooldownMs } = this.#limits;
    const now = clock();
    if (now - startedAt <= slowMs) return;
    // Slow again soon after the gate reopened: the slowness lasts, so stay off it longer.
    const lasting = now - this.#shutUntil <= this.#cooldown;
    this.#cooldown = lasting ? Math.min(this.#cooldown * 2, maxCooldownMs) : cooldownMs;
    this.#shutUntil = now + this.#cooldown;
  }

  /** Whether calls go through the thread pool now because a recent one was slow. */
  get shut(): boolean {
    return this.#limits.now() < this.#shutUntil;
  }
}

/**
 * Runs `now` (the synchronous call) if `gate` lets a call of `bytes` through, timing it; else
 * `later` (the same call through the thread pool). Either way a failure is a rejection, never a
 * synchronous throw, so callers handle both paths in one place.
 */
export async function gated<T>(
  gate: SyncGate | undefined,
  bytes: number,
  now: () => T,
  later: () => Promise<T>,
): Promise<T> {
  const startedAt = gate?.start(bytes);
  if (startedAt === undefined) return later();
  try {
    return now();
  } finally {
    gate!.ran(startedAt);
  }
}
