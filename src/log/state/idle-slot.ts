/*
 * An idle segment's first use (segment-slot.ts): opened, sized and checked, with the checks a
 * clean open used to run on every segment (Segment.planLoadClean: the indexes' structure, the
 * tail after the last index entry, the last time-index entry), plus that its batches end exactly
 * where the next segment starts (or, wholly below the clean point, before it: `cleanedAway`).
 * Only the parts that make idle slots import it (the loader, the read-only mode, the cleaner's
 * swap: each a chunk of its own, which loads the segment's load with it), so a log whose segments
 * were all opened never loads it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { cleanedAway } from "../../segment/batch-scanner.js";
import { Segment } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import { closedLog, type IdleSpan, missingSegment, SegmentSlot, type SlotContext } from "./segment-slot.js";
import { removeIfThere } from "./segment-files.js";

/**
 * A segment not loaded yet, ending (by the listing) at `end`; `size` if already known; `orphans`:
 * index files with no `.log` inside its span, removed once a first use proves them garbage.
 */
export function idleSlot(
  context: SlotContext,
  baseOffset: number,
  end: number,
  size?: number,
  orphans?: readonly string[],
): SegmentSlot {
  return SegmentSlot.idle(firstUse, context, baseOffset, end, size, orphans);
}

/** Opens and checks the idle segment of `span`: its segment, or `PAGELOG_CORRUPT` naming the file with nothing written. */
async function firstUse(span: IdleSpan): Promise<Segment> {
  const { context, baseOffset, end } = span;
  const { storage, dir, segmentOptions } = context;
  const path = segmentFilePath(dir, baseOffset, LOG_SUFFIX);
  // Read-only: a segment the writer deleted since the last refresh went by its retention (or
  // deleteRecordsBefore): the offsets are below its start now, as a fetch there would say.
  if (context.readOnly === true && (await storage.stat(path)) === null) {
    throw new PagelogError(
      `segment ${path} is gone: its writer deleted it (retention or deleteRecordsBefore) since the log was last refreshed`,
      ErrorCode.OFFSET_OUT_OF_RANGE,
      { path },
    );
  }
  let segment: Segment;
  try {
    segment = context.readOnly
      ? await Segment.openReadOnly(storage, dir, baseOffset, segmentOptions)
      : await Segment.openExisting(storage, dir, baseOffset, segmentOptions);
  } catch (err) {
    throw err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND ? missingSegment(path) : err;
  }
  try {
    // Reads only, as a clean open did: a check that fails leaves every byte as it was.
    const { indexesRebuilt } = await segment.planLoadClean();
    if (segment.nextOffset !== end && !cleanedAway(segment.nextOffset, end, segmentOptions.offsetGaps?.below)) {
      const side = segment.nextOffset < end ? "records are missing before it" : "the two overlap";
      throw new PagelogError(
        `segment ${path} is corrupt: its batches end at offset ${segment.nextOffset - 1} (byte ${segment.size}), but the next segment starts at offset ${end}: ${side}`,
        ErrorCode.CORRUPT,
        { path },
      );
    }
    // Checked: write an index it rebuilt (after a clean shutdown, as the open used to). Read-only:
    // the rebuild stays in memory (a pending rebuild is never released).
    if (context.readOnly !== true) {
      await segment.commit();
      // The span is whole: index files without a `.log` inside it are a compaction's leftovers.
      // (A span whose end the cleaner dropped proves nothing about them: they stay.)
      if (segment.nextOffset === end) {
        for (const orphan of span.orphans) await removeIfThere(storage, orphan);
        span.orphansRemoved();
      }
    }
    if (span.isClosed()) throw closedLog(dir);
    context.firstUses.segmentsLoaded++;
    if (indexesRebuilt) context.firstUses.indexesRebuilt++;
  } catch (err) {
    await segment.close().catch(() => undefined);
    throw err;
  }
  return segment;
}
