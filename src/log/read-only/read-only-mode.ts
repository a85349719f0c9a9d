/*
 * The mode of a log opened read-only (state/log-mode.ts): another process writes the files, so
 * reads follow its changes (read-only-retry.ts), waits poll (read-only-poll.ts), `refresh()`
 * re-reads the files (log-refresh.ts) and a close releases handles only. Reached only through a
 * read-only open (read-only-open.ts), which LogDir loads on demand: a writable log never runs it.
 */
import { durableOf } from "../state/read-only-state.js";
import type { LogMode } from "../state/log-mode.js";
import type { LogState } from "../state/log-state.js";
import { closeReadOnly, refreshLog } from "./log-refresh.js";
import { pollWhileWaiting } from "./read-only-poll.js";
import { readExplainingGaps, readFollowingCleaner } from "./read-only-retry.js";

export const READ_ONLY: LogMode<LogState> = {
  read: readFollowingCleaner,
  readRecords: readExplainingGaps,
  durableLimitAfterRead,
  waiting: pollWhileWaiting,
  refresh: (s) => refreshLog(s, s.readOnly!),
  close: closeReadOnly,
};

/**
 * A durable read's limit once its bytes are read. A read-only log's recovery point is the
 * writer's checkpoint as the last refresh saw it; since, a truncateTo may have lowered the
 * checkpoint and cut, and the read just found what the writer appended after, unflushed, in
 * the files. So the checkpoint is read again, after the bytes: records at or above it wait.
 * A lower value lowers the view's recovery point too (a follower then waits for a refresh to
 * raise it, rather than read again at once); the next refresh finds the cut itself.
 */
async function durableLimitAfterRead(s: LogState, limit: number): Promise<number> {
  const checkpointed = durableOf(await s.readOnly!.readCheckpoints());
  if (checkpointed < s.recoveryPoint) s.recoveryPoint = checkpointed;
  return Math.min(limit, checkpointed);
}
