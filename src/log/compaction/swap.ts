/*
 * Swapping a cleaned segment in for the group of segments it replaces, as Kafka's cleaner does
 * (LocalLog.replaceSegments: `.cleaned` → `.swap`, old segments out, `.swap` → in place), with
 * every step durable before the next one depends on it. The loader finishes this protocol after
 * a crash (complete-swaps.ts): the `.log.swap` name is the commit point.
 *
 *   1. `<base>.{log,index,timeindex}.cleaned` written and fsynced (cleaned-segment.ts).
 *   2. Each renamed to `.swap`, the indexes first and the `.log` last, then the directory
 *      fsynced: from here on the cleaning is complete on disk, and a crash finishes it.
 *   3. The replaced segments' files removed, newest first (a crash leaves the swap and a prefix
 *      of them, which the loader removes by the swap's offset range), and the first segment's
 *      indexes (its `.log` is replaced by the rename in 4).
 *   4. `<base>.log.swap` renamed over `<base>.log` (atomic), then the index `.swap`s into place,
 *      then the directory fsynced: the swap's names are final before the log reads through them.
 */
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import type { LogState } from "../state/log-state.js";
import { spliceSegments } from "../state/segment-list.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { idleSlot } from "../state/idle-slot.js";
import { deleteSegments, removeIfThere } from "../state/segment-files.js";
import { CLEANED_SUFFIX } from "./cleaning-rules.js";

/** Kafka's suffix of a cleaned segment that is complete and being swapped in. */
export const SWAP_SUFFIX = ".swap";

/** Steps 2 to 4 for `group` (consecutive slots of `s.segments`), whose cleaned `.log` has `size` bytes. */
export async function swapIn(s: LogState, group: readonly SegmentSlot[], size: number): Promise<void> {
  const storage = s.host.storage;
  const base = group[0]!.baseOffset;
  const end = group[group.length - 1]!.nextOffset;
  const path = (suffix: string): string => segmentFilePath(s.name, base, suffix);
  // 2. Indexes first: a `.log.swap` (the commit point) always has its indexes beside it.
  for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX, LOG_SUFFIX])
    await storage.rename(path(suffix) + CLEANED_SUFFIX, path(suffix) + SWAP_SUFFIX);
  // The swap must be durable before any replaced segment goes: otherwise a crash could keep the
  // deletions and lose the renames, and the records would be in neither.
  await storage.syncDir(s.name);
  // 3. The replaced segments go (their pending index writes with them: they are replaced).
  for (const slot of group) if (slot.segment !== undefined) s.dirtySegments.delete(slot.segment);
  await deleteSegments(storage, s.name, group.slice(1));
  await group[0]!.close();
  await removeIfThere(storage, path(INDEX_SUFFIX));
  await removeIfThere(storage, path(TIME_INDEX_SUFFIX));
  // 4. The `.log` first: an index `.swap` left without its `.log.swap` is removed at open and the
  // indexes rebuilt from the cleaned log, never paired with the old one.
  await storage.rename(path(LOG_SUFFIX) + SWAP_SUFFIX, path(LOG_SUFFIX));
  await storage.rename(path(INDEX_SUFFIX) + SWAP_SUFFIX, path(INDEX_SUFFIX));
  await storage.rename(path(TIME_INDEX_SUFFIX) + SWAP_SUFFIX, path(TIME_INDEX_SUFFIX));
  // Durable before the log goes on: the next cleaning (or a truncation) builds on these names.
  await storage.syncDir(s.name);
  const at = s.segments.indexOf(group[0]!);
  spliceSegments(s, at, group.length, idleSlot(s.slotContext, base, end, size));
}
