/**
 * fsyncing a segment's three files in the order that keeps an index entry from outliving its
 * batch. Its own file because recovery (segment-load.ts) flushes and a truncation
 * (segment-write.ts) reuses recovery's tail scan: both import this, neither imports the other back.
 */
import type { SegmentState } from "./segment-state.js";

/**
 * fsync the log and (unless `indexes: false`) both indexes. A file not written since its last
 * sync is skipped; `force` syncs all three, for recovery.
 */
export async function flushSegment(
  s: SegmentState,
  { force = false, indexes = true }: { force?: boolean; indexes?: boolean } = {},
): Promise<void> {
  // The log first: an index entry must never be durable while the batch it points at is not
  // (the sanity check would catch it, but there is no reason to make it work).
  if (s.logUnsynced || force) {
    await s.log.sync();
    s.logUnsynced = false;
  }
  if (!indexes && !force) return;
  await s.offsetIndex.sync({ force });
  await s.timeIndex.sync({ force });
}
