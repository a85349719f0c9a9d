/**
 * The mutable state of one open `Log`, and the small helpers every part of it shares: the
 * failure rule (a storage error fails the log), the status checks, and the flush that moves the
 * recovery point. `log.ts` holds the class; `log-append.ts`, `log-truncate.ts`, `log-read.ts`
 * and `log-retention.ts` are plain functions over this state, so each seam reads on its own.
 * Internal: nothing here is exported from the package.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { RecordSnapshot } from "../../format/record-codec.js";
import type { EncodedBatch } from "../../format/record-batch.js";
import type { Segment, SegmentOptions } from "../../segment/segment.js";
import type { Storage } from "../../storage/storage.js";
import type { Stopwatch } from "../options/log-clock.js";
import type { SegmentSlot, SlotContext } from "./segment-slot.js";
import type { TimestampTree } from "./timestamp-tree.js";
import type { ResolvedLogOptions } from "../options/log-options.js";
import type { ReadCursors } from "./read-cursors.js";
import { readOnlyError, type ReadOnlyState } from "./read-only-state.js";
import type { LogMode } from "./log-mode.js";
import { wake, type Waiters } from "./log-waiters.js";
import { recoveryPointReached } from "./durable-mark.js";
import type { WrittenTail } from "./written-tail.js";

/**
 * Where a `Log` is in its life: `open`, `closing` (close() called, appends refused), `closed`, or `failed` (a storage
 * error: it refuses everything but close()).
 */
export type LogStatus = "open" | "closing" | "closed" | "failed";

/** What a Log needs from its LogDir. */
export interface LogHost {
  readonly storage: Storage;
  /** Writes the directory's checkpoints durably (recovery points and log start offsets). */
  checkpoint(): Promise<void>;
  /** Called after every successful flush: the directory checkpoints when its interval is up. */
  flushed?(): Promise<void>;
  /** Writes this log's clean point to `cleaner-offset-checkpoint` durably (compaction/). */
  cleaned?(offset: number): Promise<void>;
}

export interface PendingAppend {
  /** The caller's records as read once, when append() was called. */
  readonly records: readonly RecordSnapshot[];
  readonly resolve: (offsets: { baseOffset: number; lastOffset: number }) => void;
  readonly reject: (err: unknown) => void;
}

/** One log's roll flush (write/roll-flush.ts): the one running, and the target the next one takes. */
interface RollFlush {
  running: Promise<void> | undefined;
  /** The base of the newest segment rolled since the running flush started, if any. */
  pending: number | undefined;
  /** Roll flushes that moved the recovery point (for tests and the bench). */
  completed: number;
  /** Called once a roll flush moved the recovery point (the log pokes its background cleaner). */
  moved: () => void;
}

/** Everything a Log changes as it runs; only its own queue's tasks touch it. */
export interface LogState {
  /** The partition directory's name, `<topic>-<partition>`. */
  readonly name: string;
  readonly host: LogHost;
  readonly options: Readonly<ResolvedLogOptions>;
  readonly segmentOptions: SegmentOptions;
  /**
   * The checks of each encoded batch beyond the cheap ones, set at open from the parts it loaded:
   * the encoder's pair with `PAGELOG_CHECKS=all` (write/write-checks.ts) and a reader's
   * `writeVarint` (segment/policies/varint-policy.ts); undefined when neither runs.
   */
  checkBatch: ((encoded: EncodedBatch, records: number) => void) | undefined;
  /** What a new slot needs (shared by every slot of this log). */
  readonly slotContext: SlotContext;
  /**
   * Oldest first; every one but the last may be idle until its first use (segment-slot.ts).
   * Changed only through segment-list.ts, which bumps `segmentsVersion` at every change.
   */
  readonly segments: readonly SegmentSlot[];
  /** How many times `segments` changed (segment-list.ts): what is derived from it checks this. */
  segmentsVersion: number;
  /** The largest timestamps of the segments, for `offsetForTimestamp` (timestamp-tree.ts); built on first use. */
  timestampTree: TimestampTree | undefined;
  startOffset: number;
  recoveryPoint: number;
  status: LogStatus;
  failure: unknown;
  unflushedRecords: number;
  /** Elapsed time (`stopwatch`) decides flushMs and segmentMs, never wall-clock differences. */
  readonly stopwatch: Stopwatch;
  /** When the last flush started, on the stopwatch. */
  lastFlushAt: number;
  /** Flushes so far: the flush timer tells by it whether one ran since it was armed. */
  flushes: number;
  /** When the active segment was created or reopened, on the stopwatch. */
  activeCreatedAt: number;
  /** A segment file was created or removed since the directory was last synced. */
  dirDirty: boolean;
  /**
   * Segments written since the last flush (log bytes or index entries, including the final
   * time-index entry a roll adds): every one is synced before the recovery point moves.
   */
  readonly dirtySegments: Set<Segment>;
  flushTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Segments other than the active one whose indexes are in memory, least recently used first,
   * and the bytes those indexes take (see `touch` in log-read.ts).
   */
  readonly warm: Map<Segment, number>;
  warmBytes: number;
  /** Appends waiting for the next group write; closed by any other call so call order holds. */
  openGroup: PendingAppend[] | undefined;
  /**
   * Append groups queued or being written, not yet answered: a follower woken while one is
   * coming waits for it and reads both at once (read/follow-coalesce.ts).
   */
  appendGroups: number;
  /**
   * The batches last written, kept for a follower of the end in this process (written-tail.ts);
   * made by the first follower that waits at the end (the follower's part, read/follow-tail.ts,
   * loaded on first use): a log nobody follows has none.
   */
  writtenTail: WrittenTail | undefined;
  /** The live `records()` iterators, told of every truncation (see read-cursors.ts). */
  readonly cursors: ReadCursors;
  /**
   * The clean point (`cleaner-offset-checkpoint`): below it the log cleaner rewrote the log and
   * offsets may have gaps; 0 for a log never cleaned. The segments read `below` from this same
   * object (`SegmentOptions.offsetGaps`), so moving it moves what they accept.
   */
  readonly offsetGaps: { below: number };
  /** Opened read-only (another process may be writing the files): what following them needs. */
  readonly readOnly: ReadOnlyState | undefined;
  /** Writable or read-only, chosen at open: where reads and waits part ways (log-mode.ts). */
  readonly mode: LogMode<LogState>;
  /** Followers and `waitFor` calls waiting outside the queue for the log to change (log-waiters.ts). */
  readonly waiters: Waiters;
  /** The background flush of the segments a roll sealed (write/roll-flush.ts). */
  readonly rollFlush: RollFlush;
  /** When retention last ran, on the stopwatch: the retention timer's interval counts from it. */
  lastRetentionAt: number;
  retentionTimer: ReturnType<typeof setTimeout> | undefined;
}

/** The segment appends go to: always the last one. */
export function activeSegment(s: LogState): Segment {
  // Loaded by the loader, by a roll or by a truncation: the active segment is never idle.
  return s.segments[s.segments.length - 1]!.segment!;
}

/** The offset the next appended record gets (Kafka's log end offset). */
export function endOffsetOf(s: LogState): number {
  return activeSegment(s).nextOffset;
}

/**
 * Makes every record appended so far durable, then advances the recovery point to the end.
 * The caller runs it under `guard`: a failed fsync fails the log.
 *
 * The active segment's indexes are synced only with `indexes: true` (a clean close): after a
 * crash, recovery rebuilds every segment from the one holding the recovery point on from its
 * `.log`; a recovery point at the active segment's end becomes the next segment's base only
 * through a roll, which first syncs the sealed segment's indexes (log-append.ts `roll`), and the
 * roll flush syncs a sealed segment whole. One fsync per durable append, as Kafka's own flush of
 * the active segment's log; guarantee 4 holds because no index of an unsealed segment is trusted
 * after a crash.
 */
export async function flushLog(
  s: LogState,
  { indexes = false, at }: { indexes?: boolean; at?: number } = {},
): Promise<void> {
  // `at`: the stopwatch as the caller read it before its work began. Read first otherwise: an
  // injected clock that throws fails this flush before it does anything.
  const startedAt = at ?? s.stopwatch.now();
  // After a failed fsync the kernel may have marked the lost pages clean: a later fsync
  // "succeeds" without writing them. A failed log never flushes, so its recovery point (what
  // durable readers are shown) never moves past what did reach the disk.
  if (s.status === "failed") throw failedError(s, "flush");
  const end = endOffsetOf(s);
  const active = activeSegment(s);
  for (const segment of s.dirtySegments) await segment.flush({ indexes: indexes || segment !== active });
  s.dirtySegments.clear();
  // A segment created since the last flush is durable only once its name is: sync the
  // directory before claiming anything in it is durable.
  if (s.dirDirty) {
    await s.host.storage.syncDir(s.name);
    s.dirDirty = false;
  }
  // Only now, after every fsync returned: the recovery point must never claim bytes the disk
  // does not have, or recovery would skip them and a torn batch could be served. (Published to
  // other processes' durable readers there too: durable-mark.ts.)
  await recoveryPointReached(s, end, endOffsetOf(s));
  s.unflushedRecords = 0;
  s.lastFlushAt = startedAt;
  s.flushes++;
  wake(s.waiters); // durable followers and waitFor({ durable }) wait on the recovery point
  await s.host.flushed?.();
}

/** Stops the log's timers (flushMs, retentionCheckIntervalMs): at close and on a failure. */
export function stopTimer(s: LogState): void {
  if (s.flushTimer !== undefined) clearTimeout(s.flushTimer);
  if (s.retentionTimer !== undefined) clearTimeout(s.retentionTimer);
  s.flushTimer = undefined;
  s.retentionTimer = undefined;
}

/** Runs a write: any failure but a caller's bad argument fails the log. */
export async function guard<T>(s: LogState, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof TypeError || err instanceof RangeError || intact.has(err as object))) fail(s, err);
    throw err;
  }
}

/** Errors after which the log's files and its state still agree (see `keepsLogOpen`). */
const intact = new WeakSet<object>();

/**
 * Marks an error that leaves the log as consistent as before (a checkpoint that found the disk
 * full, say): `guard` rejects the call with it but does not fail the log.
 */
export function keepsLogOpen<T>(err: T): T {
  if (typeof err === "object" && err !== null) intact.add(err);
  return err;
}

export function fail(s: LogState, err: unknown): void {
  s.status = "failed";
  s.failure ??= err;
  stopTimer(s);
  wake(s.waiters); // a failed log never grows: a waiter must not wait for ever
}

export function failedError(s: LogState, op: string): PagelogError {
  return new PagelogError(`log ${s.name} failed earlier and refuses ${op} until it is reopened`, ErrorCode.FAILED, {
    cause: s.failure,
    path: s.name,
  });
}

export function checkWritable(s: LogState, op: string): void {
  if (s.readOnly !== undefined) throw readOnlyError(s.name, op);
  if (s.status === "failed") throw failedError(s, op);
  if (s.status !== "open")
    throw new PagelogError(`log ${s.name} is ${s.status} (${op})`, ErrorCode.CLOSED, { path: s.name });
}

export function checkReadable(s: LogState): void {
  if (s.status === "closed" || s.status === "closing")
    throw new PagelogError(`log ${s.name} is ${s.status}`, ErrorCode.CLOSED, { path: s.name });
}
