/**
 * The read path: raw batches from the segment holding an offset, decoding them into records,
 * iterating a range, finding an offset by timestamp, and the small cache that keeps the indexes
 * of the last few old segments a reader touched in memory. Arguments were checked by the
 * caller (`log.ts`); these run inside the log's queue.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { decodeBatch, type DecodedRecord, readBatchHeader } from "../format/index.js";
import { describeValue } from "../format/record-codec.js";
import type { Segment } from "../segment/segment.js";
import { type Present, resolveOptions } from "../options.js";
import { batchSize, checkOffset, outOfRange } from "./log-arguments.js";
import { activeSegment, checkReadable, endOffsetOf, type LogState } from "./log-state.js";
import { openCursor, type ReadCursor } from "./read-cursors.js";

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
}

/** The range, and the signal that stops it, of `Log.records`. */
export interface RecordsOptions {
  /** First offset. @defaultValue the log start offset */
  from?: number;
  /** Stop before this offset. @defaultValue the log end offset when each read runs */
  to?: number;
  /** Abort the iteration. */
  signal?: AbortSignal;
}

export const DEFAULT_READ_BYTES = 1 << 20;

function optionalOffset(name: string) {
  return (value: unknown): number | undefined => {
    if (value !== undefined) checkOffset(value, name);
    return value;
  };
}

/** Records with offset >= `offset` (and >= the start offset), at most `maxRecords` of them. */
export async function readRecords(
  s: LogState,
  offset: number,
  maxBytes: number,
  maxRecords: number,
): Promise<LogRecord[]> {
  for (let at = offset; ;) {
    const raw = await readRawBatches(s, at, maxBytes);
    const out = await decodeRecords(s, raw, at, maxRecords);
    // A compacted log's cleaned part can hold batches the cleaner emptied (compaction/): read on
    // past them, so a read that finds no record says there is none up to the end.
    if (out.length > 0 || raw.length === 0 || at >= s.offsetGaps.below) return out;
    const after = lastOffsetOf(raw) + 1;
    if (after <= at || after >= endOffsetOf(s)) return out;
    at = after;
  }
}

/** The last offset of the last whole batch in `raw`. */
function lastOffsetOf(raw: Uint8Array): number {
  let last = -1;
  for (let at = 0; at < raw.length; at += batchSize(raw, at)) last = readBatchHeader(raw, at).lastOffset;
  return last;
}

async function decodeRecords(s: LogState, raw: Uint8Array, offset: number, maxRecords: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (let at = 0; at < raw.length && out.length < maxRecords;) {
    const size = batchSize(raw, at);
    let batch: Awaited<ReturnType<typeof decodeBatch>>;
    try {
      batch = await decodeBatch(raw.subarray(at, at + size), {
        verifyCrc: false, // the segment checked every CRC on the way out
      });
    } catch (err) {
      // Hand on the good records before it, as a segment does with a bad CRC: the read that
      // starts at this batch reports it.
      if (out.length > 0) break;
      throw err;
    }
    for (const r of batch.records) {
      if (r.offset >= offset && r.offset >= s.startOffset && out.length < maxRecords) out.push(r);
    }
    at += size;
  }
  return out;
}

/** Whole raw batches from the one holding `offset`. `offset` and `maxBytes` were checked by the caller. */
export async function readRawBatches(s: LogState, offset: number, maxBytes: number): Promise<Uint8Array> {
  if (offset < s.startOffset || offset > endOffsetOf(s)) throw outOfRange(offset, s.startOffset, endOffsetOf(s));
  let index = s.segments.length - 1;
  while (index > 0 && s.segments[index]!.baseOffset > offset) index--;
  for (; index < s.segments.length; index++) {
    const slot = s.segments[index]!;
    const segment = slot.segment ?? (await slot.load()); // an idle segment's first use checks it
    const read = await segment.read(offset, maxBytes);
    touch(s, segment);
    if (read !== null) return read.bytes;
  }
  return new Uint8Array(0);
}

/**
 * Every record from `from` (inclusive) to `to` (exclusive), read in batches through `run` (the
 * log's queue, so each read keeps call order with the other calls). Its checks run at the first
 * next(), as a generator's do.
 *
 * One history: every record is handed out only if the log holds it at that offset at that
 * moment. A truncation below the next offset took records already handed out (a follower's
 * history diverged): `PAGELOG_TRUNCATED`. A truncation at or above it drops what was read ahead
 * from the cut on, and the iteration goes on in the log as it now is. A start offset moved past
 * the next offset (retention, deleteRecordsBefore) is `PAGELOG_OFFSET_OUT_OF_RANGE`, as a fetch
 * there is; a closed log is `PAGELOG_CLOSED`. Offsets are taken as `read()` takes them: `from`
 * at the end is an empty iteration, past it or below the start is out of range.
 */
export async function* iterateRecords(
  s: LogState,
  options: RecordsOptions,
  run: <T>(task: () => Promise<T>) => Promise<T>,
): AsyncGenerator<LogRecord, void, undefined> {
  const { from, to, signal } = resolveOptions<RecordsOptions, Present<RecordsOptions>>(options, "records options", {
    from: optionalOffset("from"),
    to: optionalOffset("to"),
    signal: (value) => {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: `value` is unknown
      if (value !== undefined && typeof (value as { throwIfAborted?: unknown } | null)?.throwIfAborted !== "function")
        throw new TypeError(`signal must be an AbortSignal, got ${describeValue(value)}`);
      return value as AbortSignal | undefined;
    },
  });
  /** Opened by the first read, in the queue: what was called before the iteration is its history. */
  let cursor: ReadCursor | undefined;
  let next = from ?? 0;
  let ahead: LogRecord[] = [];
  let at = 0;

  /**
   * Checks that the position and what was read ahead still hold, dropping read-ahead a cut took.
   * Synchronous: nothing runs between it and the yield after it.
   */
  const settle = (cursor: ReadCursor): void => {
    checkReadable(s);
    const cut = cursor.cut;
    cursor.cut = Infinity;
    if (cut < next) {
      const message = `log ${s.name} was truncated to ${cut}, below the iterator's offset ${next}`;
      throw new PagelogError(message, ErrorCode.TRUNCATED, { path: s.name });
    }
    if (cut < Infinity) {
      ahead = ahead.slice(at).filter((r) => r.offset < cut);
      at = 0;
    }
    if (next < s.startOffset) throw outOfRange(next, s.startOffset, endOffsetOf(s));
  };

  const fill = (): Promise<LogRecord[]> =>
    run(async () => {
      checkReadable(s);
      if (cursor === undefined) {
        next = from ?? s.startOffset;
        if (next < s.startOffset || next > endOffsetOf(s)) throw outOfRange(next, s.startOffset, endOffsetOf(s));
        cursor = openCursor(s.cursors);
      } else {
        settle(cursor);
      }
      const end = endOffsetOf(s);
      if (next >= end || (to !== undefined && next >= to)) return [];
      const records = await readRecords(s, next, DEFAULT_READ_BYTES, to === undefined ? Infinity : to - next);
      // The log holds offsets up to its end, so a read below it always finds a record: never
      // end an iteration early without saying why. (In the cleaned part of a compacted log the
      // cleaner may have dropped every record up to the end: readRecords read on to it.)
      if (records.length === 0 && next < s.offsetGaps.below) return [];
      if (records.length === 0) {
        const message = `log ${s.name} has no record at or after offset ${next}, below its end ${end}`;
        throw new PagelogError(message, ErrorCode.CORRUPT, { path: s.name });
      }
      return records;
    });

  try {
    for (;;) {
      signal?.throwIfAborted();
      if (at === ahead.length) {
        if (cursor !== undefined && to !== undefined && next >= to) return;
        ahead = await fill();
        at = 0;
        if (ahead.length === 0) return;
      }
      // What happened to the log while these records waited (or since the read resolved).
      settle(cursor!);
      if (at === ahead.length) continue;
      const record = ahead[at]!;
      // Every offset of a log holds a record: a batch that skips one (as only a compacted or
      // hostile batch can) would hand out a hole as if nothing were missing. Except in the part
      // the log cleaner rewrote (below the clean point), where its gaps are the records it dropped.
      if (record.offset !== next && !(next < s.offsetGaps.below && record.offset <= s.offsetGaps.below)) {
        throw new PagelogError(
          `log ${s.name} has no record at offset ${next} (the next record is ${record.offset})`,
          ErrorCode.CORRUPT,
          { path: s.name },
        );
      }
      signal?.throwIfAborted();
      at++;
      next = record.offset + 1;
      yield record;
    }
  } finally {
    if (cursor !== undefined) s.cursors.delete(cursor.ref);
  }
}

/** The first offset at or above the start whose timestamp is at or after `timestamp`, or null. */
export async function findOffsetForTimestamp(s: LogState, timestamp: number): Promise<number | null> {
  for (const slot of s.segments) {
    if (slot.nextOffset <= s.startOffset) continue;
    // Which segment holds the answer is told by each one's largest timestamp, which an idle
    // segment learns on its first use: a lookup loads the segments it passes, oldest first.
    const segment = slot.segment ?? (await slot.load()); // no await for a loaded one: a lookup passes thousands
    if (segment.maxTimestamp < timestamp) continue;
    const found = await segment.offsetForTimestamp(timestamp);
    touch(s, segment);
    if (found === null) continue;
    if (found >= s.startOffset) return found;
    // The answer lies below the start offset: look again among the records from the start.
    let at = s.startOffset;
    while (at < segment.nextOffset) {
      const read = await segment.read(at, DEFAULT_READ_BYTES);
      if (read === null) break;
      for (let p = 0; p < read.bytes.length; p += batchSize(read.bytes, p)) {
        const batch = await decodeBatch(read.bytes.subarray(p, p + batchSize(read.bytes, p)), { verifyCrc: false });
        const hit = batch.records.find((r) => r.offset >= s.startOffset && r.timestamp >= timestamp);
        if (hit !== undefined) return hit.offset;
      }
      at = read.lastOffset + 1;
    }
  }
  return null;
}

/**
 * Keeps the indexes of recently read segments besides the active one in memory, least recently
 * used first, up to `indexCacheBytes` of index entries (a consumer reading old segments keeps
 * their indexes; random lookups over a log of small segments find them all in memory; a large
 * log still costs memory only for what is read). A segment the log no longer holds is dropped
 * when it reaches the front. O(1) per read: the map keeps the order.
 */
function touch(s: LogState, segment: Segment): void {
  if (segment === activeSegment(s)) return;
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
