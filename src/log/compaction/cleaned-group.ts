/*
 * One group of a cleaning: its segments rewritten into `<base>.log.cleaned` (cleaned-segment.ts)
 * and, if the rewrite dropped anything, swapped in (swap.ts); otherwise the `.cleaned` files are
 * removed and the segments kept as they are. The write touches only the group's own `.cleaned`
 * files (a background cleaning runs it outside the log's queue); the swap runs in the queue.
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import { keepsLogOpen, type LogState } from "../state/log-state.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { removeIfThere } from "../state/segment-files.js";
import { type CleanerSource, writeCleaned } from "./cleaned-segment.js";
import { CLEANED_SUFFIX, type CleaningRules } from "./cleaning-rules.js";
import { swapIn } from "./swap.js";

/** What one group's rewrite did; `toSwap`: its `.cleaned` files are there, durable, to be swapped in. */
interface WrittenGroup {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly recordsBefore: number;
  readonly recordsAfter: number;
  readonly tombstonesRemoved: number;
  readonly toSwap: boolean;
}

/**
 * Cleans one group (the first at `base`) into `<base>.log.cleaned`, durable; if it dropped
 * nothing, removes it again. Damage found while reading removes the partial files and is
 * `PAGELOG_CORRUPT` that leaves the log open.
 */
export async function writeCleanedGroup(
  s: LogState,
  base: number,
  sources: readonly CleanerSource[],
  rules: CleaningRules,
  cleanEnd: number,
  pause: () => Promise<void>,
): Promise<WrittenGroup> {
  let written;
  try {
    written = await writeCleaned(s, base, sources, rules, cleanEnd, pause);
  } catch (err) {
    // Nothing was swapped: the partial `.cleaned` files go.
    await removeCleaned(s, base).catch(() => undefined);
    throw isPagelogError(err, ErrorCode.CORRUPT) ? keepsLogOpen(err) : err;
  }
  const before = sources.reduce((sum, source) => sum + source.size, 0);
  const result = { ...written.stats, bytesBefore: before, bytesAfter: written.size };
  if (written.stats.recordsAfter === written.stats.recordsBefore && written.size === before) {
    await removeCleaned(s, base); // nothing to reclaim: keep the segments as they are
    return { ...result, toSwap: false };
  }
  return { ...result, toSwap: true };
}

/** Swaps a written group's `.cleaned` files in for `group` (in the log's queue). */
export async function swapGroup(s: LogState, group: readonly SegmentSlot[], written: WrittenGroup): Promise<void> {
  if (written.toSwap) await swapIn(s, group, written.bytesAfter);
}

/** Removes the `.cleaned` files of the group at `base`, whichever are there. */
export async function removeCleaned(s: LogState, base: number): Promise<void> {
  for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
    await removeIfThere(s.host.storage, segmentFilePath(s.name, base, suffix) + CLEANED_SUFFIX);
}
