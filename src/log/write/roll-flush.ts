/**
 * The roll flush, as Kafka's `UnifiedLog.roll` schedules `flushUptoOffsetExclusive(newBase)`:
 * after a roll, the sealed segments' `.log` and indexes and the directory are synced off the
 * append path, then the recovery point moves to the new active segment's base. With flushing off
 * (the default) this is what keeps an unclean restart's walk to the active segment (and the one
 * whose flush was cut), what lets the cleaner clean and what wakes durable followers.
 *
 * It runs outside the log's queue, so an append never waits for it. At most one runs at a time;
 * a roll meanwhile only raises the target of the next one (one pending, never a stack of fsyncs).
 * Calls that remove or rewrite closed segments (truncateTo, deleteRecordsBefore, applyRetention,
 * compact, flush, close) first wait for it in their queue turn (`rollFlushSettled`), so it never
 * races them. Retention at a roll and the retention timer do not wait (they run on the append
 * path or would hold it): a segment they delete while it is being synced is skipped here, its
 * records are below the start offset, checkpointed durably before the deletion.
 */
import { activeSegment, endOffsetOf, fail, guard, type LogState } from "../state/log-state.js";
import { recoveryPointReached } from "../state/durable-mark.js";
import { wake } from "../state/log-waiters.js";

/** A roll made `newBase` the active segment's base: make everything below it durable, in the background. */
export function requestRollFlush(s: LogState, newBase: number): void {
  const rf = s.rollFlush;
  rf.pending = Math.max(rf.pending ?? 0, newBase);
  if (rf.running !== undefined) return; // the running one's loop takes it next
  rf.running = drain(s).finally(() => (rf.running = undefined));
}

/** Resolves once no roll flush is running or pending (never rejects: a failure is in the status). */
export async function rollFlushSettled(s: LogState): Promise<void> {
  while (s.rollFlush.running !== undefined) await s.rollFlush.running;
}

async function drain(s: LogState): Promise<void> {
  for (let target = s.rollFlush.pending; target !== undefined; target = s.rollFlush.pending) {
    s.rollFlush.pending = undefined;
    if (!(await flushUpTo(s, target))) {
      s.rollFlush.pending = undefined; // the log failed: nothing more is flushed
      return;
    }
  }
}

/** Syncs every closed dirty segment and the directory, then moves the recovery point to `target`. */
async function flushUpTo(s: LogState, target: number): Promise<boolean> {
  if (s.status !== "open" && s.status !== "closing") return false;
  const active = activeSegment(s);
  // Snapshot: a segment stays in `dirtySegments` until it is synced, so a flush() running
  // meanwhile syncs it too and never claims it durable before it is.
  const sealed = [...s.dirtySegments].filter((segment) => segment !== active && segment.nextOffset <= target);
  try {
    for (const segment of sealed) {
      if (segment.closed) continue; // deleted by retention meanwhile (see the file's comment)
      try {
        await segment.flush({ indexes: true }); // the log first, then its indexes (segment-flush.ts)
      } catch (err) {
        if (!segment.closed) throw err;
      }
    }
    // The sealed segments' names (and the new active one's) are durable only once the directory is.
    await s.host.storage.syncDir(s.name);
  } catch (err) {
    // A failed fsync: nothing can say which bytes reached the disk (guarantee 8).
    if (s.status === "open" || s.status === "closing") fail(s, err);
    return false;
  }
  for (const segment of sealed) s.dirtySegments.delete(segment);
  // Only after every fsync returned, and only upwards: a failure meanwhile keeps the point where
  // it is, and a truncation cannot have run (it waits for this flush first).
  if (s.status !== "open" && s.status !== "closing") return false;
  if (target > s.recoveryPoint && target <= endOffsetOf(s)) {
    // Through the recovery point's one way up, which publishes it to other processes' durable
    // readers (state/durable-mark.ts) as a flush() does.
    await recoveryPointReached(s, target, endOffsetOf(s));
    s.rollFlush.completed++;
    wake(s.waiters); // durable followers and waitFor({ durable }) wait on the recovery point
    s.rollFlush.moved();
    // The directory checkpoints when its interval is up; a checkpoint that fails leaves the
    // data durable and the log open unless it failed the log (the next call then says so).
    const flushed = s.host.flushed;
    if (flushed !== undefined) await guard(s, () => flushed.call(s.host)).catch(() => undefined);
  }
  return true;
}
