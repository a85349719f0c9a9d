/*
 * The log cleaner, as Kafka's LogCleaner cleans one log (Cleaner.clean): find the cleanable
 * range (cleanable.ts), build the key → latest offset map over its dirty part (bounded:
 * offset-map.ts), then rewrite the segments from the start of the log to the end of what the map
 * covers, grouped into segments of at most `segmentBytes`, each group swapped in by the
 * crash-safe protocol of swap.ts. The steps are cleaning-pass.ts's; `compact()` runs them all in
 * one turn of the log's queue, the background cleaner (background-cleaner.ts) beside the log's
 * calls, taking the queue only for reads of the sources and the swaps.
 */
import { guard, type LogState } from "../state/log-state.js";
import { discardWritten, endPass, type PassHooks, runPass, startPass } from "./cleaning-pass.js";
import { nothingCleanable } from "./cleanable.js";
import { type CompactionResult, nothingCleaned } from "./compaction-result.js";

export type { CompactionResult, NothingCleanedReason } from "./compaction-result.js";

/** `Log.compact()` in the log's queue: the clock, then the cleaning under `guard` (a storage error fails the log). */
export async function compactNow(s: LogState): Promise<CompactionResult> {
  const now = s.options.clock.now();
  return guard(s, () => compactLog(s, now));
}

/** Cleans the log now, every step in this turn (inside its queue, under `guard`). `now` is the clock's wall time. */
async function compactLog(s: LogState, now: number): Promise<CompactionResult> {
  const pass = await startPass(s, now);
  if (pass === undefined) return nothingCleaned(s.offsetGaps.below, await nothingCleanable(s, now));
  try {
    await runPass(s, pass, IN_THIS_TURN);
  } catch (err) {
    await discardWritten(s, pass).catch(() => undefined); // (the next open removes them otherwise)
    throw err;
  } finally {
    endPass(s, pass);
  }
  return pass.totals;
}

/** `compact()` already has the log to itself: every step runs in its turn, with no pause. */
const IN_THIS_TURN: PassHooks = {
  inQueue: (task) => task(),
  pause: () => Promise.resolve(),
};
