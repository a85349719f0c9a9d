/*
 * The checks an index file must pass before a clean open or a first use trusts it
 * (segment-load.ts `planLoadClean`): the structure every index must have, then each kind's
 * ordering and range rules. Part of the segment's load: a new segment, whose indexes pagelog
 * writes itself, never runs them.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { BATCH_HEADER_SIZE } from "../../format/batch-layout.js";
import type { IndexFile } from "../index-file.js";
import { OffsetIndex } from "../offset-index.js";
import type { TimeIndex, TimestampOffset } from "../time-index.js";

function corrupt(index: IndexFile, why: string): PagelogError {
  const path = index.file.path;
  return new PagelogError(`index ${path} is corrupt: ${why}`, ErrorCode.CORRUPT, { path });
}

/**
 * Checks the structure every index must have: a whole number of entries, no more than
 * `maxEntries`; then the kind's ordering and range checks (offsets below `nextOffset`,
 * positions below `logSize`). Throws `PAGELOG_CORRUPT` saying what is wrong.
 */
export function checkIndex(index: OffsetIndex | TimeIndex, logSize: number, nextOffset: number): void {
  if (index.implausible !== undefined) throw corrupt(index, index.implausible);
  const { loadedSize, entrySize, entries, maxEntries } = index;
  if (loadedSize % entrySize !== 0)
    throw corrupt(index, `size ${loadedSize} is not a multiple of the entry size ${entrySize}`);
  if (entries > maxEntries) throw corrupt(index, `${entries} entries, more than the maximum ${maxEntries}`);
  const most = Math.floor(logSize / BATCH_HEADER_SIZE) + 1;
  if (entries > most)
    throw corrupt(index, `${entries} entries, more than a .log of ${logSize} bytes can need (at most ${most})`);
  if (index instanceof OffsetIndex) checkOffsets(index, logSize, nextOffset);
  else checkTimes(index, nextOffset);
}

/** An `.index`: offsets increasing and below `nextOffset`, positions increasing and below `logSize`. */
function checkOffsets(index: OffsetIndex, logSize: number, nextOffset: number): void {
  let previous = -1;
  let previousPosition = -1;
  for (let slot = 0; slot < index.entries; slot++) {
    const { offset, position } = index.entry(slot);
    if (offset < index.baseOffset)
      throw corrupt(index, `entry ${slot} offset ${offset} is below the base offset ${index.baseOffset}`);
    if (offset >= nextOffset)
      throw corrupt(index, `entry ${slot} offset ${offset} is past the segment's last offset ${nextOffset - 1}`);
    if (offset <= previous)
      throw corrupt(index, `entry ${slot} offset ${offset} does not increase (previous ${previous})`);
    if (position <= previousPosition)
      throw corrupt(index, `entry ${slot} position ${position} does not increase (previous ${previousPosition})`);
    if (position >= logSize)
      throw corrupt(index, `entry ${slot} position ${position} is past the end of the log (${logSize} bytes)`);
    previous = offset;
    previousPosition = position;
  }
}

/** A `.timeindex`: timestamps and offsets non-decreasing, offsets below `nextOffset`. */
function checkTimes(index: TimeIndex, nextOffset: number): void {
  let previous: TimestampOffset | undefined;
  for (let slot = 0; slot < index.entries; slot++) {
    let e: TimestampOffset;
    try {
      e = index.entry(slot);
    } catch {
      throw corrupt(index, `entry ${slot} has a timestamp beyond Number.MAX_SAFE_INTEGER`);
    }
    if (e.offset < index.baseOffset)
      throw corrupt(index, `entry ${slot} offset ${e.offset} is below the base offset ${index.baseOffset}`);
    if (e.offset >= nextOffset) throw corrupt(index, `entry ${slot} offset ${e.offset} is past the segment's end`);
    if (previous !== undefined && e.timestamp < previous.timestamp)
      throw corrupt(index, `entry ${slot} timestamp ${e.timestamp} is earlier than the previous ${previous.timestamp}`);
    if (previous !== undefined && e.offset < previous.offset)
      throw corrupt(index, `entry ${slot} offset ${e.offset} decreases`);
    previous = e;
  }
}
