/**
 * One segment of a partition: a `.log` of record batches plus its `.index` and `.timeindex`,
 * all through `Storage`. Offsets inside a segment are contiguous: each batch starts right after
 * the previous one's last offset, and the first at the segment's base offset.
 *
 * Opening is one of two things (the Log decides which, from the clean-shutdown marker and the
 * recovery point):
 * - `recover()`: walk every batch from byte 0, validate length, size and CRC-32C, rebuild both
 *   indexes as it goes, truncate at the first byte that is not a valid batch, make that durable.
 * - `loadClean()`: trust the log, sanity-check the indexes (rebuilding one that fails), and scan
 *   only the tail after the last index entry to learn the next offset and largest timestamp.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { type BatchHeader, type Crc32c, decodeBatch, readBatchHeader, validateBatch } from "../format/index.js";
import type { Storage, StorageFile } from "../storage/storage.js";
import { BatchScanner, type ScanOptions, type ScanStop } from "./batch-scanner.js";
import { MAX_INT32, OffsetIndex, type OffsetPosition } from "./offset-index.js";
import { createdOnWrite } from "./created-on-write.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "./segment-names.js";
import { NO_TIMESTAMP, TimeIndex, type TimestampOffset } from "./time-index.js";

export interface SegmentOptions {
  /** Bytes between sparse index entries (Kafka's `index.interval.bytes`). */
  readonly indexIntervalBytes: number;
  /** Largest index file (Kafka's `segment.index.bytes`); the Log rolls when an index is full. */
  readonly maxIndexBytes: number;
  /** Largest batch, log overhead included (Kafka's `max.message.bytes`). */
  readonly maxBatchBytes: number;
  /** CRC-32C implementation. @defaultValue the bundled pure-JS one */
  readonly crc32c?: Crc32c;
}

export interface RecoverOptions {
  /** Records below this offset are acknowledged: damage before it is `PAGELOG_CORRUPT`. */
  readonly minNextOffset?: number;
  /** End the walk before the first batch that reaches this offset (an interrupted cut's target). */
  readonly endOffset?: number;
}

/** What `recover()` found and did. */
export interface SegmentRecovery {
  /** Bytes of whole, valid batches from the start of the log. */
  readonly validBytes: number;
  /** Bytes cut away after them. */
  readonly truncatedBytes: number;
  /** Last offset of the last valid batch (`baseOffset - 1` if none). */
  readonly lastOffset: number;
  /** Largest batch maxTimestamp seen, or -1. */
  readonly maxTimestamp: number;
  /** Why the walk stopped where it did (reason undefined: clean end of file). */
  readonly stop: ScanStop;
}

/** Raw batches returned by `read`. */
export interface SegmentRead {
  /** Whole batches, back to back, exactly as on disk (a Kafka Fetch response's records). */
  readonly bytes: Uint8Array;
  /** Byte position of the first batch in the `.log`. */
  readonly position: number;
  /** Base offset of the first batch (may be below the offset asked for). */
  readonly firstOffset: number;
  /** Last offset of the last batch. */
  readonly lastOffset: number;
}

export class Segment {
  readonly baseOffset: number;
  readonly log: StorageFile;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  readonly #options: SegmentOptions;
  #size = 0;
  #nextOffset: number;
  #maxTimestamp = NO_TIMESTAMP;
  #offsetOfMaxTimestamp: number;
  /** Bytes appended since the last index entry: the sparse-index rule's counter. */
  #bytesSinceIndexEntry = 0;
  #indexFilesWereMissing: boolean;
  /** The `.log` was written or truncated since its last sync. */
  #logUnsynced = false;
  /** What `commit()` must write: a plan's cut of the `.log` (see `planRecovery`). */
  #pendingTruncate: number | undefined;
  /** What the last plan was: `commit()` fsyncs every file after a recovery, the indexes otherwise. */
  #pendingCommit: "recovery" | "indexes" | undefined;

  private constructor(
    baseOffset: number,
    log: StorageFile,
    offsetIndex: OffsetIndex,
    timeIndex: TimeIndex,
    options: SegmentOptions,
    indexFilesWereMissing: boolean,
  ) {
    this.baseOffset = baseOffset;
    this.log = log;
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.#options = options;
    this.#nextOffset = baseOffset;
    this.#offsetOfMaxTimestamp = baseOffset;
    this.#indexFilesWereMissing = indexFilesWereMissing;
  }

  /**
   * Opens the segment's three files in `dir`, creating any that are missing: a new segment.
   */
  static async open(storage: Storage, dir: string, baseOffset: number, options: SegmentOptions): Promise<Segment> {
    return Segment.#open(storage, dir, baseOffset, options, true);
  }

  /**
   * Opens an existing segment for loading, creating nothing: index files that are missing are
   * created only when a rebuild is committed, since the open may still reject the log (and an
   * open that rejects changes no file). Call `planRecovery()` or `planLoadClean()`, then
   * `commit()`, before using it.
   */
  static async openExisting(storage: Storage, dir: string, baseOffset: number, options: SegmentOptions): Promise<Segment> {
    return Segment.#open(storage, dir, baseOffset, options, false);
  }

  static async #open(storage: Storage, dir: string, baseOffset: number, options: SegmentOptions, create: boolean): Promise<Segment> {
    const logPath = segmentFilePath(dir, baseOffset, LOG_SUFFIX);
    const indexPath = segmentFilePath(dir, baseOffset, INDEX_SUFFIX);
    const timePath = segmentFilePath(dir, baseOffset, TIME_INDEX_SUFFIX);
    const indexMissing = (await storage.stat(indexPath)) === null;
    const timeMissing = (await storage.stat(timePath)) === null;
    const openIndex = (path: string, missing: boolean) => (missing && !create ? createdOnWrite(storage, path) : storage.open(path, { create }));
    const log = await storage.open(logPath, { create });
    const handles: StorageFile[] = [log];
    try {
      const indexFile = await openIndex(indexPath, indexMissing);
      handles.push(indexFile);
      const timeFile = await openIndex(timePath, timeMissing);
      handles.push(timeFile);
      const offsetIndex = await OffsetIndex.open(indexFile, baseOffset, options.maxIndexBytes);
      const timeIndex = await TimeIndex.open(timeFile, baseOffset, options.maxIndexBytes);
      const segment = new Segment(baseOffset, log, offsetIndex, timeIndex, options, indexMissing || timeMissing);
      segment.#size = await log.size();
      return segment;
    } catch (err) {
      await Promise.allSettled(handles.map((h) => h.close()));
      throw err;
    }
  }

  /** Bytes in the `.log`. */
  get size(): number {
    return this.#size;
  }

  /** The offset the next appended batch must start at (one past the last record). */
  get nextOffset(): number {
    return this.#nextOffset;
  }

  /** Largest batch timestamp in the segment, or -1 when empty. */
  get maxTimestamp(): number {
    return this.#maxTimestamp;
  }

  /** True if either index has no room for another entry: the Log must roll. */
  get indexFull(): boolean {
    return this.offsetIndex.isFull || this.timeIndex.isFull;
  }

  /** Whether a batch ending at `lastOffset` of `bytes` bytes still fits this segment's int32 fields. */
  canHold(lastOffset: number, bytes: number): boolean {
    return lastOffset - this.baseOffset <= MAX_INT32 && this.#size + bytes <= MAX_INT32;
  }

  // ---- opening --------------------------------------------------------------------------
  //
  // Opening decides before it writes: `planRecovery()` and `planLoadClean()` only read, and leave
  // the segment's state in memory as it will be (next offset, size, rebuilt indexes); `commit()`
  // then writes that state and makes it durable. A loader can plan every segment, reject the
  // log with every file as it found it, and commit only a plan it accepts.

  /**
   * Recovery: rebuild both indexes from a walk over every batch, cut the log at the first byte
   * that is not a valid batch (short, too small, bad magic, bad CRC, offsets out of sequence or
   * outside the segment's int32 range), and make the cut and the new indexes durable before
   * returning, so no later crash can bring the cut bytes back. `planRecovery` and `commit` in one.
   */
  async recover(options: RecoverOptions = {}): Promise<SegmentRecovery> {
    const result = await this.planRecovery(options);
    await this.commit();
    return result;
  }

  /**
   * The reading half of `recover()`: walks the batches, rebuilds the indexes in memory and sets
   * the size to the end of the valid batches, writing nothing. `minNextOffset`: records below it
   * were acknowledged as durable (the recovery point), so finding them damaged is corruption
   * (`PAGELOG_CORRUPT`, nothing planned), not a torn tail to cut. `endOffset`: the walk ends
   * before the first batch that reaches it (finishing an interrupted cut at that offset).
   */
  async planRecovery({ minNextOffset, endOffset }: RecoverOptions = {}): Promise<SegmentRecovery> {
    const sizeBefore = this.#size;
    const stop = await this.#rebuildFromWalk(endOffset);
    if (minNextOffset !== undefined && this.#nextOffset < minNextOffset) {
      throw new PagelogError(
        `segment ${this.log.path} is corrupt below the recovery point ${minNextOffset}: valid batches end at offset ${this.#nextOffset - 1} (byte ${stop.position}: ${stop.detail})`,
        ErrorCode.CORRUPT,
        { path: this.log.path },
      );
    }
    if (stop.position < this.#size) {
      this.#size = stop.position;
      this.#pendingTruncate = stop.position;
    }
    this.#pendingCommit = "recovery";
    return {
      validBytes: stop.position,
      truncatedBytes: sizeBefore - stop.position,
      lastOffset: this.#nextOffset - 1,
      maxTimestamp: this.#maxTimestamp,
      stop,
    };
  }

  /**
   * After a clean shutdown: sanity-check both indexes against the log (rebuilding any that
   * fails, or that was missing), then scan the tail after the last index entry. Returns whether
   * the indexes were rebuilt. A tail that is not whole valid batches is `PAGELOG_CORRUPT`: the
   * log was closed cleanly, so those bytes were acknowledged and durable. `planLoadClean` and
   * `commit` in one.
   */
  async loadClean(): Promise<{ indexesRebuilt: boolean }> {
    const result = await this.planLoadClean();
    await this.commit();
    return result;
  }

  /** The reading half of `loadClean()`: any rebuild stays in memory until `commit()`. */
  async planLoadClean(): Promise<{ indexesRebuilt: boolean }> {
    await this.#loadIndexes();
    let rebuild = this.#indexFilesWereMissing && this.#size > 0;
    if (!rebuild) {
      try {
        this.offsetIndex.sanityCheck(this.#size, Number.MAX_SAFE_INTEGER);
        await this.#scanTail();
        this.offsetIndex.sanityCheck(this.#size, this.#nextOffset);
        this.timeIndex.sanityCheck(this.#size, this.#nextOffset);
        await this.#checkLastTimeEntry();
      } catch (err) {
        if (!(err instanceof PagelogError && err.code === ErrorCode.CORRUPT && err.path !== this.log.path)) throw err;
        rebuild = true;
      }
    }
    if (rebuild) {
      const stop = await this.#rebuildFromWalk();
      if (stop.position !== this.#size) throw this.#corruptAt(stop);
    }
    this.#pendingCommit ??= "indexes";
    return { indexesRebuilt: rebuild };
  }

  /**
   * The time index's last entry must be a real one: the largest timestamp so far and the last
   * offset of the batch that holds it. The segment's largest timestamp is taken from it, and the
   * structural checks cannot tell a real entry from zeros that a crash left in a rebuilt index
   * (the file's new size survived, its page did not). One batch read.
   */
  async #checkLastTimeEntry(): Promise<void> {
    const last = this.timeIndex.lastEntry;
    if (last === undefined || this.#namesBase(last)) return;
    const found = await this.#findBatch(last.offset);
    if (found === undefined || found.header.lastOffset !== last.offset || found.header.maxTimestamp !== last.timestamp) throw this.#timeEntryLies(last);
  }

  /**
   * Writes what the last plan decided: the cut, then the rebuilt indexes, then fsyncs (a
   * recovery syncs all three files: it cannot know what an earlier process left in the page
   * cache). Durable before anything is appended: a truncation only in the page cache could be
   * undone by a crash, and the cut bytes (which may hold CRC-valid old batches) would come back.
   */
  async commit(): Promise<void> {
    const mode = this.#pendingCommit;
    if (mode === undefined) return;
    if (this.#pendingTruncate !== undefined) {
      this.#logUnsynced = true;
      await this.log.truncate(this.#pendingTruncate);
      this.#pendingTruncate = undefined;
    }
    await this.offsetIndex.commitRebuild();
    await this.timeIndex.commitRebuild();
    if (this.#indexFilesWereMissing) {
      // Create a lost index file even when it stays empty (a truncation to its own size is
      // otherwise a no-op), so the segment has its three files, as Kafka's always do.
      await this.offsetIndex.file.truncate(this.offsetIndex.sizeInBytes);
      await this.timeIndex.file.truncate(this.timeIndex.sizeInBytes);
    }
    if (mode === "recovery") {
      await this.flush({ force: true });
    } else {
      await Promise.all([this.offsetIndex.sync(), this.timeIndex.sync()]);
    }
    this.#pendingCommit = undefined;
    this.#indexFilesWereMissing = false;
  }

  /**
   * Rebuilds both indexes in memory from a walk over the whole log (ending before the first batch
   * that reaches `endOffset`, if given), re-adding entries by the sparse rule. Writes nothing.
   */
  async #rebuildFromWalk(endOffset?: number): Promise<ScanStop> {
    this.offsetIndex.beginRebuild();
    this.timeIndex.beginRebuild();
    this.#nextOffset = this.baseOffset;
    this.#maxTimestamp = NO_TIMESTAMP;
    this.#offsetOfMaxTimestamp = this.baseOffset;
    this.#bytesSinceIndexEntry = 0;
    const scanner = new BatchScanner(
      this.log,
      this.#size,
      0,
      this.#scanOptions({ expectedOffset: this.baseOffset, ...(endOffset === undefined ? {} : { endOffset }) }),
    );
    for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
      await this.#indexBatch(batch.header, batch.position);
    }
    // As Kafka's recover does: one last time-index entry for the segment's largest timestamp.
    if (this.#maxTimestamp !== NO_TIMESTAMP) await this.timeIndex.maybeAppend(this.#maxTimestamp, this.#offsetOfMaxTimestamp);
    return scanner.stop;
  }

  /** From the last offset-index entry to the end: the next offset and the largest timestamp. */
  async #scanTail(): Promise<void> {
    await this.#loadIndexes();
    const lastEntry = this.offsetIndex.entries === 0 ? undefined : this.offsetIndex.entry(this.offsetIndex.entries - 1);
    const start = lastEntry?.position ?? 0;
    const last = this.timeIndex.lastEntry;
    this.#maxTimestamp = last?.timestamp ?? NO_TIMESTAMP;
    this.#offsetOfMaxTimestamp = last?.offset ?? this.baseOffset;
    const scanner = new BatchScanner(this.log, this.#size, start, this.#scanOptions({}));
    let first = true;
    for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
      // The index's last entry must point at the start of the batch ending at its offset.
      if (first && lastEntry !== undefined && batch.header.lastOffset !== lastEntry.offset) {
        throw new PagelogError(
          `index ${this.offsetIndex.file.path} is corrupt: its last entry says offset ${lastEntry.offset} ends the batch at ${start}, which ends at ${batch.header.lastOffset}`,
          ErrorCode.CORRUPT,
          { path: this.offsetIndex.file.path },
        );
      }
      if (first && lastEntry === undefined && batch.header.baseOffset !== this.baseOffset) throw this.#corruptAt({ position: 0, reason: "offset-gap", detail: `first batch starts at ${batch.header.baseOffset}` });
      first = false;
      this.#nextOffset = batch.header.lastOffset + 1;
      this.#noteTimestamp(batch.header);
      this.#bytesSinceIndexEntry = batch.position + batch.header.sizeInBytes - start;
    }
    if (first && lastEntry !== undefined) throw new PagelogError(`index ${this.offsetIndex.file.path} is corrupt: its last entry points past the last batch`, ErrorCode.CORRUPT, { path: this.offsetIndex.file.path });
    if (scanner.stop.reason !== undefined) throw this.#corruptAt(scanner.stop);
  }

  // ---- writing --------------------------------------------------------------------------

  /**
   * Appends one whole, valid batch (the caller encoded it) at the end of the log, then any
   * index entries the sparse rule asks for. Goes to the page cache only: see `flush()`.
   */
  async append(batch: Uint8Array, header: BatchHeader = readBatchHeader(batch)): Promise<void> {
    if (header.sizeInBytes !== batch.length) throw new RangeError(`batch is ${batch.length} bytes but its header says ${header.sizeInBytes}`);
    if (header.baseOffset !== this.#nextOffset) {
      throw new RangeError(`batch base offset ${header.baseOffset} does not continue segment ${this.baseOffset} (next offset ${this.#nextOffset})`);
    }
    if (!this.canHold(header.lastOffset, batch.length)) throw new RangeError(`batch does not fit segment ${this.baseOffset}'s int32 offsets or positions`);
    const position = this.#size;
    this.#logUnsynced = true;
    await this.log.write(position, batch);
    this.#size += batch.length;
    await this.#indexBatch(header, position);
  }

  /**
   * Appends several whole, valid, consecutive batches with one write (group commit), then their
   * index entries: the same bytes and entries as appending them one by one.
   */
  async appendBatches(batches: ReadonlyArray<{ readonly bytes: Uint8Array; readonly header: BatchHeader }>): Promise<void> {
    if (batches.length === 1) return this.append(batches[0]!.bytes, batches[0]!.header);
    let next = this.#nextOffset;
    let total = 0;
    for (const { bytes, header } of batches) {
      if (header.sizeInBytes !== bytes.length) throw new RangeError(`batch is ${bytes.length} bytes but its header says ${header.sizeInBytes}`);
      if (header.baseOffset !== next) throw new RangeError(`batch base offset ${header.baseOffset} does not continue segment ${this.baseOffset} (next offset ${next})`);
      next = header.lastOffset + 1;
      total += bytes.length;
    }
    if (!this.canHold(next - 1, total)) throw new RangeError(`batches do not fit segment ${this.baseOffset}'s int32 offsets or positions`);
    const joined = new Uint8Array(total);
    let at = 0;
    for (const { bytes } of batches) {
      joined.set(bytes, at);
      at += bytes.length;
    }
    let position = this.#size;
    this.#logUnsynced = true;
    await this.log.write(position, joined);
    this.#size += total;
    for (const { header } of batches) {
      await this.#indexBatch(header, position);
      position += header.sizeInBytes;
    }
  }

  /**
   * The sparse rule, shared by append and recovery so both build the same index: before a batch,
   * if more than `indexIntervalBytes` were written since the last entry, add an entry for it
   * (its last offset and its position) and a time entry for the largest timestamp so far.
   */
  async #indexBatch(header: BatchHeader, position: number): Promise<void> {
    this.#noteTimestamp(header);
    // A full index takes no more entries: lookups stay correct, only sparser, and the Log rolls
    // before its next write (a group commit can fill an index in the middle of its write).
    if (this.#bytesSinceIndexEntry > this.#options.indexIntervalBytes && !this.indexFull) {
      await this.offsetIndex.append(header.lastOffset, position);
      await this.timeIndex.maybeAppend(this.#maxTimestamp, this.#offsetOfMaxTimestamp);
      this.#bytesSinceIndexEntry = 0;
    }
    this.#bytesSinceIndexEntry += header.sizeInBytes;
    this.#nextOffset = header.lastOffset + 1;
  }

  #noteTimestamp(header: BatchHeader): void {
    if (header.maxTimestamp > this.#maxTimestamp) {
      this.#maxTimestamp = header.maxTimestamp;
      this.#offsetOfMaxTimestamp = header.lastOffset;
    }
  }

  /**
   * Drops the batch holding `offset` and every later one (Kafka truncates whole batches). Returns
   * the new next offset, which is below `offset` when `offset` was inside a batch: the caller
   * re-appends the records it wants to keep. Not durable until `flush()`.
   */
  async truncateTo(offset: number): Promise<number> {
    await this.#loadIndexes();
    if (offset >= this.#nextOffset) return this.#nextOffset;
    const found = await this.#findBatch(Math.max(offset, this.baseOffset));
    const position = found?.position ?? this.#size;
    const newNext = found?.header.baseOffset ?? this.#nextOffset;
    this.#logUnsynced = true;
    await this.log.truncate(position);
    this.#size = position;
    await this.offsetIndex.truncateTo(newNext);
    await this.timeIndex.truncateTo(newNext);
    this.#nextOffset = this.baseOffset;
    this.#bytesSinceIndexEntry = 0;
    await this.#scanTail();
    return this.#nextOffset;
  }

  /**
   * fsync the log and both indexes: everything appended so far survives a power cut. A file not
   * written since its last sync is skipped (a durable append that added no index entry costs one
   * fsync, not three); `force` syncs all three, for recovery.
   */
  async flush({ force = false }: { force?: boolean } = {}): Promise<void> {
    // The log first: an index entry must never be durable while the batch it points at is not
    // (the sanity check would catch it, but there is no reason to make it work).
    if (this.#logUnsynced || force) {
      await this.log.sync();
      this.#logUnsynced = false;
    }
    await this.offsetIndex.sync({ force });
    await this.timeIndex.sync({ force });
  }

  /**
   * For a segment that will take no more appends (a roll, or a clean close): one last time-index
   * entry for its largest timestamp, as Kafka's onBecomeInactiveSegment adds.
   */
  async seal(): Promise<void> {
    if (this.#maxTimestamp !== NO_TIMESTAMP) await this.timeIndex.maybeAppend(this.#maxTimestamp, this.#offsetOfMaxTimestamp);
  }

  /** Whether the index entries are in memory (see `releaseIndexes`). */
  get indexesLoaded(): boolean {
    return this.offsetIndex.loaded && this.timeIndex.loaded;
  }

  /**
   * Drops the in-memory copy of both indexes; the next lookup reads them back. The Log does this
   * for segments it is not using, so a large log costs memory only for what is read.
   */
  releaseIndexes(): void {
    this.offsetIndex.release();
    this.timeIndex.release();
  }

  async #loadIndexes(): Promise<void> {
    // The log's size bounds how many entries an index can hold: a larger file is not read.
    await this.offsetIndex.load(this.#size);
    await this.timeIndex.load(this.#size);
  }

  /** Closes the three handles. Not a flush. */
  async close(): Promise<void> {
    await Promise.all([this.log.close(), this.offsetIndex.close(), this.timeIndex.close()]);
  }

  // ---- reading --------------------------------------------------------------------------

  /**
   * Whole batches starting with the batch that holds `offset`, up to `maxBytes` in all but always
   * at least one batch (Kafka's minOneMessage), or null if `offset` is at or past the end. Each
   * batch's CRC is checked: a bad one is `PAGELOG_CORRUPT` naming the file and position, never
   * bytes handed on as if they were good.
   */
  async read(offset: number, maxBytes: number): Promise<SegmentRead | null> {
    await this.#loadIndexes();
    if (offset >= this.#nextOffset) return null;
    const target = Math.max(offset, this.baseOffset);
    return this.#fromIndex(this.offsetIndex.lookup(target), (start) => this.#readFrom(start, target, maxBytes));
  }

  async #readFrom(start: OffsetPosition, target: number, maxBytes: number): Promise<SegmentRead | null> {
    const chunkBytes = Math.min(1 << 20, Math.max(16 * 1024, maxBytes + this.#options.indexIntervalBytes));
    // Batches before the target are only stepped over (their offsets are still checked): a
    // damaged batch there must not make an intact later one unreadable. Every batch returned
    // has its CRC checked below.
    const scanner = this.#scanFrom(start, { chunkBytes, verifyCrc: false });
    const parts: Uint8Array[] = [];
    let total = 0;
    let first: { position: number; offset: number } | undefined;
    let lastOffset = -1;
    for (;;) {
      // Once a batch is taken, look at the next one's declared size before reading it: a batch
      // that would not fit is never read.
      if (first !== undefined) {
        const next = await scanner.peekSize();
        if (next === undefined || total + next > maxBytes) break;
      }
      const batch = await scanner.next();
      if (batch === null) break;
      if (batch.header.lastOffset < target) continue;
      const verdict = validateBatch(batch.bytes, 0, batch.bytes.length, this.#validateOptions());
      if (!verdict.ok) {
        // Hand on the good batches before it; the read that starts at it reports it.
        if (first !== undefined) break;
        throw this.#corruptAt({ position: batch.position, reason: verdict.reason, detail: verdict.detail });
      }
      first ??= { position: batch.position, offset: batch.header.baseOffset };
      parts.push(batch.bytes);
      total += batch.bytes.length;
      lastOffset = batch.header.lastOffset;
      if (total >= maxBytes) break;
    }
    if (first === undefined) {
      if (scanner.stop.reason !== undefined) throw this.#corruptAt(scanner.stop);
      return null;
    }
    // Batches are back to back on disk: one copy of the whole run when the scan still holds it.
    const run = scanner.buffered(first.position, first.position + total);
    if (run !== undefined) return { bytes: run.slice(), position: first.position, firstOffset: first.offset, lastOffset };
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return { bytes, position: first.position, firstOffset: first.offset, lastOffset };
  }

  /**
   * The first offset whose record timestamp is at or after `timestamp` (Kafka's ListOffsets), or
   * null if every record is earlier. Exact: equal to a linear scan over the records.
   */
  async offsetForTimestamp(timestamp: number): Promise<number | null> {
    await this.#loadIndexes();
    if (this.#maxTimestamp < timestamp) return null;
    const before = this.timeIndex.lookupBefore(timestamp);
    if (before !== undefined) {
      try {
        // (An entry of NO_TIMESTAMP names the base offset, not a batch: nothing to check.)
        const entry = this.#namesBase(before) ? undefined : before;
        return await this.#fromIndex(this.offsetIndex.lookup(before.offset), (from) => this.#offsetForTimestampFrom(from, timestamp, entry));
      } catch (err) {
        // The time index's entry is not what the log holds there (or the walk met damage, which
        // the walk from the start below meets again and reports).
        if (!(err instanceof PagelogError && err.code === ErrorCode.CORRUPT)) throw err;
      }
    }
    return this.#offsetForTimestampFrom({ offset: this.baseOffset, position: 0 }, timestamp, undefined);
  }

  /**
   * The walk of `offsetForTimestamp`. With `entry` (the time-index entry it starts from), it also
   * checks that entry against the log: a real one names the last offset of a batch whose
   * maxTimestamp it holds, and no record up to it reaches the timestamp asked for. A lying entry
   * would start the walk past the answer: `PAGELOG_CORRUPT`, and the caller walks from the start.
   */
  async #offsetForTimestampFrom(start: OffsetPosition, timestamp: number, entry: TimestampOffset | undefined): Promise<number | null> {
    const scanner = this.#scanFrom(start, {});
    let unchecked = entry;
    for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
      if (unchecked !== undefined && batch.header.lastOffset >= unchecked.offset) {
        if (batch.header.lastOffset !== unchecked.offset || batch.header.maxTimestamp !== unchecked.timestamp) throw this.#timeEntryLies(unchecked);
        unchecked = undefined;
      }
      // Every batch passed over is decoded too, not skipped on its header's say-so: the decoder
      // refuses a maxTimestamp that disagrees with the records (a few batches: the time index
      // brought the walk close).
      const decoded = await decodeBatch(batch.bytes.slice(), { verifyCrc: false });
      if (batch.header.maxTimestamp < timestamp) continue;
      if (entry !== undefined && batch.header.lastOffset <= entry.offset) throw this.#timeEntryLies(entry);
      const record = decoded.records.find((r) => r.timestamp >= timestamp);
      if (record !== undefined) return record.offset;
    }
    if (scanner.stop.reason !== undefined) throw this.#corruptAt(scanner.stop);
    if (unchecked !== undefined) throw this.#timeEntryLies(unchecked);
    return null;
  }

  /**
   * The one time-index entry that names no batch: NO_TIMESTAMP at the base offset, written while
   * every record's timestamp was negative. Any other entry is a batch's (largest timestamp so
   * far, its last offset).
   */
  #namesBase(entry: TimestampOffset): boolean {
    return entry.timestamp === NO_TIMESTAMP && entry.offset === this.baseOffset;
  }

  #timeEntryLies(entry: TimestampOffset): PagelogError {
    return new PagelogError(
      `index ${this.timeIndex.file.path} is corrupt: its entry (timestamp ${entry.timestamp}, offset ${entry.offset}) is not what the log holds`,
      ErrorCode.CORRUPT,
      { path: this.timeIndex.file.path },
    );
  }

  /** The batch holding `offset` and its position, or undefined past the end. */
  async #findBatch(offset: number): Promise<{ position: number; header: BatchHeader } | undefined> {
    await this.#loadIndexes();
    return this.#fromIndex(this.offsetIndex.lookup(offset), async (start) => {
      const scanner = this.#scanFrom(start, { verifyCrc: false });
      for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
        if (batch.header.lastOffset >= offset) return { position: batch.position, header: batch.header };
      }
      if (scanner.stop.reason !== undefined) throw this.#corruptAt(scanner.stop);
      return undefined;
    });
  }

  /**
   * Runs a walk from an index lookup's answer and, if it meets damage, once more from the
   * segment's start. After a clean shutdown an index is checked for its structure, not entry by
   * entry: an entry naming the wrong batch must cost a longer walk, never a readable record.
   * (Damage in the log itself fails both walks and is reported.)
   */
  async #fromIndex<T>(start: OffsetPosition, run: (start: OffsetPosition) => Promise<T>): Promise<T> {
    try {
      return await run(start);
    } catch (err) {
      if (start.position === 0 || !(err instanceof PagelogError && err.code === ErrorCode.CORRUPT)) throw err;
      return run({ offset: this.baseOffset, position: 0 });
    }
  }

  /**
   * A walk from an offset-index lookup's answer that first checks the batch there is the one the
   * index names: position 0 holds the segment's first batch, starting at the base offset; any
   * other position is an entry's, whose batch ends at the entry's offset. (Later batches are
   * checked to continue it.) Without this, a batch whose baseOffset field was damaged (the CRC
   * does not cover it) would be read, or truncated at, with wrong offsets.
   */
  #scanFrom(start: OffsetPosition, extra: Partial<ScanOptions>): BatchScanner {
    const expected = start.position === 0 ? { expectedOffset: this.baseOffset } : { expectedLastOffset: start.offset };
    return new BatchScanner(this.log, this.#size, start.position, this.#scanOptions({ ...expected, ...extra }));
  }

  // `maxBatchBytes` limits what is appended, never what is read back: a batch written under a
  // larger setting is still a valid batch. What bounds memory is the file's own size.
  #validateOptions(): { maxBatchBytes: number; crc32c?: Crc32c } {
    return { maxBatchBytes: Number.MAX_SAFE_INTEGER, ...(this.#options.crc32c === undefined ? {} : { crc32c: this.#options.crc32c }) };
  }

  #scanOptions(extra: Partial<ScanOptions>): ScanOptions {
    return {
      segmentBaseOffset: this.baseOffset,
      ...(this.#options.crc32c === undefined ? {} : { crc32c: this.#options.crc32c }),
      ...extra,
    };
  }

  #corruptAt(stop: ScanStop): PagelogError {
    return new PagelogError(`segment ${this.log.path} is corrupt at byte ${stop.position}: ${stop.detail}`, ErrorCode.CORRUPT, { path: this.log.path });
  }
}
