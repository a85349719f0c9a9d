/*
 * When `FsFile.write` may write synchronously (`writeSync`) instead of through libuv's thread
 * pool. A write into the page cache is a memory copy: a few microseconds for a batch, where a
 * thread-pool round trip costs 25–30 µs and a wake-up of the event loop. But a synchronous write
 * blocks the event loop for as long as the kernel makes it wait, and under dirty-page throttling
 * (balance_dirty_pages) that is tens to hundreds of milliseconds. The gate bounds it:
 *
 * - only writes of at most `maxBytes` go synchronously (a larger one is a longer copy);
 * - every synchronous write is timed; one that took longer than `slowMs` shuts the gate: every
 *   write goes through the thread pool, as it always did, for `cooldownMs`, and then the next
 *   write probes again;
 * - a slow write within one cooldown of the gate reopening (the slowness lasts: throttling)
 *   doubles the cooldown, up to `maxCooldownMs`; a slow write after that starts again from
 *   `cooldownMs` (a one-off: the thread was descheduled on a busy machine, a page fault).
 *
 * So the event loop waits at most `slowMs` for a synchronous write that does not shut the gate,
 * and for at most one slow write per cooldown: under sustained throttling, with the defaults, one
 * at 0, 0.1, 0.3, 0.7, 1.5, 3.1 s, then one every 2 s. No `node:` imports: the clock is
 * `performance.now()` unless a test injects one.
 */

/** The bounds of a `SyncWriteGate`. */
export interface SyncWriteLimits {
  /** Largest write that may go synchronously, in bytes. */
  readonly maxBytes: number;
  /** A synchronous write that took longer than this (ms) shuts the gate. */
  readonly slowMs: number;
  /** How long the gate stays shut after a one-off slow write (ms). */
  readonly cooldownMs: number;
  /** The longest it stays shut, however long the slowness lasts (ms). */
  readonly maxCooldownMs: number;
  /** Milliseconds from any fixed origin, non-decreasing. */
  readonly now: () => number;
}

/**
 * 1 MiB: a large group commit or a recovery chunk, a copy well under a millisecond. 10 ms: far
 * above what a copy of that size takes, about the least pause dirty-page throttling imposes (a
 * shorter wait is no worse than any other short task). 100 ms: a one-off (a 2-core machine shared
 * with others trips it every second or two) costs a tenth of a second of thread-pool writes. 2 s:
 * a throttled device (pauses of up to 200 ms on Linux) holds the event loop under a tenth of the time.
 */
export const DEFAULT_SYNC_WRITE_LIMITS: SyncWriteLimits = {
  maxBytes: 1024 * 1024,
  slowMs: 10,
  cooldownMs: 100,
  maxCooldownMs: 2_000,
  now: () => performance.now(),
};

/** Decides, write by write, whether a write may block the event loop (see the file header). */
export class SyncWriteGate {
  readonly #limits: SyncWriteLimits;
  /** The clock's reading before which every write goes through the thread pool. */
  #shutUntil = -Infinity;
  /** How long the gate shut for the last time. */
  #cooldown: number;

  constructor(limits: SyncWriteLimits = DEFAULT_SYNC_WRITE_LIMITS) {
    this.#limits = limits;
    this.#cooldown = limits.cooldownMs;
  }

  /** The clock's reading to pass to `ran()` if a write of `bytes` may go synchronously now, else undefined. */
  start(bytes: number): number | undefined {
    if (bytes > this.#limits.maxBytes) return undefined;
    const now = this.#limits.now();
    return now >= this.#shutUntil ? now : undefined;
  }

  /** A synchronous write that began at `startedAt` has ended (written or failed). */
  ran(startedAt: number): void {
    const { now: clock, slowMs, cooldownMs, maxCooldownMs } = this.#limits;
    const now = clock();
    if (now - startedAt <= slowMs) return;
    // Slow again soon after the gate reopened: the slowness lasts, so stay off it longer.
    const lasting = now - this.#shutUntil <= this.#cooldown;
    this.#cooldown = lasting ? Math.min(this.#cooldown * 2, maxCooldownMs) : cooldownMs;
    this.#shutUntil = now + this.#cooldown;
  }

  /** Whether writes go through the thread pool now because a recent one was slow. */
  get shut(): boolean {
    return this.#limits.now() < this.#shutUntil;
  }
}
