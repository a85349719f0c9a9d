/*
 * When the background cleaner cleans, as Kafka's LogCleanerManager picks a log: the dirty ratio
 * (bytes of the segments holding records past the clean point, over the bytes of the whole
 * cleanable range) has reached `minCleanableDirtyRatio`, or a dirty segment's oldest record has
 * waited `maxCompactionLagMs`. Never anything younger than `minCompactionLagMs`: the cleanable
 * range already stops before it (cleanable.ts).
 */
import { readBatchHeader } from "../../format/index.js";
import type { LogState } from "../state/log-state.js";
import { cleanableRange, loaded } from "./cleanable.js";

interface CleaningDue {
  /** Clean now. */
  readonly due: boolean;
  /** The dirty ratio of the cleanable range (0 when nothing is cleanable). */
  readonly dirtyRatio: number;
  /**
   * Not due: the wall time at which waiting alone makes it due (a dirty segment's
   * `maxCompactionLagMs` runs out, or a segment becomes old enough for `minCompactionLagMs`).
   */
  readonly recheckAt: number | undefined;
}

/** Decides at wall time `now`. Reads sizes (a stat per idle segment, once) and, with `maxCompactionLagMs`, first batches. */
export async function cleaningDue(s: LogState, now: number): Promise<CleaningDue> {
  const recheckAt = await minLagRecheck(s, now);
  const range = await cleanableRange(s, now);
  if (range === undefined) return { due: false, dirtyRatio: 0, recheckAt };
  let clean = 0;
  let dirty = 0;
  const dirtySlots = [];
  for (const slot of s.segments.slice(0, range.count)) {
    const size = await slot.size();
    if (slot.nextOffset <= range.dirtyFrom) clean += size;
    else {
      dirty += size;
      dirtySlots.push(slot);
    }
  }
  const dirtyRatio = clean + dirty === 0 ? 0 : dirty / (clean + dirty);
  if (dirtyRatio >= s.options.minCleanableDirtyRatio) return { due: true, dirtyRatio, recheckAt: undefined };
  const maxLag = s.options.maxCompactionLagMs;
  let earliest = recheckAt;
  if (maxLag !== -1) {
    for (const slot of dirtySlots) {
      // Kafka's getFirstBatchTimestampForSegments: the oldest dirty record's batch.
      const read = await (await loaded(slot)).read(Math.max(slot.baseOffset, range.dirtyFrom), 1);
      if (read === null) continue;
      const dueAt = readBatchHeader(read.bytes).baseTimestamp + maxLag;
      if (dueAt <= now) return { due: true, dirtyRatio, recheckAt: undefined };
      earliest = Math.min(earliest ?? dueAt, dueAt);
    }
  }
  return { due: false, dirtyRatio, recheckAt: earliest };
}

/** With `minCompactionLagMs`: when the first durable closed segment too young to clean becomes old enough. */
async function minLagRecheck(s: LogState, now: number): Promise<number | undefined> {
  const lag = s.options.minCompactionLagMs;
  if (lag === 0) return undefined;
  for (const slot of s.segments.slice(0, -1)) {
    if (slot.nextOffset > s.recoveryPoint) return undefined;
    const newest = (await loaded(slot)).maxTimestamp;
    if (newest > now - lag) return newest + lag;
  }
  return undefined;
}
