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
import type { LogState } from "../state/log-state.js";
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
