/*
 * What differs between a writable log and a read-only one, chosen once when the log is opened
 * (docs/consumers.md, "Read-only"): a strategy the Log and its read paths call where the two
 * modes part ways. A writable log runs `WRITABLE` (writable-mode.ts), whose every hook is the
 * plain path; a read-only one runs `READ_ONLY` (read-only/read-only-mode.ts), which follows the
 * files another process writes. The read-only room is loaded only by a read-only open
 * (read-only/read-only-open.ts), so a writable log neither runs nor bundles its code.
 *
 * Generic over the state (`S` is `LogState`) so that log-state.ts can hold a mode without the
 * two files importing each other.
 */

/** The hooks where a read-only log does more than a writable one. */
export interface LogMode<S> {
  /**
   * A read in the log's queue. Read-only: one that meets a file its writer's cleaner or a
   * truncateTo replaced since the last refresh refreshes and runs again (read-only-retry.ts).
   */
  read<T>(s: S, read: () => Promise<T>): Promise<T>;
  /**
   * A `records()` step's read from offset `next`. Read-only: a gap the writer's cleaner made since
   * the last refresh is explained by reading its clean point again (read-only-retry.ts).
   */
  readRecords<R extends { readonly offset: number }>(s: S, next: number, read: () => Promise<R[]>): Promise<R[]>;
  /**
   * A durable read's limit once its bytes are read. Read-only: bounded by the writer's checkpoint
   * read again after the bytes (a truncateTo may have lowered it since the last refresh).
   */
  durableLimitAfterRead(s: S, limit: number): Promise<number>;
  /** Someone started waiting at the end. Read-only: a poll refreshes the log while anyone waits. */
  waiting(s: S): void;
  /** `log.refresh()`'s work, in the log's queue. Read-only: re-reads the files (log-refresh.ts). */
  refresh(s: S): Promise<void>;
  /** A mode that writes nothing closes its own way (its handles only); undefined: the writer's close. */
  readonly close: ((s: S) => Promise<void>) | undefined;
}
