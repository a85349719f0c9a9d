/*
 * The mode of a log opened for writing (log-mode.ts): every hook is the plain path, so the
 * reads and waits of a writable log run no read-only code. This process writes the files, so
 * there is nothing to follow: a read never meets a file replaced behind its back, a durable read's
 * limit is the recovery point this process moves, and an append or a flush wakes the waiters.
 */
import type { LogMode } from "./log-mode.js";
import type { LogState } from "./log-state.js";

export const WRITABLE: LogMode<LogState> = {
  read: (_s, read) => read(),
  readRecords: (_s, _next, read) => read(),
  durableLimitAfterRead: (_s, limit) => Promise.resolve(limit),
  waiting: () => undefined,
  refresh: () => Promise.resolve(),
  close: undefined,
};
