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
 */
import {
  ATTRIBUTES_OFFSET,
  CONTROL_FLAG_MASK,
  decodeBatch,
  PRODUCER_ID_OFFSET,
  readBatchHeader,
  type BatchHeader,
  TRANSACTIONAL_FLAG_MASK,
} from "../../format/index.js";
import { type DecodedRecord as LogRecord, describeValue } from "../../format/record-codec.js";
import { batchSize } from "../options/log-arguments.js";
import { endOffsetOf, type LogState } from "../state/log-state.js";
import { openCursor, type ReadCursor } from "../state/read-cursors.js";
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

/** Kafka's ControlRecordType values that end a transaction. */
const ABORT = 0;
const COMMIT = 1;
/** A control record's key: version int16, then type int16. */
const CONTROL_KEY_SIZE = 4;
const CONTROL_TYPE_OFFSET = 2;
/** How much one step of the walk reads. */
const WALK_BYTES = 1 << 20;

/** The walk of one log: its aborted transactions and the open ones, from `from` up to `to`. */
interface TxnWalk {
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

const walks = new WeakMap<LogState, TxnWalk>();

/** `readRawBatches` (log-read.ts, which imports this file): whole batches from the one holding `offset`. */
type RawReader = (s: LogState, offset: number, maxBytes: number) => Promise<Uint8Array>;

/** Whether a read has met a transaction in this log (so `read_committed` reads look it up). */
export function knowsTransactions(s: LogState): boolean {
  return walks.has(s);
}

/**
 * The log's transactions, walked up to its end. The first call walks the whole log from its
 * start offset; the next ones only what was appended since, unless the walked part changed.
 */
export async function transactionsOf(s: LogState, readRaw: RawReader): Promise<TxnWalk> {
  let walk = walks.get(s);
  if (walk === undefined || changedUnder(s, walk)) {
    walk = {
      from: s.startOffset,
      to: s.startOffset,
      version: s.segmentsVersion,
      slots: new Set(s.segments),
      cursor: openCursor(s.cursors),
      aborted: new Map(),
      open: new Map(),
    };
    walks.set(s, walk);
  }
  await extend(s, walk, readRaw);
  return walk;
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

/** Whether the transactional batch of `producerId` holding `offset` belongs to an aborted transaction. */
export function isAborted(walk: TxnWalk, producerId: number, offset: number): boolean {
  const ranges = walk.aborted.get(producerId);
  if (ranges === undefined) return false;
  // The last range starting at or below `offset` (ranges of one producer never overlap).
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ranges[2 * mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return ranges[2 * lo]! <= offset && offset <= ranges[2 * lo + 1]!;
}

/**
 * Whether the log changed under the walk: a truncation below where it got to, or a segment it
 * read replaced (a compaction's swap, a follower's refresh of a rewritten segment). A roll, an
 * append or retention leaves what it noted true.
 */
function changedUnder(s: LogState, walk: TxnWalk): boolean {
  if (walk.cursor.cut < walk.to) return true;
  walk.cursor.cut = Number.POSITIVE_INFINITY;
  if (walk.version === s.segmentsVersion) return false;
  for (const slot of s.segments) if (slot.baseOffset < walk.to && !walk.slots.has(slot)) return true;
  walk.version = s.segmentsVersion;
  walk.slots = new Set(s.segments);
  return false;
}

/** Walks the batch headers from `walk.to` to the end of the log. */
async function extend(s: LogState, walk: TxnWalk, readRaw: RawReader): Promise<void> {
  // Retention may have moved the start past the walk: what it dropped was noted already.
  walk.to = Math.max(walk.to, s.startOffset);
  while (walk.to < endOffsetOf(s)) {
    const raw = await readRaw(s, walk.to, WALK_BYTES);
    const before = walk.to;
    for (let at = 0; at < raw.length; at += batchSize(raw, at)) {
      const header = readBatchHeader(raw, at);
      if (header.lastOffset < walk.to) continue;
      if (hasTxnFlags(raw, at)) await note(walk, header, raw.subarray(at, at + header.sizeInBytes));
      walk.to = header.lastOffset + 1;
    }
    if (walk.to === before) return; // nothing past it (a cleaned log's empty tail): the end for now
  }
}

/** One transactional or control batch, in offset order. */
async function note(walk: TxnWalk, header: BatchHeader, bytes: Uint8Array): Promise<void> {
  const producer = header.producerId;
  if (producer < 0) return; // a control batch of no producer (KRaft's): no transaction
  if (!header.isControl) {
    if (!walk.open.has(producer)) walk.open.set(producer, header.baseOffset);
    return;
  }
  const first = walk.open.get(producer);
  const type = await markerType(bytes);
  if (type !== ABORT && type !== COMMIT) return;
  walk.open.delete(producer);
  if (type === COMMIT || first === undefined) return;
  const ranges = walk.aborted.get(producer) ?? [];
  ranges.push(first, header.lastOffset);
  walk.aborted.set(producer, ranges);
}

/**
 * The control record type of a control batch: -1 for an empty one (as Kafka's cleaner may leave)
 * or one whose records are not control records (read as data: see `holdsControlRecords`).
 */
async function markerType(bytes: Uint8Array): Promise<number> {
  const records = (await decodeBatch(bytes, { verifyCrc: false })).records;
  const key = records[0]?.key;
  if (!holdsControlRecords(records) || key == null) return -1;
  return new DataView(key.buffer, key.byteOffset, key.byteLength).getInt16(CONTROL_TYPE_OFFSET);
}

/**
 * Whether a control batch's records are control records, as Kafka's `ControlRecordType.parse`
 * reads one: a key of at least 4 bytes, `version int16` not negative, then `type int16`. Kafka
 * skips a control batch whatever it holds; pagelog skips only control records, so that a batch
 * of data records with the control bit set (a damaged attribute whose CRC matches) is read, not
 * lost without a word (and `pagelog verify`, which checks no such bit, never calls clean what a
 * read refuses).
 */
export function holdsControlRecords(records: readonly LogRecord[]): boolean {
  return records.every(
    ({ key }) =>
      key !== null &&
      key.length >= CONTROL_KEY_SIZE &&
      new DataView(key.buffer, key.byteOffset, key.byteLength).getInt16(0) >= 0,
  );
}
