/*
 * `Log.offsetForTimestamp`: which segment holds the answer (the timestamp tree of
 * timestamp-tree.ts), then the segment's own lookup. A part loaded on first use
 * (door-time-lookup.ts): a page that never looks an offset up by time never loads it.
 */
import { decodeBatch } from "../../format/checked/batch-functions.js";
import type { LogState } from "../state/log-state.js";
import { TimestampTree } from "../state/timestamp-tree.js";
import { batchSize } from "../options/log-arguments.js";
import { DEFAULT_READ_BYTES, firstAboveStart, touch } from "./log-read.js";

/** The first offset at or above the start whose timestamp is at or after `timestamp`, or null. */
export async function findOffsetForTimestamp(s: LogState, timestamp: number): Promise<number | null> {
  for (let index = firstAboveStart(s); ; index++) {
    // Which segment holds the answer is told by each one's largest timestamp: the tree skips to
    // the first that may hold it (an idle one may: it learns its largest on its first use, so a
    // first lookup loads the segments it passes, oldest first, and the next skip them).
    const tree = TimestampTree.of(s);
    if (index < tree.size) index = tree.firstAtLeast(index, timestamp);
    const slot = s.segments[index];
    if (slot === undefined) break;
    if (slot.nextOffset <= s.startOffset) continue;
    const segment = slot.segment ?? (await slot.load());
    if (index < tree.size) tree.learn(index, segment.maxTimestamp);
    if (segment.maxTimestamp < timestamp) continue;
    const found = await segment.offsetForTimestamp(timestamp);
    touch(s, segment);
    if (found === null) continue;
    if (found >= s.startOffset) return found;
    // The answer lies below the start offset: look again among the records from the start.
    let at = s.startOffset;
    while (at < segment.nextOffset) {
      const read = await segment.read(at, DEFAULT_READ_BYTES);
      if (read === null) break;
      for (let p = 0; p < read.bytes.length; p += batchSize(read.bytes, p)) {
        const batch = await decodeBatch(read.bytes.subarray(p, p + batchSize(read.bytes, p)), { verifyCrc: false });
        const hit = batch.records.find((r) => r.offset >= s.startOffset && r.timestamp >= timestamp);
        if (hit !== undefined) return hit.offset;
      }
      at = read.lastOffset + 1;
    }
  }
  return null;
}
