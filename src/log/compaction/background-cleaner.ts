/*
 * Background cleaning (Kafka's cleaner thread, for one log): after any call that may have made
 * more of the log cleanable (a roll, a flush that moved the recovery point past a closed
 * segment, a truncation, retention, the open itself) the log looks whether a cleaning is due
 * (cleaning-due.ts) and, if so, cleans in steps (cleaning-pass.ts), one step per turn of the
 * log's queue. Appends and reads queued meanwhile run between two steps, so one waits for at most
 * one step: one segment scanned into the offset map, or one group of at most `segmentBytes`
 * rewritten and swapped in.
 *
 * Before each step the pass checks that the log is as it left it (open, never truncated since,
 * its segments and the clean point in place); otherwise it is abandoned, which is safe at any
 * step boundary (no `.cleaned` file outlives a step, and the clean point only ever covers groups
 * already cleaned). An explicit `compact()` takes over: it ends the pass in progress and cleans
 * everything in its own turn.
 *
 * Errors: a storage failure fails the log as any write's does (the step runs under `guard`). Any
 * other error (a damaged segment found by the cleaner, a clock that throws) leaves the log open,
 * is kept in `Log.cleaningError` and stops background cleaning until a `compact()` succeeds.
 */
import { guard, type LogState } from "../state/log-state.js";
import { MAX_TIMER_MS, systemClock } from "../options/log-options.js";
import { compacts } from "../options/cleanup-policy.js";
import { compactNow } from "./cleaner.js";
import { cleaningDue } from "./cleaning-due.js";
import { type CleaningPass, endPass, passStillValid, startPass, stepPass } from "./cleaning-pass.js";
import type { CompactionResult } from "./compaction-result.js";

type Queue = <T>(task: () => Promise<T>) => Promise<T>;

const cleaners = new WeakMap<object, BackgroundCleaner>();

/** The background cleaner of a `Log` (for tests and the bench: when it is idle, what it did). */
export function backgroundCleanerOf(log: object): BackgroundCleaner | undefined {
  return cleaners.get(log);
}

export class BackgroundCleaner {
  readonly #s: LogState;
  readonly #queue: Queue;
  /** What the log looked like at the last look (see `signature`): unchanged, no need to look again. */
  #seen: string | undefined;
  /** A turn is queued or running. */
  #busy = false;
  #pass: CleaningPass | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idle: Array<() => void> = [];
  /** Set by an error that left the log open: no background cleaning until a compact() succeeds. */
  #stopped = false;
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

  /** Called after each task of the log's queue (and at open): looks again if the log changed. */
  readonly poke = (): void => {
    const s = this.#s;
    if (this.#busy || this.#stopped || s.status !== "open" || s.readOnly !== undefined) return;
    if (!compacts(s.options.cleanupPolicy) || !s.options.backgroundCleaning || signature(s) === this.#seen) return;
    this.#busy = true;
    void this.#queue(() => this.#turn());
  };

  /** Looks again even if the log did not change: time alone may have made a cleaning due. */
  readonly recheck = (): void => {
    this.#seen = undefined;
    this.poke();
  };

  /** Resolves once no background turn is queued or running. */
  idle(): Promise<void> {
    return this.#busy ? new Promise((resolve) => this.#idle.push(resolve)) : Promise.resolve();
  }

  /** `Log.compact()` (in the log's queue): ends a pass in progress, cleans now, restarts background cleaning. */
  async compact(): Promise<CompactionResult> {
    this.#drop();
    const result = await compactNow(this.#s);
    this.error = undefined;
    this.#stopped = false;
    return result;
  }

  /** At close: no more turns, no timer. */
  stop(): void {
    this.#drop();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** One turn in the log's queue; never rejects. */
  async #turn(): Promise<void> {
    let more = false;
    try {
      more = await this.#step();
    } catch (err) {
      this.error = err;
      this.#stopped = true;
    }
    if (more && this.#s.status === "open") {
      void this.#queue(() => this.#turn());
      return;
    }
    this.#drop();
    this.#busy = false;
    // A pass that ended part way (the map filled, or abandoned) changed the log: look again.
    this.poke();
    if (!this.#busy) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Looks (and starts a pass if due), or runs the pass's next step; true while there are more. */
  async #step(): Promise<boolean> {
    const s = this.#s;
    if (s.status !== "open") return false;
    const pass = this.#pass;
    if (pass === undefined) {
      this.#seen = signature(s);
      const now = s.options.clock.now();
      const due = await guard(s, () => cleaningDue(s, now));
      this.#arm(due.recheckAt, now);
      if (!due.due) return false;
      this.#pass = await guard(s, () => startPass(s, now));
      return this.#pass !== undefined;
    }
    if (!passStillValid(s, pass)) {
      this.abandoned++;
      return false;
    }
    const more = await guard(s, () => stepPass(s, pass));
    if (!more) {
      this.passes++;
      this.last = pass.totals;
    }
    return more;
  }

  #drop(): void {
    if (this.#pass !== undefined) endPass(this.#s, this.#pass);
    this.#pass = undefined;
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
