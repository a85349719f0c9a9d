/**
 * Kafka's transactions as a reader sees them. pagelog never writes a transaction, but a broker's
 * partition holds them: a transactional producer's batches (attribute bit 4) are followed, once
 * the transaction ends, by a control batch (bit 5) whose one record is the marker, its key
 * `version int16, type int16` (0 ABORT, 1 COMMIT; other types, such as KRaft's, end no
 * transaction). Kafka's consumer never returns a control record, at either isolation level; at
 * `read_committed` it also skips the batches of an aborted transaction and reads nothing at or
 * past the last stable offset (the first offset of a transaction with no marker yet).
 *
 * The broker answers "which transactions were aborted" from its `.txnindex` files and the last
 * stable offset from its producer state. pagelog finds both in the log itself: a walk of the batch
 * headers from the start offset to the end notes, per producer, where its open transaction began
 * and the offset ranges of the ones it aborted. `.txnindex` files are not read, on purpose: pagelog
 * never writes them, so after its own truncation, recovery or compaction they no longer describe
 * the log; the markers always do, and an index file's bad bytes can then neither fail nor bend a
 * read. The walk runs only for a log a read found a transactional or control batch in (a log of
 * pagelog's, which has none, never pays for it); once made it is extended as the log grows, and
 * made again when a truncation or a rewrite (compaction, a follower's refresh) changed the part
 * it walked. A read also starts the walk at the first batch it meets of an idempotent producer (a
 * broker's, not pagelog's): a transaction may be open from below where that read began.
 *
 * This file is what every read needs: the isolation option, the one-byte look at a batch's flags,
 * and what the walks found so far. The walk itself, the aborted-range lookup and the control
 * records' check are transaction-walk.ts, a part loaded on first use (door-transactions.ts): a
 * read of a log with no transactional batch, as every log pagelog writes, never loads it.
 */
import {
  ATTRIBUTES_OFFSET,
  CONTROL_FLAG_MASK,
  PRODUCER_ID_OFFSET,
  TRANSACTIONAL_FLAG_MASK,
} from "../../format/batch-layout.js";
import { describeValue } from "../../format/record-codec.js";
import { endOffsetOf, type LogState } from "../state/log-state.js";
import type { ReadCursor } from "../state/read-cursors.js";
import type { SegmentSlot } from "../state/segment-slot.js";

/**
 * What a read yields of a broker's transactions (Kafka's `isolation.level`): control records are
 * never yielded; `"read_committed"` also skips aborted transactions' records and stops at the
 * last stable offset, `"read_uncommitted"` yields them and reads to the end.
 */
export type Isolation = "read_committed" | "read_uncommitted";

/** `isolation` checked: its default is `"read_committed"`, Kafka's consumers' usual choice. */
export function isolationOption(value: unknown): Isolation {
  if (value === undefined) return "read_committed";
  if (value === "read_committed" || value === "read_uncommitted") return value;
  throw new TypeError(`isolation must be "read_committed" or "read_uncommitted", got ${describeValue(value)}`);
}

/** Bits 4 (transactional) and 5 (control) of a batch's attributes: only such batches need a look. */
const TXN_FLAGS = TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK;

/**
 * Whether the batch at `position` of `raw` is transactional or a control batch. Both flags are in
 * the low byte of the big-endian attributes: one byte read, no header parsed.
 */
export function hasTxnFlags(raw: Uint8Array, position: number): boolean {
  return (raw[position + ATTRIBUTES_OFFSET + 1]! & TXN_FLAGS) !== 0;
}

/**
 * Whether the batch at `position` has a producer id (not -1): written by an idempotent or
 * transactional producer, as a broker's are and pagelog's never. The sign bit of the int64 is
 * enough.
 */
export function hasProducer(raw: Uint8Array, position: number): boolean {
  return (raw[position + PRODUCER_ID_OFFSET]! & SIGN_BIT) === 0;
}

const SIGN_BIT = 0x80;

/** The walk of one log: its aborted transactions and the open ones, from `from` up to `to`. */
export interface TxnWalk {
  readonly from: number;
  /** The walk noted every batch below this offset (a batch boundary once it has moved). */
  to: number;
  /** The segment list the walk read (a change that rewrote part of it makes a new walk). */
  version: number;
  slots: Set<SegmentSlot>;
  /** Told of every truncation (held here: the log's set holds it weakly). */
  readonly cursor: ReadCursor;
  /** Per producer, the offset ranges `[first, last]` of its aborted transactions, in order. */
  readonly aborted: Map<number, number[]>;
  /** Per producer with a transaction not ended yet, the offset of its first batch. */
  readonly open: Map<number, number>;
}

/** Each log's walk, made and extended by transaction-walk.ts. */
export const walks = new WeakMap<LogState, TxnWalk>();

/** Whether a read has met a transaction in this log (so `read_committed` reads look it up). */
export function knowsTransactions(s: LogState): boolean {
  return walks.has(s);
}

/**
 * The last stable offset as the walk last saw it, for a follower deciding whether to read again:
 * Infinity for a log no read found a transaction in, the end when the log grew past the walk
 * (the marker a reader waits for may be there), else the first offset of the oldest open
 * transaction (or the end).
 */
export function knownLastStable(s: LogState): number {
  const walk = walks.get(s);
  if (walk === undefined) return Number.POSITIVE_INFINITY;
  const end = endOffsetOf(s);
  return walk.to < end ? end : Math.min(end, lastStable(walk));
}

/** The first offset of the oldest transaction without a marker, or Infinity if none is open. */
export function lastStable(walk: TxnWalk): number {
  let first = Number.POSITIVE_INFINITY;
  for (const offset of walk.open.values()) first = Math.min(first, offset);
  return first;
}
