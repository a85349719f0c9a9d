/*
 * The types of `Log.records()` and `Log.waitFor()`: their options (public), and an iteration's
 * state, shared by the part loaded at the call (records-iterator.ts) and its body loaded on first
 * use (records-body.ts).
 */
import type { Present } from "../../options.js";
import type { LogRecord } from "./log-read.js";
import type { Isolation } from "./transactions.js";
import type { LogState } from "../state/log-state.js";
import type { ReadCursor } from "../state/read-cursors.js";

/** The range, the mode, and the signal that stops it, of `Log.records`. */
export interface RecordsOptions {
  /** First offset. @defaultValue the log start offset */
  from?: number;
  /**
   * Stop before this offset. @defaultValue the log end offset when each read runs (with `follow`:
   * never stop)
   */
  to?: number;
  /** Abort the iteration: its next step throws the signal's reason, even while it waits. */
  signal?: AbortSignal;
  /**
   * Keep going at the end: wait for the next append (woken by it, no polling; while more appends
   * of this process are on their way, for them too, up to 1 MiB or 2 ms) and yield its records, until `to`, an abort, a close (`PAGELOG_CLOSED`) or a failure (`PAGELOG_FAILED`).
   * A truncation below the records already yielded, or a start offset moved past the next one,
   * is `PAGELOG_OFFSET_OUT_OF_RANGE`. @defaultValue false
   */
  follow?: boolean;
  /**
   * Only records below the recovery point: a record yielded survives any later power cut. A
   * durable follower is woken by the flush that moves the recovery point. @defaultValue false
   */
  durable?: boolean;
  /**
   * What is yielded of a broker's transactions, as `Log.read`'s `isolation`: control records
   * never; `"read_committed"` skips aborted transactions' records and stops at the last stable
   * offset (a follower waits there for the transaction's marker); `"read_uncommitted"` yields
   * them and reads to the end. A log pagelog wrote has no transactions. @defaultValue "read_committed"
   */
  isolation?: Isolation;
}

/** Options of `Log.waitFor`. */
export interface WaitOptions {
  /** Wait for the recovery point instead of the end: until the record is durable. @defaultValue false */
  durable?: boolean;
  /** Abort the wait: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The log's queue, as a read runs in it. */
export type Run = <T>(task: () => Promise<T>) => Promise<T>;

/** An iteration's options, checked (records-iterator.ts), with their defaults. */
export type Resolved = Present<RecordsOptions> & { follow: boolean; durable: boolean; isolation: Isolation };

/** Where one iteration is: its cursor, its next offset, and the one read it holds ahead. */
export interface Iteration {
  readonly s: LogState;
  readonly o: Resolved;
  /** Opened by the first read, in the queue: what was called before the iteration is its history. */
  cursor: ReadCursor | undefined;
  next: number;
  /** The offset after the last record handed out (`from` before any): `next` is past it only over a gap. */
  after: number;
  ahead: LogRecord[];
  at: number;
  /**
   * The offsets the read of `ahead` stepped over (control batches, aborted transactions), as
   * `[from, to)` pairs in order, and how many of them the position has passed.
   */
  skips: number[];
  skipAt: number;
}
