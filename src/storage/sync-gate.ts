/*
 * When `FsStorage` may issue a file call synchronously (`writeSync`, `readSync`, `openSync`,
 * `fstatSync`…) instead of through libuv's thread pool. A write into the page cache, or a read
 * or a stat it already holds, is a memory copy: microseconds, where a thread-pool round trip costs
 * 25–90 µs and a wake-up of the event loop. But a synchronous call blocks the event loop for as
 * long as the kernel makes it wait: under dirty-page throttling (balance_dirty_pages) a write
 * waits tens to hundreds of milliseconds, and a read the page cache does not hold waits for the
 * device (milliseconds on a disk, seconds for a large read from a slow or throttled one). A call
 * cannot be timed before it runs, so the gate bounds what one call can cost, and learns from each:
 *
 * - no synchronous call moves more than `maxBytes` (`FsFile` reads and writes a larger request in
 *   parts of at most that), so one call to a cold device costs at most `maxBytes` at the device's
 *   speed: 16 ms for 32 KiB at 2 MB/s, where a 1 MiB call took half a second;
 * - every synchronous call is timed against what its size predicts for a page-cache hit:
 *   `graceMs` plus its bytes at `minBytesPerMs` (a call that moves no bytes, an open or a stat:
 *   `slowMs`). One that took longer waited for the device: it shuts the gate, and every call goes
 *   through the thread pool, as it always did, for `cooldownMs`; then the next call probes again;
 * - the slow call also measured the device: until calls are fast again, a synchronous call moves
 *   at most what that speed moves in `graceMs` (never under a page), so a probe of a device that
 *   is still slow costs about `graceMs`, not `maxBytes` at its speed; each fast call doubles that
 *   back towards `maxBytes`;
 * - a slow call that began within one cooldown of the gate reopening (the slowness lasts:
 *   throttling, a cold device) doubles the cooldown, up to `maxCooldownMs`; a slow call after
 *   that starts again from `cooldownMs` (a one-off: the thread was descheduled on a busy machine,
 *   a page fault). It is when the call began that counts: a call longer than the cooldown itself
 *   (a slow device) ends after the next cooldown would have ended, and is lasting all the same.
 *
 * - a busy machine is not a slow device: a call that took long because the thread was
 *   descheduled (a 2-core machine at load 12 does it to one call in several hundred, for 5 to
 *   100 ms) waited for a CPU, not for the device, and the thread pool is then the slower way by
 *   far (each round trip waits for two threads to be scheduled: milliseconds a call where a
 *   synchronous one takes microseconds). Where the limits can tell (`cpuWaitMs`: on Linux the
 *   calling thread's run-queue wait, from /proc/thread-self/schedstat), a slow call whose
 *   excess over what it was allowed is covered by the time the thread waited for a CPU leaves
 *   the gate as it was. A thread waiting for a device sleeps, which is not run-queue time,
 *   whatever the file system (a disk, NFS, FUSE), so such a call still shuts the gate. The
 *   counter costs a system call (a tenth of a lookup's time if read around every call), so the
 *   gate reads it only while it is watchful (for `watchMs` after a slow call), and then at the
 *   start of each turn and every `SAMPLE_EVERY` calls: a window of a few calls, whose earlier
 *   waits for a CPU count too. So a call excused by a window may have waited for the device (on
 *   a machine at load 16 the waits after the calls before it covered a 2 ms device wait about
 *   half the time): for the next `EXACT_CALLS` calls after it, and after every shut, the gate
 *   reads the counter around each call, and only the call's own wait may excuse it. The
 *   device's next slow call then shuts the gate; a busy machine's are excused again. The first
 *   slow call after a quiet spell shuts the gate as ever; without the counter (not Linux) every
 *   one does.
 *
 * So under lasting slowness the event loop waits for one probe at 0, 0.1, 0.3, 0.7, 1.5, 3.1 s,
 * then one every 2 s, each of at most `maxBytes` (the first) or about `graceMs` of the device's
 * time (the later ones). An `FsStorage` keeps two gates: one for writes and one for reads and
 * metadata calls, since a throttled writeback says nothing about whether reads hit the cache,
 * and a cold disk nothing about dirty pages.
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
  /** Largest single synchronous call (bytes read or written); a larger request goes in parts. */
  readonly maxBytes: number;
  /** A synchronous call that moves no bytes (open, stat, close) and took longer than this (ms) shuts the gate. */
  readonly slowMs: number;
  /** A call that moves bytes may take this long (ms) beyond its bytes at `minBytesPerMs` before it shuts the gate. */
  readonly graceMs: number;
  /** The slowest a page-cache copy runs (bytes per ms): a call slower than this, past `graceMs`, waited for the device. */
  readonly minBytesPerMs: number;
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
  /**
   * How long (ms, from any fixed origin, non-decreasing) the calling thread has waited for a CPU
   * while runnable, if the platform tells (else undefined: a descheduled call is taken for a slow
   * device, as it always was). Read only while the gate is watchful.
   */
  readonly cpuWaitMs?: () => number | undefined;
  /** How long after a slow call the gate reads `cpuWaitMs` around calls (ms). */
  readonly watchMs?: number;
}

/**
 * 10 s: on a machine that stays busy, descheduled calls come every second or two, so it stays
 * watchful; a quiet one pays the counter's system call for 10 s after a one-off.
 */
const DEFAULT_WATCH_MS = 10_000;

/** While watchful, the counter is read again every this many synchronous calls (and each turn). */
const SAMPLE_EVERY = 8;

/** How many calls after a doubtful excuse, or a shut, are judged by their own wait alone. */
const EXACT_CALLS = 64;

/** The least a learned call size falls to: one page, the least a device reads or writes. */
const MIN_LEARNED_CALL_BYTES = 4096;

/** `setImmediate` where there is one (Node), else a zero timeout. */
function laterTurn(callback: () => void): void {
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate !== undefined) immediate(callback);
  else setTimeout(callback, 0);
}

/**
 * 32 KiB a call: a 1 MiB read or write from the page cache costs the same in parts of 32 KiB as in
 * one call (0.56–0.59 ms per MiB either way, median of 300, loaded 2-core machine), and a part
 * the device has to serve costs 16 ms at 2 MB/s (Linux's readahead may double it: 64 KiB for a
 * cold 32 KiB read). 1 ms + the bytes at 50 MB/s: a 32 KiB copy from or into the page cache takes
 * 10–30 µs, so 1.7 ms is 50 times that, and a device slower than about 20 MB/s trips it; a
 * one-off pause that long (a thread descheduled on a busy machine) costs one cooldown of
 * thread-pool calls. 10 ms for a call of no bytes: about the least pause dirty-page throttling
 * imposes. 100 ms: a one-off (a 2-core machine shared with others trips it every second or two)
 * costs a tenth of a second of thread-pool writes. 2 s: a throttled device holds the event loop
 * for one probe every 2 s. 10 ms a turn: a scan gives the event loop a turn about every 10 ms, for
 * one thread-pool round trip (30–90 µs) each time, under 1% of its speed.
 */
export const DEFAULT_SYNC_WRITE_LIMITS: SyncGateLimits = {
  maxBytes: 32 * 1024,
  slowMs: 10,
  graceMs: 1,
  minBytesPerMs: 50_000,
  cooldownMs: 100,
  maxCooldownMs: 2_000,
  turnBudgetMs: 10,
  now: () => performance.now(),
  nextTurn: laterTurn,
};

/**
 * Reads and metadata calls (open, stat, fstat, close): as for writes, but a call of no bytes is
 * slow at 5 ms. A stat or an open of a cached inode takes 10–20 µs; one that waits for a disk
 * seek (4–10 ms) met a cold device, which the next call will likely meet too, so it goes through
 * the thread pool.
 */
export const DEFAULT_SYNC_READ_LIMITS: SyncGateLimits = {
  ...DEFAULT_SYNC_WRITE_LIMITS,
  slowMs: 5,
};

/** Decides, call by call, whether a call may block the event loop, and how large (see the file header). */
export class SyncGate {
  readonly #limits: SyncGateLimits;
  /** The clock's reading before which every call goes through the thread pool. */
  #shutUntil = -Infinity;
  /** How long the gate shut for the last time. */
  #cooldown: number;
  /** When the first synchronous call of this event-loop turn began, or undefined before it. */
  #turnStartedAt: number | undefined;
  /** The largest call that may go synchronously: `maxBytes`, or what a slow call showed the device moves in `graceMs`. */
  #callBytes: number;
  /** Until when the gate reads the thread's CPU wait around calls (see the file header). */
  #watchUntil = -Infinity;
  /** The thread's CPU wait when the current window began; undefined outside a watchful spell. */
  #sample: number | undefined;
  /** Synchronous calls since `#sample` was read. */
  #sinceSample = 0;
  /** How many more calls get a window of their own (see `EXACT_CALLS`). */
  #exactCalls = 0;
  /** Whether the running call's window began with it (the counter was read at its start). */
  #windowIsCall = false;

  constructor(limits: SyncGateLimits = DEFAULT_SYNC_WRITE_LIMITS) {
    this.#limits = limits;
    this.#cooldown = limits.cooldownMs;
    this.#callBytes = limits.maxBytes;
  }

  /** The largest call that may go synchronously now (when the gate is open): a larger request goes in parts. */
  get callBytes(): number {
    return this.#callBytes;
  }

  /** The clock's reading to pass to `ran()` if a call of `bytes` may go synchronously now, else undefined. */
  start(bytes: number): number | undefined {
    if (bytes > this.#callBytes) return undefined;
    const now = this.#limits.now();
    if (now < this.#shutUntil) return undefined;
    const turnStarts = this.#turnStartedAt === undefined;
    if (turnStarts) this.#startTurn(now);
    else if (now - this.#turnStartedAt! > this.#limits.turnBudgetMs) return undefined;
    // (Calls are synchronous: none starts before the last one's `ran`.)
    this.#windowIsCall =
      now < this.#watchUntil && (turnStarts || this.#exactCalls > 0 || ++this.#sinceSample >= SAMPLE_EVERY);
    if (this.#windowIsCall) {
      this.#sample = this.#limits.cpuWaitMs?.();
      this.#sinceSample = 0;
    }
    return now;
  }

  /**
   * Whether a slow call that just ended, `excessMs` over what it was allowed, was only
   * descheduled: the thread waited for a CPU at least that long in its window (see the file
   * header). A new window starts.
   */
  #descheduled(startedAt: number, now: number, excessMs: number): boolean {
    // Begun outside a watchful spell, the call was not sampled: nothing to judge it by.
    const before = startedAt < this.#watchUntil ? this.#sample : undefined;
    this.#watchUntil = now + (this.#limits.watchMs ?? DEFAULT_WATCH_MS);
    this.#sample = this.#limits.cpuWaitMs?.();
    this.#sinceSample = 0;
    const excused = before !== undefined && this.#sample !== undefined && this.#sample - before >= excessMs;
    // A window of several calls may have excused a wait for the device: judge the next ones alone.
    // So are the calls after a shut (the probes of a device that may still be slow).
    if (!(excused && this.#windowIsCall)) this.#exactCalls = EXACT_CALLS;
    return excused;
  }

  /** Starts this turn's budget, and ends it on a later turn of the event loop. */
  #startTurn(now: number): void {
    this.#turnStartedAt = now;
    this.#limits.nextTurn(() => (this.#turnStartedAt = undefined));
  }

  /** A synchronous call of `bytes` that began at `startedAt` has ended (done or failed). */
  ran(startedAt: number, bytes = 0): void {
    if (this.#exactCalls > 0) this.#exactCalls--;
    const { now: clock, slowMs, graceMs, minBytesPerMs, cooldownMs, maxCooldownMs, maxBytes } = this.#limits;
    const now = clock();
    const took = now - startedAt;
    const allowed = bytes === 0 ? slowMs : graceMs + bytes / minBytesPerMs;
    if (took <= allowed) {
      // Fast at this size: the device (or the cache) keeps up, so let the next call be larger.
      this.#callBytes = Math.min(maxBytes, Math.max(this.#callBytes, 2 * bytes));
      return;
    }
    // It waited for a CPU, not for the device: nothing learned about the device.
    if (this.#descheduled(startedAt, now, took - allowed)) return;
    if (bytes > 0) {
      // What the device moved in graceMs at the speed just measured: a probe of that size costs
      // the event loop about graceMs if the device is still this slow.
      const learned = Math.floor((bytes * graceMs) / took);
      this.#callBytes = Math.min(maxBytes, Math.max(MIN_LEARNED_CALL_BYTES, learned));
    }
    // Slow again in a call begun soon after the gate reopened: the slowness lasts, so stay off it
    // longer. When the call began, not when it ended: a call longer than the cooldown ends after
    // the next reopening would have, and would otherwise look like a one-off every time.
    const lasting = startedAt - this.#shutUntil <= this.#cooldown;
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
    gate!.ran(startedAt, bytes);
  }
}
