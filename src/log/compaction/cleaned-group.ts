/*
 * One group of a cleaning: its segments rewritten into `<base>.log.cleaned` (cleaned-segment.ts)
 * and swapped in (swap.ts), or, if the rewrite dropped nothing, the `.cleaned` files removed and
 * the segments kept as they are.
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import { keepsLogOpen, type LogState } from "../state/log-state.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { removeIfThere } from "../state/segment-files.js";
import { loaded } from "./cleanable.js";
import { writeCleaned } from "./cleaned-segment.js";
import { CLEANED_SUFFIX, type CleaningRules } from "./cleaning-rules.js";
import { swapIn } from "./swap.js";

interface GroupDone {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly recordsBefore: number;
  readonly recordsAfter: number;
  readonly tombstonesRemoved: number;
  readonly swapped: boolean;
}

/** Cleans one group into `<base>.log.cleaned` and swaps it in (or, if it dropped nothing, removes it). */
export async function cleanGroup(
  s: LogState,
  group: readonly SegmentSlot[],
  rules: CleaningRules,
  cleanEnd: number,
): Promise<GroupDone> {
  const sources = [];
  for (const slot of group) sources.push(await loaded(slot));
  const base = group[0]!.baseOffset;
  let written;
  try {
    written = await writeCleaned(s, base, sources, rules, cleanEnd);
  } catch (err) {
    // Damage found while reading: nothing was swapped, the partial `.cleaned` files go.
    await removeCleaned(s, base);
    throw isPagelogError(err, ErrorCode.CORRUPT) ? keepsLogOpen(err) : err;
  }
  const before = sources.reduce((sum, seg) => sum + seg.size, 0);
  const result = { ...written.stats, bytesBefore: before, bytesAfter: written.size };
  if (written.stats.recordsAfter === written.stats.recordsBefore && written.size === before) {
    await removeCleaned(s, base); // nothing to reclaim: keep the segments as they are
    return { ...result, swapped: false };
  }
  await swapIn(s, group, written.size);
  return { ...result, swapped: true };
}

async function removeCleaned(s: LogState, base: number): Promise<void> {
  for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
    await removeIfThere(s.host.storage, segmentFilePath(s.name, base, suffix) + CLEANED_SUFFIX);
}
