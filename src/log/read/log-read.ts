/**
 * The read path: raw batches from the segment holding an offset, decoding them into records,
 * and the small cache that keeps the indexes of the last few old segments a reader touched in memory.
 * Arguments were checked by the caller (`log.ts`); these run inside the log's queue. Iterating
 * a range, and following the log, is records-iterator.ts; durable reads (only below the recovery
 * point) are ../durable/durable-reads.ts, the lookup by time find-by-time.ts, both loaded on first use.
 */
import { readBatchHeader } from "../../format/batch-header.js";
import { decodeLogBatch, type DecodedBatch } from "../../format/record-batch.js";
import type { DecodedRecord } from "../../format/record-codec.js";
import type { Segment } from "../../segment/segment.js";
import { resolveOptions } from "../../options.js";
import { batchSize, booleanOption, outOfRange, positiveInteger } from "../options/log-arguments.js";
import { activeSegment, endOffsetOf, type LogState } from "../state/log-state.js";
import { loadTransactionWalk } from "./door-transactions.js";
import {
  hasProducer,
  hasTxnFlags,
  type Isolation,
  isolationOption,
  knowsTransactions,
  lastStable,
} from "./transactions.js";

export type { Isolation } from "./transactions.js";

/** A record as read back: bytes are `Uint8Array`s, or null where they were null. */
export type LogRecord = DecodedRecord;

/** Limits of `Log.read`. */
export interface ReadOptions {
  /**
   * Stop adding batches once this many bytes were read; at least one whole batch is always
   * returned if one exists at the offset (Kafka's minOneMessage).
   * @defaultValue 1 MiB
   */
  maxBytes?: number;
  /** Return at most this many records. @defaultValue unlimited */
  maxRecords?: number;
  /**
   * Only records below the recovery point: records no power cut can take back (the single-node
   * high watermark). An offset at or above the recovery point reads as the end does: `[]`.
   * @defaultValue false
   */
  durable?: boolean;
  /**
   * What is read of a broker's transactions (a log pagelog wrote has none: nothing changes for
   * it). Control records (commit and abort markers) are never returned, at either level.
   * `"read_committed"`, as Kafka's `isolation.level=read_committed` consumer: the records of
   * aborted transactions are skipped too, and nothing at or past the last stable offset (the
   * first offset of a transaction with no marker yet) is returned: an offset there reads as the
   * end does, `[]`. `"read_uncommitted"`: every other record up to the end, aborted and open
   * transactions' included. Any other value is a `TypeError`.
   * @defaultValue "read_committed"
   */
  isolation?: Isolation;
}

/** `Log.read`'s options, checked, with their defaults. */
export type ResolvedReadOptions = Required<ReadOptions>;

/** Limits of `Log.readBatches`. */
export interface ReadBatchesOptions {
  /** As {@link ReadOptions.maxBytes}. @defaultValue 1 MiB */
  maxBytes?: number;
  /**
   * Only whole batches whose last offset is below the recovery point; at or above it the read is
   * empty bytes, as at the end. @defaultValue false
   */
  durable?: boolean;
}

export const DEFAULT_READ_BYTES = 1 << 20;

/** `read`'s options, checked, defaults filled in. */
export function resolveReadOptions(options: ReadOptions): Required<ReadOptions> {
  return resolveOptions<ReadOptions>(options, "read options", {
    maxBytes: (value) => positiveInteger(value, "maxBytes", DEFAULT_READ_BYTES),
    maxRecords: (value) => positiveInteger(value, "maxRecords", Number.POSITIVE_INFINITY),
    durable: (value) => booleanOption(value, "durable"),
    isolation: isolationOption,
  });
}

/** `readBatches`'s options, checked, defaults filled in. */
export function resolveReadBatchesOptions(options: ReadBatchesOptions): Required<ReadBatchesOptions> {
  return resolveOptions<ReadBatchesOptions>(options, "readBatches options", {
    maxBytes: (value) => positiveInteger(value, "maxBytes", DEFAULT_READ_BYTES),
    durable: (value) => booleanOption(value, "durable"),
  });
}

/**
 * Records with offset >= `offset` (and >= the start offset), at most `maxRecords` of them, as
 * `isolation` sees them. The offsets of the batches it skipped (control batches; with
 * `read_committed`, aborted transactions') are pushed onto `skips` as `[from, to)` pairs, in
 * order: a reader's position moves over them. With `read_committed` it returns nothing at or
 * past the last stable offset.
 */
export async function readLogRecords(
  s: LogState,
  offset: number,
  maxBytes: number,
  maxRecords: number,
  isolation: Isolation = "read_committed",
  skips: number[] = [],
): Promise<LogRecord[]> {
  for (let at = offset; ;) {
    const raw = await readRawBatches(s, at, maxBytes);
    const skipped = skips.length;
    const { records: out, stable } = await decodeRecords(s, raw, at, maxRecords, isolation, skips);
    // A compacted log's cleaned part can hold batches the cleaner emptied (compaction/), and a
    // broker's log batches no reader gets (markers, aborted transactions): read on past them, so
    // a read that finds no record says there is none up to the end (or the last stable offset).
    if (out.length > 0 || raw.length === 0 || (at >= s.offsetGaps.below && skips.length === skipped)) return out;
    const after = lastOffsetOf(raw) + 1;
    if (after <= at || after >= Math.min(endOffsetOf(s), stable)) return out;
    at = after;
  }
}

/**
 * `readLogRecords` for `Log.read`. A read of a few records (a lookup: `maxRecords: 1`) first takes
 * only the batch holding `offset`: reading, checking and decoding `maxBytes` of batches (1 MiB,
 * and a read-ahead) to keep one record of them was most of a random lookup. When that batch
 * holds `maxRecords` records from `offset` on, they are what the whole read would have returned
 * first (records come in offset order); else the read runs whole, as before.
 */
export async function readFewRecords(s: LogState, offset: number, o: ResolvedReadOptions): Promise<LogRecord[]> {
  const { maxBytes, maxRecords, isolation } = o;
  if (maxRecords !== Number.POSITIVE_INFINITY && maxBytes > 1) {
    // At least one whole batch (minOneMessage).
    const first = await readLogRecords(s, offset, 1, maxRecords, isolation);
    if (first.length >= maxRecords) return first;
  }
  return readLogRecords(s, offset, maxBytes, maxRecords, isolation);
}

/** The last offset of the last whole batch in `raw`. */
function lastOffsetOf(raw: Uint8Array): number {
  let last = -1;
  for (let at = 0; at < raw.length; at += batchSize(raw, at)) last = readBatchHeader(raw, at).lastOffset;
  return last;
}

/** What `decodeRecords` found: the records, and the last stable offset it held them below. */
interface Decoded {
  records: LogRecord[];
  /** With `read_committed` in a log with transactions, the last stable offset; else Infinity. */
  stable: number;
}

async function decodeRecords(
  s: LogState,
  raw: Uint8Array,
  offset: number,
  maxRecords: number,
  isolation: Isolation,
  skips: number[],
): Promise<Decoded> {
  let out: LogRecord[] = [];
  const committed = isolation === "read_committed";
  // A log a read met a transaction in: what is open now bounds this read (it may have begun
  // below `offset`). Any other log has none until a batch below says so.
  // (The walk is a part loaded on first use, door-transactions.ts: only such a log loads it.)
  let walk =
    committed && knowsTransactions(s)
      ? await (await loadTransactionWalk()).transactionsOf(s, readRawBatches)
      : undefined;
  let stable = walk === undefined ? Number.POSITIVE_INFINITY : lastStable(walk);
  const from = Math.max(offset, s.startOffset);
  for (let at = 0; at < raw.length && out.length < maxRecords;) {
    const size = batchSize(raw, at);
    // Only a transactional or control batch needs its header read: one byte says which.
    const flagged = hasTxnFlags(raw, at);
    if (committed && walk === undefined && (flagged || hasProducer(raw, at))) {
      walk = await (await loadTransactionWalk()).transactionsOf(s, readRawBatches);
      stable = lastStable(walk);
    }
    let batch: DecodedBatch | undefined;
    if (flagged) {
      const txn = await loadTransactionWalk();
      const header = readBatchHeader(raw, at);
      if (header.baseOffset >= stable) break;
      let skip = !header.isControl && walk !== undefined && txn.isAborted(walk, header.producerId, header.baseOffset);
      if (header.isControl) {
        // Skipped only when its records are control records: one bit never hides data records.
        batch = await decodeAt(raw, at, size, out.length);
        if (batch === undefined) break;
        skip = txn.holdsControlRecords(batch.records);
      }
      if (skip) {
        if (header.lastOffset >= from) skips.push(Math.max(header.baseOffset, from), header.lastOffset + 1);
        at += size;
        continue;
      }
    }
    batch ??= await decodeAt(raw, at, size, out.length);
    if (batch === undefined) break;
    const records = batch.records;
    // The usual case, a first batch wholly wanted: its own array, not a copy record by record.
    const whole = records.length <= maxRecords - out.length && (records[0]?.offset ?? from) >= from;
    if (whole && out.length === 0) out = records;
    // (A spread takes its arguments on the stack: only for batches of a bounded count.)
    else if (whole && records.length <= 4096) out.push(...records);
    else {
      for (const r of records) {
        if (r.offset >= from && out.length < maxRecords) out.push(r);
      }
    }
    at += size;
  }
  if (stable === Number.POSITIVE_INFINITY) return { records: out, stable };
  // Nothing at or past the last stable offset: not its records, not a position moved past it.
  if ((out.at(-1)?.offset ?? -1) >= stable) out = out.filter((r) => r.offset < stable);
  while (skips.length > 0 && skips.at(-2)! >= stable) skips.length -= 2;
  if (skips.length > 0) skips[skips.length - 1] = Math.min(skips.at(-1)!, stable);
  return { records: out, stable };
}

/**
 * The batch at `at`, decoded; undefined when it cannot be and records were read before it: they
 * are handed on, as a segment does with a bad CRC, and the read that starts at it reports it.
 */
async function decodeAt(raw: Uint8Array, at: number, size: number, before: number): Promise<DecodedBatch | undefined> {
  try {
    return await decodeLogBatch(raw.subarray(at, at + size)); // the segment checked every CRC on the way out
  } catch (err) {
    if (before > 0) return undefined;
    throw err;
  }
}

/**
 * Where a read stops: the end, or with `durable` the recovery point (never above the end: a
 * start moved past the recovery point leaves nothing durable to read until a flush).
 */
export function readLimit(s: LogState, durable: boolean): number {
  const end = endOffsetOf(s);
  return durable ? Math.min(end, s.recoveryPoint) : end;
}

/** `PAGELOG_OFFSET_OUT_OF_RANGE` unless `offset` is in [start, end]. */
export function checkInRange(s: LogState, offset: number): void {
  if (offset < s.startOffset || offset > endOffsetOf(s)) throw outOfRange(offset, s.startOffset, endOffsetOf(s));
}

/** Whole raw batches from the one holding `offset`. `offset` and `maxBytes` were checked by the caller. */
export async function readRawBatches(s: LogState, offset: number, maxBytes: number): Promise<Uint8Array> {
  checkInRange(s, offset);
  for (let index = segmentHolding(s, offset); index < s.segments.length; index++) {
    const slot = s.segments[index]!;
    const segment = slot.segment ?? (await slot.load()); // an idle segment's first use checks it
    const read = await segment.read(offset, maxBytes);
    touch(s, segment);
    if (read !== null) return read.bytes;
  }
  return new Uint8Array(0);
}

/**
 * The index of the last segment whose base offset is at most `offset` (0 if none): a binary
 * search, since a random read on a log of many segments must not walk the list (base offsets
 * increase along it).
 */
function segmentHolding(s: LogState, offset: number): number {
  const segments = s.segments;
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.baseOffset <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The index of the first segment that ends above the start offset (ends increase along the list). */
export function firstAboveStart(s: LogState): number {
  const segments = s.segments;
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.nextOffset <= s.startOffset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Keeps the indexes of recently read segments besides the active one in memory, least recently
 * used first, up to `indexCacheBytes` of index entries (a consumer reading old segments keeps
 * their indexes; random lookups over a log of small segments find them all in memory; a large
 * log still costs memory only for what is read). A segment the log no longer holds is dropped
 * when it reaches the front. O(1) per read: the map keeps the order.
 */
export function touch(s: LogState, segment: Segment): void {
  if (segment === activeSegment(s)) return;
  // Its lookups use the index entries in memory (below), not the files: their descriptors go
  // first when the pool needs one, so reads of cold segments do not push hot ones' `.log` out.
  segment.indexFilesIdle();
  const had = s.warm.get(segment);
  if (had !== undefined) {
    s.warm.delete(segment);
    s.warmBytes -= had;
  }
  const bytes = segment.indexBytes;
  s.warm.set(segment, bytes);
  s.warmBytes += bytes;
  for (const [cold, coldBytes] of s.warm) {
    // Least recently used first: over the budget, or a segment retention or truncation closed.
    if ((s.warmBytes <= s.options.indexCacheBytes && !cold.closed) || cold === segment) break;
    s.warm.delete(cold);
    s.warmBytes -= coldBytes;
    if (cold !== activeSegment(s)) cold.releaseIndexes();
  }
}
