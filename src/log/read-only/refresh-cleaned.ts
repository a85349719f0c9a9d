/*
 * What a read-only refresh (log-refresh.ts) does about the writer's log cleaner: a cleaning swaps
 * a cleaned segment in under the name of the first segment of its group and removes the others
 * (compaction/swap.ts), so segments go from the middle of the listing and a segment is replaced
 * under its own base-offset name (a new file). Storage offers no file identity, so the reader
 * tells a replaced file by its size (a cleaned segment that did not absorb others dropped at
 * least one record: it is smaller) and a grouping by the names gone after the first one.
 *
 * A cleaning keeps every offset's record or drops it, so what changed is reloaded from the
 * listing with no cut told to the iterators: one past a gap goes on from its position. A
 * truncation also removes segments (from the back) and rewrites one, but it moves records, so it
 * must stay a cut (log-refresh.ts). The two are told apart by the checkpoints: the cleaner writes
 * the clean point past a segment before it swaps it, a truncation checkpoints a lower recovery
 * point before it cuts and lowers the clean point after; so a change counts as a cleaning only if
 * it lies wholly below the clean point read before and after the listing, and the recovery point
 * was not lowered since the last refresh. (A truncation, refill and a new cleaning past it, all
 * between two refreshes, would pass as a cleaning: the same blind spot as a refilled truncation
 * that outgrew the reader's marks.)
 */
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import type { LogState } from "../state/log-state.js";
import type { CheckpointedValues, ReadOnlyState } from "../state/read-only-state.js";

/**
 * The end of what a cleaning changed among the segments the reader holds (`listed`: the bases
 * listed now), or undefined if nothing did (or the change may be a truncation's).
 */
export async function cleanedSince(
  s: LogState,
  ro: ReadOnlyState,
  listed: ReadonlySet<number>,
  before: CheckpointedValues,
): Promise<number | undefined> {
  const cleanPoint = before.cleanPoint;
  if (cleanPoint === undefined) return undefined;
  let end: number | undefined;
  // The leading run of segments gone is retention's (a group keeps its first segment's name).
  let front = true;
  // Sizes are compared only when the clean point moved: a cleaning at the same clean point
  // (tombstones past deleteRetentionMs) leaves a reader on the old files, whose records are
  // still the ones appended at those offsets, and only the last segment's marks notice it.
  const sizes = cleanPoint !== ro.cleanPointSeen;
  for (const slot of s.segments) {
    if (slot.baseOffset >= cleanPoint || slot.nextOffset > cleanPoint) break;
    if (!listed.has(slot.baseOffset)) {
      if (!front) end = slot.nextOffset;
      continue;
    }
    front = false;
    const known = slot.knownSize;
    if (!sizes || known === undefined) continue;
    const stat = await s.host.storage.stat(segmentFilePath(s.name, slot.baseOffset, LOG_SUFFIX));
    if (stat !== null && stat.size !== known) end = slot.nextOffset;
  }
  if (end === undefined) return undefined;
  return (await isCleaning(ro, end)) ? end : undefined;
}

/**
 * Whether bytes changed below `end` are a cleaning's, not a truncation's (see the file comment):
 * the clean point, read again now, still covers them and the recovery point did not go down.
 */
export async function isCleaning(ro: ReadOnlyState, end: number): Promise<boolean> {
  const after = await ro.readCheckpoints();
  return (after.cleanPoint ?? 0) >= end && (after.recoveryPoint ?? 0) >= ro.recoveryPointSeen;
}

/** After a refresh: what the next one compares with. */
export function noteCheckpoints(ro: ReadOnlyState, values: CheckpointedValues): void {
  ro.cleanPointSeen = values.cleanPoint;
  ro.recoveryPointSeen = Math.max(0, values.recoveryPoint ?? 0);
}
