/*
 * When `FsFile.write` may write synchronously (`writeSync`) instead of through libuv's thread
 * pool. A write into the page cache is a memory copy: a few microseconds for a batch, where a
 * thread-pool round trip costs 25–30 µs and a wake-up of the event loop. But a synchronous write
 * blocks the event loop for as long as the kernel makes it wait, and under dirty-page throttling
 * (balance_dirty_pages) that is tens to hundreds of milliseconds. The gate bounds it:
 *
 * - only writes of at most `maxBytes` go synchronously (a larger one is a longer copy);
 * - every synchronous write is timed; one that took longer than `slowMs` shuts the gate for
 *   `cooldownMs`: until then every write goes through the thread pool, as it always did, and
 *   after it the next write probes again.
 *
 * So the event loop waits at most `slowMs` for each synchronous write that does not trip the
 * gate, and at most one throttled write per `cooldownMs` (the one that trips it). No `node:`
 * imports: the clock is `performance.now()` unless a test injects one.
 */

/** The bounds of a `SyncWriteGate`. */
export interface SyncWriteLimits {
  /** Largest write that may go synchronously, in bytes. */
  readonly maxBytes: number;
  /** A synchronous write that took longer than this (ms) shuts the gate. */
  readonly slowMs: number;
  /** How long the gate stays shut after a slow write (ms). */
  readonly cooldownMs: number;
  /** Milliseconds from any fixed origin, non-decreasing. */
  readonly now: () => number;
}

/**
 * 1 MiB: a large group commit or a recovery chunk, a copy well under a millisecond. 5 ms: above
 * what a copy of that size takes on a loaded machine, below a throttle pause (one jiffy and up).
 * 1 s: a throttled device costs the event loop at most one slow write a second.
 */
export const DEFAULT_SYNC_WRITE_LIMITS: SyncWriteLimits = {
  maxBytes: 1024 * 1024,
  slowMs: 5,
  cooldownMs: 1000,
  now: () => performance.now(),
};

/** Decides, write by write, whether a write may block the event loop (see the file header). */
export class SyncWriteGate {
  readonly #limits: SyncWriteLimits;
  /** The clock's reading before which every write goes through the thread pool. */
  #shutUntil = -Infinity;

  constructor(limits: SyncWriteLimits = DEFAULT_SYNC_WRITE_LIMITS) {
    this.#limits = limits;
  }

  /** The clock's reading to pass to `ran()` if a write of `bytes` may go synchronously now, else undefined. */
  start(bytes: number): number | undefined {
    if (bytes > this.#limits.maxBytes) return undefined;
    const now = this.#limits.now();
    return now >= this.#shutUntil ? now : undefined;
  }

  /** A synchronous write that began at `startedAt` has ended (written or failed). */
  ran(startedAt: number): void {
    const now = this.#limits.now();
    if (now - startedAt > this.#limits.slowMs) this.#shutUntil = now + this.#limits.cooldownMs;
  }

  /** Whether writes go through the thread pool now because a recent one was slow. */
  get shut(): boolean {
    return this.#limits.now() < this.#shutUntil;
  }
}
