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
//
// This file is the class shell: opening the three files and the public surface. The work is in
// plain functions over `SegmentState` (segment-state.ts): segment-load.ts (plan, then commit;
// loaded on first use through lazy-segment-load.ts), segment-write.ts and segment-read.ts.
import { checkKnownKeys, optionKeys } from "../options.js";
import type { BatchHeader } from "../format/index.js";
import { readBatchHeader } from "../format/index.js";
import { loadCrc32cCheck } from "./load/door-crc-check.js";
import { evictFirst } from "../storage/pool/unpooled-file.js";
import type { Storage, StorageFile } from "../storage/storage.js";
import type { ScanStop } from "./batch-scanner.js";
import type { WalkedBatch } from "./segment-follow.js";
import { OffsetIndex } from "./offset-index.js";
import { loadSegmentLoad } from "./load/lazy-segment-load.js";
import { loadSegmentTimeLookup } from "./load/door-segment-time.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "./segment-names.js";
import { readSegment } from "./segment-read.js";
import { indexFull, type SegmentState } from "./segment-state.js";
import type { RecoverOptions, SegmentOptions, SegmentRead, SegmentRecovery } from "./segment-types.js";
import { flushSegment } from "./segment-flush.js";
import { appendBatch, appendBatches, canHold, seal } from "./segment-write.js";
import { NO_TIMESTAMP, TimeIndex } from "./time-index.js";

export type { RecoverOptions, SegmentOptions, SegmentRead, SegmentRecovery } from "./segment-types.js";
export type { WalkedBatch } from "./segment-follow.js";

const SEGMENT_OPTIONS = optionKeys<SegmentOptions>({
  indexIntervalBytes: true,
  maxIndexBytes: true,
  maxBatchBytes: true,
  crc32c: true,
  policies: true,
  offsetGaps: true,
});
const RECOVER_OPTIONS = optionKeys<RecoverOptions>({ minNextOffset: true, endOffset: true });

/**
 * One segment of a partition: a `.log` of record batches with its `.index` and `.timeindex`, all through a `Storage`.
 * `Segment.open` opens (or creates) the three files; `recover()` validates and rebuilds after a crash, `loadClean()`
 * trusts a cleanly closed one; then append, read, truncate, flush and close.
 */
export class Segment {
  #closed = false;
  /** The segment's first offset: its files are named after it (`00000000000000000042.log`). */
  readonly baseOffset: number;
  /** The `.log` file's handle. */
  readonly log: StorageFile;
  /** The `.index`: offsets to byte positions. */
  readonly offsetIndex: OffsetIndex;
  /** The `.timeindex`: timestamps to offsets. */
  readonly timeIndex: TimeIndex;
  /** Everything that changes as the segment is loaded, written and read (see segment-state.ts). */
  readonly #s: SegmentState;

  private constructor(
    baseOffset: number,
    log: StorageFile,
    offsetIndex: OffsetIndex,
    timeIndex: TimeIndex,
    options: SegmentOptions,
    indexFilesWereMissing: boolean,
    size: number,
  ) {
    this.baseOffset = baseOffset;
    this.log = log;
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.#s = {
      baseOffset,
      log,
      offsetIndex,
      timeIndex,
      options,
      size,
      nextOffset: baseOffset,
      maxTimestamp: NO_TIMESTAMP,
      offsetOfMaxTimestamp: baseOffset,
      bytesSinceIndexEntry: 0,
      indexFilesWereMissing,
      logUnsynced: false,
      pendingTruncate: undefined,
      pendingCommit: undefined,
      readAhead: undefined,
    };
  }

  /**
   * Opens the segment's three files in `dir`, creating any that are missing: a new segment.
   * `fileSuffix` is added to each file's name (`.cleaned`: the log cleaner's segment in the making).
   */
  static async open(
    storage: Storage,
    dir: string,
    baseOffset: number,
    options: SegmentOptions,
    fileSuffix = "",
  ): Promise<Segment> {
    return Segment.#open(storage, dir, baseOffset, options, "create", fileSuffix);
  }

  /**
   * Opens an existing segment for loading, creating nothing: index files that are missing are
   * created only when a rebuild is committed, since the open may still reject the log (and an
   * open that rejects changes no file). Call `planRecovery()` or `planLoadClean()`, then
   * `commit()`, before using it.
   * @internal
   */
  static async openExisting(
    storage: Storage,
    dir: string,
    baseOffset: number,
    options: SegmentOptions,
    fileSuffix = "",
  ): Promise<Segment> {
    return Segment.#open(storage, dir, baseOffset, options, "existing", fileSuffix);
  }

  /**
   * Opens a segment another process may be writing, for reading only: every file with
   * `{ readOnly: true }`, a missing one (even the `.log`) as an empty file that refuses writes.
   * Load it with `planFollow()` (its indexes stay in memory) or `planLoadClean()`, never
   * `commit()`. `fileSuffix` as for `open` (`.swap`: a cleaned segment an interrupted swap left).
   * @internal
   */
  static async openReadOnly(
    storage: Storage,
    dir: string,
    baseOffset: number,
    options: SegmentOptions,
    fileSuffix = "",
  ): Promise<Segment> {
    return Segment.#open(storage, dir, baseOffset, options, "readOnly", fileSuffix);
  }

  static async #open(
    storage: Storage,
    dir: string,
    baseOffset: number,
    options: SegmentOptions,
    mode: "create" | "existing" | "readOnly",
    fileSuffix = "",
  ): Promise<Segment> {
    const create = mode === "create";
    checkKnownKeys(options, "Segment options", SEGMENT_OPTIONS);
    // Checked only when given (a segment of a log given one: checked at the log's open too).
    if (options.crc32c !== undefined) (await loadCrc32cCheck()).checkCrc32c(options.crc32c, "options.crc32c");
    // An existing segment is opened to be loaded, by a part that loads the segment's load with its
    // own chunk: the opening of its files, and the stand-ins for missing ones, are there
    // (`openExistingFile`).
    const load = create ? undefined : await loadSegmentLoad();
    // A suffix (`.cleaned`, `.swap`) names a segment the log cleaner is building or swapping in.
    const logPath = segmentFilePath(dir, baseOffset, LOG_SUFFIX) + fileSuffix;
    const indexPath = segmentFilePath(dir, baseOffset, INDEX_SUFFIX) + fileSuffix;
    const timePath = segmentFilePath(dir, baseOffset, TIME_INDEX_SUFFIX) + fileSuffix;
    // A missing index is rebuilt (read-only: in memory; else created on its first write).
    const openIndex = async (path: string): Promise<{ file: StorageFile; missing: boolean }> => {
      if (!create) return load!.openExistingFile(storage, path, mode === "readOnly");
      const missing = (await storage.stat(path)) === null;
      return { file: await storage.open(path, { create }), missing };
    };
    const log =
      mode === "readOnly"
        ? (await load!.openExistingFile(storage, logPath, true)).file
        : await storage.open(logPath, { create });
    const handles: StorageFile[] = [log];
    try {
      const { file: indexFile, missing: indexMissing } = await openIndex(indexPath);
      handles.push(indexFile);
      const { file: timeFile, missing: timeMissing } = await openIndex(timePath);
      handles.push(timeFile);
      const offsetIndex = await OffsetIndex.open(
        indexFile,
        baseOffset,
        options.maxIndexBytes,
        options.policies?.lookup,
      );
      const timeIndex = await TimeIndex.open(timeFile, baseOffset, options.maxIndexBytes);
      return new Segment(
        baseOffset,
        log,
        offsetIndex,
        timeIndex,
        options,
        indexMissing || timeMissing,
        await log.size(),
      );
    } catch (err) {
      await Promise.allSettled(handles.map((h) => h.close()));
      throw err;
    }
  }

  /** Bytes in the `.log`. */
  get size(): number {
    return this.#s.size;
  }

  /** The offset the next appended batch must start at (one past the last record). */
  get nextOffset(): number {
    return this.#s.nextOffset;
  }

  /** Largest batch timestamp in the segment, or -1 when empty. */
  get maxTimestamp(): number {
    return this.#s.maxTimestamp;
  }

  /** True if either index has no room for another entry: the Log must roll. */
  get indexFull(): boolean {
    return indexFull(this.#s);
  }

  /** Whether a batch ending at `lastOffset` of `bytes` bytes still fits this segment's int32 fields. */
  canHold(lastOffset: number, bytes: number): boolean {
    return canHold(this.#s, lastOffset, bytes);
  }

  // ---- opening (segment-load.ts) -----------------------------------------------------------
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
   * `rewriteFrom`: the walk writes the valid batches holding offsets from there back over
   * themselves, unchanged (an unclean open's rewrite above the recovery point: the content of
   * the file does not change, and `commit()`'s fsync then really writes those pages).
   * @internal
   */
  planRecovery(options: RecoverOptions = {}, rewriteFrom?: number): Promise<SegmentRecovery> {
    checkKnownKeys(options, "recover options", RECOVER_OPTIONS);
    return loadSegmentLoad().then((load) => load.planRecovery(this.#s, options, rewriteFrom));
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

  /**
   * A read-only walk of a segment another process may be writing: every batch from byte 0 is
   * validated and indexed in memory (the indexes stay there: nothing is ever written), and the
   * walk ends, without error, at the first byte that is not a valid batch: the end for now.
   * Each batch is told to `onBatch`. Returns where it stopped.
   * @internal
   */
  planFollow(onBatch?: (batch: WalkedBatch) => void): Promise<ScanStop> {
    return loadSegmentLoad().then((load) => load.planFollow(this.#s, onBatch));
  }

  /**
   * After `planFollow()`: walks the bytes the file gained since (up to `fileSize`) and extends
   * the segment (next offset, size, in-memory indexes) by the whole valid batches among them.
   * @internal
   */
  catchUp(fileSize: number, onBatch?: (batch: WalkedBatch) => void): Promise<ScanStop> {
    return loadSegmentLoad().then((load) => load.catchUp(this.#s, fileSize, onBatch));
  }

  /** The reading half of `loadClean()`: any rebuild stays in memory until `commit()`. @internal */
  planLoadClean(): Promise<{ indexesRebuilt: boolean }> {
    return loadSegmentLoad().then((load) => load.planLoadClean(this.#s));
  }

  /**
   * Writes what the last plan decided: the cut, then the rebuilt indexes, then fsyncs (a
   * recovery syncs all three files: it cannot know what an earlier process left in the page
   * cache). Durable before anything is appended: a truncation only in the page cache could be
   * undone by a crash, and the cut bytes (which may hold CRC-valid old batches) would come back.
   * @internal
   */
  commit(): Promise<void> {
    return loadSegmentLoad().then((load) => load.commit(this.#s));
  }

  // ---- writing (segment-write.ts) ----------------------------------------------------------

  /**
   * Appends one whole, valid batch (the caller encoded it) at the end of the log, then any
   * index entries the sparse rule asks for. Goes to the page cache only: see `flush()`.
   */
  async append(batch: Uint8Array, header: BatchHeader = readBatchHeader(batch)): Promise<void> {
    // async: a header that cannot be read rejects, as it always did, rather than throwing.
    return appendBatch(this.#s, batch, header);
  }

  /**
   * Appends several whole, valid, consecutive batches with one write (group commit), then their
   * index entries: the same bytes and entries as appending them one by one.
   */
  appendBatches(batches: ReadonlyArray<{ readonly bytes: Uint8Array; readonly header: BatchHeader }>): Promise<void> {
    return appendBatches(this.#s, batches);
  }

  /**
   * Drops the batch holding `offset` and every later one (Kafka truncates whole batches). Returns
   * the new next offset, which is below `offset` when `offset` was inside a batch: the caller
   * re-appends the records it wants to keep. Not durable until `flush()`.
   */
  truncateTo(offset: number): Promise<number> {
    // Part of the segment's load (loaded before anything changes; truncation's door loads it with its own).
    return loadSegmentLoad().then((load) => load.truncateSegment(this.#s, offset));
  }

  /**
   * fsync the log and both indexes: everything appended so far survives a power cut. A file not
   * written since its last sync is skipped; `force` syncs all three, for recovery. With
   * `indexes: false` only the log is synced: the active segment's indexes may lag, because
   * recovery rebuilds every segment from the recovery point's on from the log itself, and a
   * roll or a clean close makes them durable (so a durable append costs one fsync).
   */
  flush(options: { force?: boolean; indexes?: boolean } = {}): Promise<void> {
    checkKnownKeys(options, "flush options", ["force", "indexes"]);
    return flushSegment(this.#s, options);
  }

  /**
   * For a segment that will take no more appends (a roll, or a clean close): one last time-index
   * entry for its largest timestamp, as Kafka's onBecomeInactiveSegment adds.
   */
  seal(): Promise<void> {
    return seal(this.#s);
  }

  /** Bytes of both indexes' entries (what holding them in memory costs). */
  get indexBytes(): number {
    return this.offsetIndex.sizeInBytes + this.timeIndex.sizeInBytes;
  }

  /** Whether the index entries are in memory (see `releaseIndexes`). @internal */
  get indexesLoaded(): boolean {
    return this.offsetIndex.loaded && this.timeIndex.loaded;
  }

  /**
   * Drops the in-memory copy of both indexes; the next lookup reads them back. The Log does this
   * for segments it is not using, so a large log costs memory only for what is read.
   * @internal
   */
  releaseIndexes(): void {
    this.offsetIndex.release();
    this.timeIndex.release();
  }

  /**
   * Says the index files will not be needed soon: their entries are in memory and the segment
   * takes no appends (the Log calls it for segments it reads that are not the active one). In a
   * `HandlePool` their descriptors are then the first to close, before the `.log` of any
   * segment being read (see docs/file-descriptors.md). A hint only: any later use reopens them.
   * @internal
   */
  indexFilesIdle(): void {
    evictFirst(this.offsetIndex.file);
    evictFirst(this.timeIndex.file);
  }

  /** Whether `close()` was called: the log no longer holds it. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the three handles. Not a flush. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#s.readAhead = undefined;
    await Promise.all([this.log.close(), this.offsetIndex.close(), this.timeIndex.close()]);
  }

  // ---- reading (segment-read.ts) -----------------------------------------------------------

  /**
   * Whole batches starting with the batch that holds `offset`, up to `maxBytes` in all but always
   * at least one batch (Kafka's minOneMessage), or null if `offset` is at or past the end. Each
   * batch's CRC is checked: a bad one is `PAGELOG_CORRUPT` naming the file and position, never
   * bytes handed on as if they were good.
   */
  read(offset: number, maxBytes: number): Promise<SegmentRead | null> {
    return readSegment(this.#s, offset, maxBytes);
  }

  /**
   * The first offset whose record timestamp is at or after `timestamp` (Kafka's ListOffsets), or
   * null if every record is earlier. Exact: equal to a linear scan over the records.
   */
  offsetForTimestamp(timestamp: number): Promise<number | null> {
    return loadSegmentTimeLookup().then((part) => part.segmentOffsetForTimestamp(this.#s, timestamp));
  }
}
