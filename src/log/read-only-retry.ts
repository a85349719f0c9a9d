/*
 * A read on a read-only log that meets a file its writer's cleaner replaced since the last
 * refresh: an idle segment whose new file has gaps the last clean point read does not cover, or
 * that now ends where a later segment (grouped into it) used to, or a segment grouped away. Each
 * is what a refresh reconciles (refresh-cleaned.ts), so the read refreshes and runs once more:
 * real damage fails the same way again, and is reported then.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { LOG_SUFFIX } from "../segment/segment-names.js";
import type { LogState } from "./log-state.js";
import { refreshLog } from "./log-refresh.js";

/** Runs `read` (inside the log's queue); on a read-only log, once more after a refresh if a segment looked stale. */
export async function readFollowingCleaner<T>(s: LogState, read: () => Promise<T>): Promise<T> {
  const ro = s.readOnly;
  if (ro === undefined) return read();
  try {
    return await read();
  } catch (err) {
    if (!staleSegment(err)) throw err;
    await refreshLog(s, ro);
    return read();
  }
}

/** A segment's check failed, or its file was gone: what a cleaning since the last refresh also does. */
function staleSegment(err: unknown): boolean {
  if (!(err instanceof PagelogError) || err.path?.endsWith(LOG_SUFFIX) !== true) return false;
  return err.code === ErrorCode.CORRUPT || err.code === ErrorCode.OFFSET_OUT_OF_RANGE;
}
