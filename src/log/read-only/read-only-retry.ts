/*
 * A read on a read-only log that meets a file its writer's cleaner replaced since the last
 * refresh: an idle segment whose new file has gaps the last clean point read does not cover, or
 * that now ends where a later segment (grouped into it) used to, or a segment grouped away. Each
 * is what a refresh reconciles (refresh-cleaned.ts); so is a truncateTo that cut what the read
 * was about to read. The read refreshes and runs again, a few times at most (the writer may change
 * the files again between the refresh and the read): real damage fails the same way every time,
 * and is reported then.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { LOG_SUFFIX } from "../../segment/segment-names.js";
import { endOffsetOf, type LogState } from "../state/log-state.js";
import { SWAP_SUFFIX } from "../compaction/swap.js";
import { refreshLog } from "./log-refresh.js";

/** Runs `read` (inside the log's queue); on a read-only log, once more after a refresh if a segment looked stale. */
export async function readFollowingCleaner<T>(s: LogState, read: () => Promise<T>): Promise<T> {
  const ro = s.readOnly;
  if (ro === undefined) return read();
  for (let tries = 1; ; tries++) {
    try {
      return await read();
    } catch (err) {
      // The writer may change the files again between the refresh and the read after it.
      if (tries >= READ_TRIES || !staleSegment(err)) throw err;
      await refreshLog(s, ro);
    }
  }
}

/** Reads tried in all (each after a refresh): a writer changing files that fast is racing, real damage fails every time. */
const READ_TRIES = 4;

/**
 * A segment's check failed, or its file was gone: what a cleaning since the last refresh also
 * does (a swap's cleaned segment is read through its `.log.swap` name until the writer renames
 * it), and a truncateTo too (it removes and replaces segment files).
 */
function staleSegment(err: unknown): boolean {
  if (!(err instanceof PagelogError) || err.path === undefined) return false;
  if (!err.path.endsWith(LOG_SUFFIX) && !err.path.endsWith(LOG_SUFFIX + SWAP_SUFFIX)) return false;
  return (
    err.code === ErrorCode.CORRUPT || err.code === ErrorCode.OFFSET_OUT_OF_RANGE || err.code === ErrorCode.NOT_FOUND
  );
}

/**
 * Whether `found`, read from `next` on below the end, skips an offset the clean point does not
 * explain: none found at or past it, or a record past the next offset outside the cleaned part
 * (the checks records-body.ts makes before it hands them out).
 */
function unexplainedGap(s: LogState, next: number, found: readonly { readonly offset: number }[]): boolean {
  const below = s.offsetGaps.below;
  // Nothing found: explained only if the read went on to the end through the cleaned part. A
  // read from below the clean point stops empty at the first batch at or past it that holds no
  // record (log-read.ts), and a newer cleaning may have emptied or dropped the batches there.
  if (found.length === 0) return next >= below || endOffsetOf(s) > below;
  for (const record of found) {
    if (record.offset !== next && !(next < below && record.offset <= below)) return true;
    next = record.offset + 1;
  }
  return false;
}

/**
 * A read-only log's records read from `next` by `read`, with the writer's changes since the last
 * refresh that make gaps explained. The view's clean point is the checkpoint that refresh read;
 * since, the writer's cleaner may have written a higher one and swapped in the cleaned files the
 * read just found (it writes the checkpoint first), so a gap it does not explain is not yet
 * damage. The checkpoint is read again, after the bytes: moved up, the view follows it (the
 * cleaner's gaps are legal below it) and reads again, past the emptied batches it stopped at;
 * moved down, a truncateTo lowered it before cutting the files just read, and a refresh finds
 * the cut (the iteration then drops or refuses what it took) before the read runs again. A gap
 * still unexplained once the clean point holds still is left for the caller to call corrupt.
 */
export async function readExplainingGaps<R extends { readonly offset: number }>(
  s: LogState,
  next: number,
  read: () => Promise<R[]>,
): Promise<R[]> {
  let found = await read();
  const ro = s.readOnly;
  if (ro === undefined) return found;
  for (let tries = 1; tries < READ_TRIES && unexplainedGap(s, next, found); tries++) {
    const cleanPoint = (await ro.readCheckpoints()).cleanPoint;
    if (cleanPoint === undefined || cleanPoint === s.offsetGaps.below) break;
    if (cleanPoint > s.offsetGaps.below) s.offsetGaps.below = cleanPoint;
    else await refreshLog(s, ro);
    found = await read();
  }
  return found;
}
