/*
 * Background cleaning (Kafka's cleaner thread, for one log): after any call that may have made
 * more of the log cleanable (a roll, a flush that moved the recovery point past a closed
 * segment, a truncation, retention, the open itself) the log looks whether a cleaning is due
 * (cleaning-due.ts) in a turn of its queue and, if so, runs the cleaning (cleaning-pass.ts)
 * beside the log's calls, as Kafka's cleaner copies outside the log's lock: only the reads of
 * the source segments (256 KiB each), the grouping and each group's swap take a turn of the
 * queue, and each such turn first checks that the log is as the pass left it (open, never
 * truncated since, its segments and the clean point in place). Otherwise the pass is abandoned:
 * the `.cleaned` files it wrote and did not swap are removed, and the clean point only ever
 * covers groups already cleaned. An append waits for at most one such turn (a read, or a swap:
 * renames and directory syncs), never for a group's rewrite.
 *
 * An explicit `compact()` (in its own turn) and `close()` stop the pass first: they wait for the
 * pass to leave its files as an abandoned pass does, which never needs the queue they hold.
 *
 * Errors: a storage failure fails the log as any write's does (`guard`). Any other error (a
 * damaged segment found by the cleaner, a clock that throws) leaves the log open, is kept in
 * `Log.cleaningError` and stops background cleaning until a `compact()` succeeds.
 */
import { guard, type LogState } from "../state/log-state.js";
import { systemClock } from "../options/log-clock.js";
import { MAX_TIMER_MS } from "../options/log-option-resolvers.js";
import { compacts } from "../options/cleanup-policy.js";
import { compactNow } from "./cleaner.js";
import { cleaningDue } from "./cleaning-due.js";
import {
  type CleaningPass,
  discardWritten,
  endPass,
  PassAbandoned,
  type PassHooks,
  passStillValid,
  runPass,
  startPass,
} from "./cleaning-pass.js";
import type { CompactionResult } from "./compaction-result.js";
import { refuseKeyless } from "./keys.js";

type Queue = <T>(task: () => Promise<T>) => Promise<T>;

const cleaners = new WeakMap<object, BackgroundCleaner>();

/** The background cleaner of a `Log` (for tests and the bench: when it is idle, what it did). */
export function backgroundCleanerOf(log: object): BackgroundCleaner | undefined {
  return cleaners.get(log);
}

/** A pass running beside the log's calls. */
interface Running {
  readonly pass: CleaningPass;
  /** Set by `compact()` or `close()`: the pass ends at its next turn, or at once if it waits for one. */
  stopped: boolean;
  /** While the pass waits for a turn of the queue: ends the wait with `PassAbandoned`. */
  wake: (() => void) | undefined;
  /** Settles once the pass ended and left no file behind. */
  done: Promise<void>;
}

export class BackgroundCleaner {
  readonly #s: LogState;
  readonly #queue: Queue;
  /** What the log looked like at the last look (see `signature`): unchanged, no need to look again. */
  #seen: string | undefined;
  /** A look is queued or running, or a pass is running. */
  #busy = false;
  #running: Running | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idle: Array<() => void> = [];
  /** Set by an error that left the log open: no background cleaning until a compact() succeeds. */
  #stopped = false;
  /** Set at close: no more looks. */
  #closed = false;
  /** The error that stopped background cleaning, if any (`Log.cleaningError`). */
  error: unknown = undefined;
  /** Passes finished, passes abandoned, and the report of the last one finished. */
  passes = 0;
  abandoned = 0;
  last: CompactionResult | undefined;

  /** `queue` runs a task in the log's queue (without closing its open append group). */
  constructor(owner: object, s: LogState, queue: Queue) {
    this.#s = s;
    this.#queue = queue;
    cleaners.set(owner, this);
  }

  /** `Log.append()`, before anything is queued: a TypeError naming the first record without a key (keys.ts). */
  readonly refuseKeyless = refuseKeyless;

  /** Called after each task of the log's queue (and at open): looks again if the log changed. */
  readonly poke = (): void => {
    const s = this.#s;
    if (this.#busy || this.#stopped || this.#closed || s.status !== "open" || s.readOnly !== undefined) return;
    if (!compacts(s.options.cleanupPolicy) || !s.options.backgroundCleaning || signature(s) === this.#seen) return;
    this.#busy = true;
    void this.#queue(() => this.#look());
  };

  /** Looks again even if the log did not change: time alone may have made a cleaning due. */
  readonly recheck = (): void => {
    this.#seen = undefined;
    this.poke();
  };

  /** Resolves once no look is queued or running and no pass is running. */
  idle(): Promise<void> {
    return this.#busy ? new Promise((resolve) => this.#idle.push(resolve)) : Promise.resolve();
  }

  /** `Log.compact()` (in the log's queue): stops a pass in progress, cleans now, restarts background cleaning. */
  async compact(): Promise<CompactionResult> {
    await this.#stopPass();
    const result = await compactNow(this.#s);
    this.error = undefined;
    this.#stopped = false;
    return result;
  }

  /** At close (in the log's queue): no more looks, no timer; a pass in progress ends, leaving no file. */
  async stop(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#stopPass();
  }

  /** One look in the log's queue (starting a pass if one is due); never rejects. */
  async #look(): Promise<void> {
    const s = this.#s;
    try {
      if (s.status === "open" && !this.#closed) {
        this.#seen = signature(s);
        const now = s.options.clock.now();
        const due = await guard(s, () => cleaningDue(s, now));
        this.#arm(due.recheckAt, now);
        const pass = due.due ? await guard(s, () => startPass(s, now)) : undefined;
        if (pass !== undefined) {
          this.#start(pass);
          return; // busy until the pass ends
        }
      }
    } catch (err) {
      this.error = err;
      this.#stopped = true;
    }
    this.#settled();
  }

  /** Runs `pass` beside the log's calls (not awaited by the look's turn). */
  #start(pass: CleaningPass): void {
    const running: Running = { pass, stopped: false, wake: undefined, done: Promise.resolve() };
    const hooks: PassHooks = {
      inQueue: (task) => this.#inQueue(running, task),
      pause: () => this.#inQueue(running, () => Promise.resolve()),
    };
    this.#running = running;
    running.done = this.#run(running, hooks);
  }

  async #run(running: Running, hooks: PassHooks): Promise<void> {
    const s = this.#s;
    const { pass } = running;
    try {
      await runPass(s, pass, hooks);
      this.passes++;
      this.last = pass.totals;
    } catch (err) {
      // Its own `.cleaned` files only: no one else writes them while this pass is running (a
      // compact() or close() that stops it waits for this).
      await discardWritten(s, pass).catch(() => undefined);
      if (err instanceof PassAbandoned || running.stopped) this.abandoned++;
      else this.#report(err);
    } finally {
      endPass(s, pass);
      if (this.#running === running) this.#running = undefined;
    }
    this.#settled();
  }

  /**
   * Runs `task` in the log's queue if the pass still holds, else rejects with `PassAbandoned`.
   * A `stop` while the task waits for its turn rejects at once: the stopper holds the queue.
   */
  #inQueue<T>(running: Running, task: () => Promise<T>): Promise<T> {
    if (running.stopped) return Promise.reject(new PassAbandoned());
    return new Promise<T>((resolve, reject) => {
      running.wake = () => reject(new PassAbandoned());
      this.#queue(async () => {
        if (running.stopped) return; // (the wait was ended already)
        running.wake = undefined;
        if (!passStillValid(this.#s, running.pass)) throw new PassAbandoned();
        // In the queue, as every write: a storage error fails the log.
        return guard(this.#s, task);
      }).then(resolve as (value: T | undefined) => void, reject);
    });
  }

  /** Stops the running pass, if any, and waits until it left no file behind (called in the log's queue). */
  async #stopPass(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    running.stopped = true;
    running.wake?.();
    running.wake = undefined;
    await running.done;
  }

  /** A storage error fails the log (as in the queue); any other error stops background cleaning. */
  #report(err: unknown): void {
    guard(this.#s, () => Promise.reject(err)).catch(() => undefined);
    this.error = err;
    this.#stopped = true;
  }

  /** Nothing queued or running any more: looks again if the log changed, else tells who waits. */
  #settled(): void {
    this.#busy = false;
    // A pass that ended part way (the map filled, or abandoned) changed the log: look again.
    this.poke();
    if (!this.#busy) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * A timer for the lag rules, at the wall time waiting alone makes a cleaning due. Only on the
   * system clock, as the flush timer: with an injected clock the rules are checked at each look.
   */
  #arm(at: number | undefined, now: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (at === undefined || this.#s.options.clock !== systemClock) return;
    const timer = setTimeout(
      () => {
        if (this.#timer !== timer) return;
        this.#timer = undefined;
        this.#seen = undefined; // time alone changed what is due
        this.poke();
      },
      Math.min(MAX_TIMER_MS, Math.max(1, at - now)),
    );
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }
}

/**
 * What decides whether a cleaning may have become due: the segments, whether every closed one is
 * durable (else how far the recovery point got), the clean point and the start.
 */
function signature(s: LogState): string {
  const active = s.segments[s.segments.length - 1]!;
  const durable = s.recoveryPoint >= active.baseOffset ? "all" : String(s.recoveryPoint);
  return `${s.segments.length}|${active.baseOffset}|${durable}|${s.offsetGaps.below}|${s.segments[0]!.baseOffset}`;
}
