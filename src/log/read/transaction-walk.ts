/**
 * The walk of a log's transactions (transactions.ts says what Kafka's transactions are to a
 * reader, and why pagelog walks the markers rather than reading `.txnindex` files): the batch
 * headers from the start offset to the end, noting per producer where its open transaction
 * began and the offset ranges of the ones it aborted; the lookup of an aborted range; and the
 * check that a control batch holds control records. A part of its own, loaded on first use
 * (door-transactions.ts): only a read that meets a transactional or control batch, or a batch of
 * an idempotent producer, loads it, and a log of pagelog's has none.
 */
import { readBatchHeader, type BatchHeader } from "../../format/batch-header.js";
import { decodeBatch } from "../../format/checked/batch-functions.js";
import type { DecodedRecord as LogRecord } from "../../format/record-codec.js";
import { batchSize } from "../options/log-arguments.js";
import { endOffsetOf, type LogState } from "../state/log-state.js";
import { openCursor } from "../state/read-cursors.js";
import { hasTxnFlags, type TxnWalk, walks } from "./transactions.js";

/** Kafka's ControlRecordType values that end a transaction. */
const ABORT = 0;
const COMMIT = 1;
/** A control record's key: version int16, then type int16. */
const CONTROL_KEY_SIZE = 4;
const CONTROL_TYPE_OFFSET = 2;
/** How much one step of the walk reads. */
const WALK_BYTES = 1 << 20;

/** `readRawBatches` (log-read.ts, which loads this file): whole batches from the one holding `offset`. */
type RawReader = (s: LogState, offset: number, maxBytes: number) => Promise<Uint8Array>;

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
