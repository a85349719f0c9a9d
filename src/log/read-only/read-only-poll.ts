/*
 * A follower of a read-only log (another process writes the files, so no append of this
 * process wakes it): while anything waits on the log (a `records({ follow: true })` at the
 * end, a `waitFor`), a timer refreshes the log `pollMs` after the last refresh (log-refresh.ts;
 * at once if that is longer ago), which wakes the waiters whatever it found. A record appended
 * by the writer is seen at most `pollMs` (plus one refresh) later, about half that on average. One timer per log, armed only while someone waits and re-armed
 * only after its refresh finished (a slow disk never queues refreshes). Unlike the waits of a
 * writable log, it keeps the process alive while it waits, as `tail -f` does: abort the signal
 * or close the log to end it. A refresh that fails on anything but a file gone meanwhile (a
 * race with the writer's retention or truncation, tried again at the next poll) fails the log:
 * its waiters end with `PAGELOG_FAILED` naming the cause, never hang.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { fail, type LogState } from "../state/log-state.js";
import { wake } from "../state/log-waiters.js";

/** Arms the poll if the log is read-only, open, someone waits and no poll is armed. */
export function pollWhileWaiting(s: LogState): void {
  const ro = s.readOnly;
  if (ro === undefined || ro.pollTimer !== undefined || s.waiters.size === 0 || s.status !== "open") return;
  ro.pollTimer = setTimeout(
    () => {
      void (async () => {
        try {
          await ro.refresh?.();
        } catch (err) {
          if (!(err instanceof PagelogError && (err.code === ErrorCode.NOT_FOUND || err.code === ErrorCode.CLOSED))) {
            if (s.status === "open") fail(s, err);
          }
        } finally {
          ro.pollTimer = undefined;
          wake(s.waiters);
          pollWhileWaiting(s);
        }
      })();
    },
    Math.max(0, ro.pollMs - (Date.now() - (ro.lastRefreshAt ?? 0))),
  );
}

/** Stops the poll (the log is closing). */
export function stopPolling(s: LogState): void {
  if (s.readOnly?.pollTimer !== undefined) clearTimeout(s.readOnly.pollTimer);
  if (s.readOnly !== undefined) s.readOnly.pollTimer = undefined;
}
