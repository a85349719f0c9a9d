/*
 * The callbacks of everything waiting for one log to change (a follower at the end, a
 * `waitFor`), outside the log's queue. Every path that moves what a waiter waits on calls
 * `wake` once its change is in the state: an append (the end), a flush (the recovery point), a
 * truncation, a start offset moved, a failure, a close. No timer and no polling: a waiter is a
 * callback in this set, and a pending promise does not keep the process alive.
 */

/** Each callback looks at the log and settles (and removes) its waiter if it is done. */
export type Waiters = Set<() => void>;

/** Tells every waiter the log changed. A copy: a waiter removes itself as it settles. */
export function wake(waiters: Waiters): void {
  if (waiters.size === 0) return;
  for (const waiter of [...waiters]) waiter();
}
