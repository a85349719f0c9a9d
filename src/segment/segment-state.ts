/**
 * The state of one open `Segment` and the helpers its parts share: loading the indexes, walking
 * batches from an index lookup (with the fallback walk from the start when an entry lies), the
 * sparse index rule, and the corruption errors. `segment.ts` holds the class; `segment-load.ts`
 * (opening: plan, then commit), `segment-write.ts` and `segment-read.ts` are plain functions
 * over this state. Internal: the package exports only the class.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import type { BatchHeader, Crc32c } from "../format/index.js";
import type { StorageFile } from "../storage/storage.js";
import { BatchScanner, type ScanOptions, type ScanStop } from "./batch-scanner.js";
import type { OffsetIndex, OffsetPosition } from "./offset-index.js";
import { NO_TIMESTAMP, type TimeIndex, type TimestampOffset } from "./time-index.js";
import type { SegmentOptions } from "./segment-types.js";

export interface SegmentState {
  readonly baseOffset: number;
  readonly log: StorageFile;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  readonly options: SegmentOptions;
  /** Bytes in the `.log`. */
  size: number;
  nextOffset: number;
  maxTimestamp: number;
  offsetOfMaxTimestamp: number;
  /** Bytes appended since the last index entry: the sparse-index rule's counter. */
  bytesSinceIndexEntry: number;
  indexFilesWereMissing: boolean;
  /** The `.log` was written or truncated since its last sync. */
  logUnsynced: boolean;
  /** What `commit()` must write: a plan's cut of the `.log` (see `planRecovery`). */
  pendingTruncate: number | undefined;
  /** What the last plan was: `commit()` fsyncs every file after a recovery, the indexes otherwise. */
  pendingCommit: "recovery" | "indexes" | undefined;
  /**
   * Where the last read stopped, and the next chunk already being read from there: a reader that
   * goes on from `offset` (the next batch starts at `position`) starts its walk there, without
   * an index lookup, on bytes read while it was busy. Forgotten whenever the `.log` changes
   * below its end (truncation, recovery, close); appends only add bytes past it.
   */
  readAhead: ReadAhead | undefined;
}

interface ReadAhead {
  readonly offset: number;
  readonly position: number;
  readonly length: number;
  readonly bytes: Promise<Uint8Array>;
}

/** True if either index has no room for another entry: the Log must roll. */
export function indexFull(s: SegmentState): boolean {
  return s.offsetIndex.isFull || s.timeIndex.isFull;
}

export async function loadIndexes(s: SegmentState): Promise<void> {
  // The log's size bounds how many entries an index can hold: a larger file is not read.
  await s.offsetIndex.load(s.size);
  await s.timeIndex.load(s.size);
}

/**
 * The sparse rule, shared by append and recovery so both build the same index: before a batch,
 * if more than `indexIntervalBytes` were written since the last entry, add an entry for it
 * (its last offset and its position) and a time entry for the largest timestamp so far.
 */
export async function indexBatch(s: SegmentState, header: BatchHeader, position: number): Promise<void> {
  noteTimestamp(s, header);
  // A full index takes no more entries: lookups stay correct, only sparser, and the Log rolls
  // before its next write (a group commit can fill an index in the middle of its write).
  if (s.bytesSinceIndexEntry > s.options.indexIntervalBytes && !indexFull(s)) {
    await s.offsetIndex.append(header.lastOffset, position);
    await s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp);
    s.bytesSinceIndexEntry = 0;
  }
  s.bytesSinceIndexEntry += header.sizeInBytes;
  s.nextOffset = header.lastOffset + 1;
}

export function noteTimestamp(s: SegmentState, header: BatchHeader): void {
  if (header.maxTimestamp > s.maxTimestamp) {
    s.maxTimestamp = header.maxTimestamp;
    s.offsetOfMaxTimestamp = header.lastOffset;
  }
}

/**
 * The one time-index entry that names no batch: NO_TIMESTAMP at the base offset, written while
 * every record's timestamp was negative. Any other entry is a batch's (largest timestamp so
 * far, its last offset).
 */
export function namesBase(s: SegmentState, entry: TimestampOffset): boolean {
  return entry.timestamp === NO_TIMESTAMP && entry.offset === s.baseOffset;
}

export function timeEntryLies(s: SegmentState, entry: TimestampOffset): PagelogError {
  return new PagelogError(
    `index ${s.timeIndex.file.path} is corrupt: its entry (timestamp ${entry.timestamp}, offset ${entry.offset}) is not what the log holds`,
    ErrorCode.CORRUPT,
    { path: s.timeIndex.file.path },
  );
}

/** The batch holding `offset` and its position, or undefined past the end. */
export async function findBatch(
  s: SegmentState,
  offset: number,
): Promise<{ position: number; header: BatchHeader } | undefined> {
  await loadIndexes(s);
  return fromIndex(s, s.offsetIndex.lookup(offset), async (start) => {
    const scanner = scanFrom(s, start, { verifyCrc: false });
    for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
      if (batch.header.lastOffset >= offset) return { position: batch.position, header: batch.header };
    }
    if (scanner.stop.reason !== undefined) throw corruptAt(s, scanner.stop);
    return undefined;
  });
}

/**
 * Runs a walk from an index lookup's answer and, if it meets damage, once more from the
 * segment's start. After a clean shutdown an index is checked for its structure, not entry by
 * entry: an entry naming the wrong batch must cost a longer walk, never a readable record.
 * (Damage in the log itself fails both walks and is reported.)
 */
export async function fromIndex<T>(
  s: SegmentState,
  start: OffsetPosition,
  run: (start: OffsetPosition) => Promise<T>,
): Promise<T> {
  try {
    return await run(start);
  } catch (err) {
    if (start.position === 0 || !(err instanceof PagelogError && err.code === ErrorCode.CORRUPT)) throw err;
    return run({ offset: s.baseOffset, position: 0 });
  }
}

/**
 * A walk from an offset-index lookup's answer that first checks the batch there is the one the
 * index names: position 0 holds the segment's first batch, starting at the base offset; any
 * other position is an entry's, whose batch ends at the entry's offset. (Later batches are
 * checked to continue it.) Without this, a batch whose baseOffset field was damaged (the CRC
 * does not cover it) would be read, or truncated at, with wrong offsets.
 */
export function scanFrom(s: SegmentState, start: OffsetPosition, extra: Partial<ScanOptions>): BatchScanner {
  const expected = start.position === 0 ? { expectedOffset: s.baseOffset } : { expectedLastOffset: start.offset };
  return new BatchScanner(s.log, s.size, start.position, scanOptions(s, { ...expected, ...extra }));
}

// `maxBatchBytes` limits what is appended, never what is read back: a batch written under a
// larger setting is still a valid batch. What bounds memory is the file's own size.
export function validateOptions(s: SegmentState): { maxBatchBytes: number; crc32c?: Crc32c } {
  return {
    maxBatchBytes: Number.MAX_SAFE_INTEGER,
    ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }),
  };
}

export function scanOptions(s: SegmentState, extra: Partial<ScanOptions>): ScanOptions {
  const gaps = s.options.offsetGaps?.below;
  return {
    segmentBaseOffset: s.baseOffset,
    ...(gaps === undefined ? {} : { gapsBelow: gaps }),
    ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }),
    ...extra,
  };
}

export function corruptAt(s: SegmentState, stop: ScanStop): PagelogError {
  return new PagelogError(
    `segment ${s.log.path} is corrupt at byte ${stop.position}: ${stop.detail}`,
    ErrorCode.CORRUPT,
    { path: s.log.path },
  );
}

/**
 * Starts a walk that rebuilds what the batches say: both indexes (rebuilt in memory until a
 * commit), the next offset and the largest timestamp, all from the base offset again.
 */
export function beginWalk(s: SegmentState): void {
  s.readAhead = undefined;
  s.offsetIndex.beginRebuild();
  s.timeIndex.beginRebuild();
  s.nextOffset = s.baseOffset;
  s.maxTimestamp = NO_TIMESTAMP;
  s.offsetOfMaxTimestamp = s.baseOffset;
  s.bytesSinceIndexEntry = 0;
}
