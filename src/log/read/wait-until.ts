/*
 * Waiting, outside the log's queue, until a condition on the log holds: what `waitFor` and a
 * following `records()` do at the end. The condition is looked at now and at every `wake` (see
 * log-waiters.ts), so a change between a read and the wait after it is never missed: the look
 * and the registration happen in one synchronous step.
 */
import { checkReadable, failedError, type LogState } from "../state/log-state.js";

/**
 * Resolves once `ready()` is true. Rejects with the signal's reason on an abort, `PAGELOG_CLOSED`
 * once the log is closing or closed, and `PAGELOG_FAILED` once it failed with `ready()` still
 * false (a failed log never grows again, so the wait could never end).
 */
export function waitUntil(s: LogState, ready: () => boolean, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    /** True once the wait is settled. */
    const settled = (): boolean => {
      try {
        signal?.throwIfAborted();
        checkReadable(s);
        if (ready()) {
          resolve();
          return true;
        }
        if (s.status === "failed") throw failedError(s, "waiting for records");
        return false;
      } catch (err) {
        reject(err);
        return true;
      }
    };
    if (settled()) return;
    const waiter = (): void => {
      if (!settled()) return;
      s.waiters.delete(waiter);
      signal?.removeEventListener("abort", waiter);
    };
    s.waiters.add(waiter);
    signal?.addEventListener("abort", waiter, { once: true });
    s.mode.waiting(s); // read-only: nothing of this process moves the end, so it polls (read-only-poll.ts)
  });
}
