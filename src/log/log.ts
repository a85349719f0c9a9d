/**
 * One partition's log: segments that roll, a flush policy that is off by default, a recovery
 * point that only moves after the bytes below it are durable, truncation, retention and reads.
 * Created by `LogDir.log()`, which owns the lock, the checkpoints and the clean-shutdown marker.
 *
 * Every call goes through one queue: calls that overlap in time are applied in call order and
 * never interleave bytes. Any storage failure while writing (above all a failed fsync) puts the
 * log in the `failed` state: it refuses writes until reopened, because after a failed fsync
 * nothing can say which bytes reached the disk.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { type BatchHeader, decodeBatch, type DecodedRecord, encodeBatch, readBatchHeader, type RecordInput } from "../format/index.js";
import { LOG_OVERHEAD, LENGTH_OFFSET } from "../format/index.js";
import { Segment, type SegmentOptions } from "../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../segment/segment-names.js";
import type { Storage } from "../storage/storage.js";
import { deleteFrom, deleteSegmentFiles, loadLog, type LogRecovery } from "./log-loader.js";
import { MAX_TIMER_MS, type ResolvedLogOptions, systemClock } from "./log-options.js";
import { segmentsToDelete } from "./retention.js";
import { SerialQueue } from "./serial-queue.js";
import { encodeSnapshots } from "../format/record-batch.js";
import { describeValue, type RecordSnapshot, snapshotRecords } from "../format/record-codec.js";

export type { LogRecovery } from "./log-loader.js";

/** A record as read back: bytes are `Uint8Array`s, or null where they were null. */
export type LogRecord = DecodedRecord;

export type LogStatus = "open" | "closing" | "closed" | "failed";

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

export interface RecordsOptions {
  /** First offset. @defaultValue the log start offset */
  from?: number;
  /** Stop before this offset. @defaultValue the log end offset when each read runs */
  to?: number;
  /** Abort the iteration. */
  signal?: AbortSignal;
}

/** What a Log needs from its LogDir. */
export interface LogHost {
  readonly storage: Storage;
  /** Writes the directory's checkpoints durably (recovery points and log start offsets). */
  checkpoint(): Promise<void>;
  /** Called after every successful flush: the directory checkpoints when its interval is up. */
  flushed?(): Promise<void>;
}

const DEFAULT_READ_BYTES = 1 << 20;
/** Old segments whose indexes stay in memory after a read (see #touch). */
const WARM_SEGMENTS = 2;

interface PendingAppend {
  /** The caller's records as read once, when append() was called. */
  readonly records: readonly RecordSnapshot[];
  readonly resolve: (offsets: { baseOffset: number; lastOffset: number }) => void;
  readonly reject: (err: unknown) => void;
}

type LoadedState = Awaited<ReturnType<typeof loadLog>>;
/** Set by Log's static block: what `openLog` and `logEverFailed` need, kept out of Log's type. */
let construct: (name: string, host: LogHost, options: ResolvedLogOptions, segmentOptions: SegmentOptions, loaded: LoadedState) => Log;
let failureOf: (log: Log) => unknown;

export class Log {
  /** The partition directory's name, `<topic>-<partition>`. */
  readonly name: string;
  readonly options: Readonly<ResolvedLogOptions>;
  /** What opening this log had to do. */
  readonly recovery: LogRecovery;
  readonly #host: LogHost;
  readonly #segmentOptions: SegmentOptions;
  readonly #queue = new SerialQueue();
  #segments: Segment[];
  #startOffset: number;
  #recoveryPoint: number;
  #status: LogStatus = "open";
  #failure: unknown;
  #unflushedRecords = 0;
  #lastFlushAt: number;
  #activeCreatedAt: number;
  /** A segment file was created or removed since the directory was last synced. */
  #dirDirty = false;
  /**
   * Segments written since the last flush (log bytes or index entries, including the final
   * time-index entry a roll adds): every one is synced before the recovery point moves.
   */
  #dirtySegments = new Set<Segment>();
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The first close()'s promise: every later call returns it. */
  #closing: Promise<void> | undefined;
  /** Segments other than the active one whose indexes are in memory, least recently used first. */
  #warm: Segment[] = [];
  /** Appends waiting for the next group write; closed by any other call so call order holds. */
  #openGroup: PendingAppend[] | undefined;

  static {
    construct = (name, host, options, segmentOptions, loaded) => new Log(name, host, options, segmentOptions, loaded);
    failureOf = (log) => log.#failure;
  }

  private constructor(name: string, host: LogHost, options: ResolvedLogOptions, segmentOptions: SegmentOptions, loaded: LoadedState) {
    this.name = name;
    this.#host = host;
    this.options = options;
    this.#segmentOptions = segmentOptions;
    this.#segments = loaded.segments;
    this.#startOffset = loaded.startOffset;
    this.recovery = loaded.recovery;
    // Loading left everything durable: the whole log is below the recovery point.
    this.#recoveryPoint = this.endOffset;
    this.#lastFlushAt = this.#activeCreatedAt = options.clock.now();
    // The append path checks flushMs too; the timer covers a log that went quiet. With an
    // injected clock there is no timer: real time must not decide when a test's log flushes.
    // flushMs 0 flushes at every append, so a timer would have nothing to do.
    if (options.flushMs > 0 && options.clock === systemClock) this.#scheduleFlushTimer();
  }

  /**
   * Arms the flush timer for when the next flush is due. It re-arms only after its own flush
   * finished, so a slow disk never builds a queue of timed flushes for `flush()` to wait behind.
   */
  #scheduleFlushTimer(): void {
    const due = this.#lastFlushAt + this.options.flushMs - this.options.clock.now();
    const timer = setTimeout(() => {
      void this.#timedFlush().finally(() => {
        if (this.#flushTimer === timer && this.#status === "open") this.#scheduleFlushTimer();
      });
    }, Math.min(MAX_TIMER_MS, Math.max(1, due)));
    this.#flushTimer = timer;
    (timer as { unref?: () => void }).unref?.();
  }

  // ---- state ----------------------------------------------------------------------------

  /** The first offset that can be read (moves forward with deleteRecordsBefore and retention). */
  get startOffset(): number {
    return this.#startOffset;
  }

  /** The offset the next appended record gets (Kafka's log end offset). */
  get endOffset(): number {
    return this.#active.nextOffset;
  }

  /** Every offset below this is durable: it survives any power cut. */
  get recoveryPoint(): number {
    return this.#recoveryPoint;
  }

  /** Bytes in all `.log` files. */
  get size(): number {
    return this.#segments.reduce((sum, s) => sum + s.size, 0);
  }

  get segmentCount(): number {
    return this.#segments.length;
  }

  get status(): LogStatus {
    return this.#status;
  }

  /** Base offsets of the segments, oldest first. */
  get segmentBaseOffsets(): number[] {
    return this.#segments.map((s) => s.baseOffset);
  }

  get #active(): Segment {
    return this.#segments[this.#segments.length - 1]!;
  }

  // ---- writing --------------------------------------------------------------------------

  /**
   * Appends the records as one batch and returns their offsets. Goes to the page cache: durable
   * once a `flush()` (or the flush policy) that started after it resolves. Bad records are
   * TypeErrors and a batch over `maxBatchBytes` is `PAGELOG_RECORD_TOO_LARGE`, both before
   * anything is written, and only that call fails.
   *
   * Group commit: appends that arrive while a write is in flight go out together, in call order,
   * in one write, and the flush policy then costs one fsync for the whole group.
   */
  append(records: readonly RecordInput[]): Promise<{ baseOffset: number; lastOffset: number }> {
    // Every field of every record is read once, now: later changes to the objects (or getters
    // that answer differently each time) cannot change what is written. Uint8Array contents are
    // read when the batch is written: leave them alone until the append resolves.
    let snapshot: RecordSnapshot[];
    try {
      snapshot = snapshotRecords(records);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      let group = this.#openGroup;
      if (group === undefined) {
        const fresh: PendingAppend[] = [];
        group = this.#openGroup = fresh;
        void this.#queue.run(() => this.#writeGroup(fresh));
      }
      group.push({ records: snapshot, resolve, reject });
    });
  }

  /** Queues a call that is not an append: it closes the open append group, so call order holds. */
  #run<T>(task: () => Promise<T>): Promise<T> {
    this.#openGroup = undefined;
    return this.#queue.run(task);
  }

  /** Writes one group of appends: each its own batch, consecutive batches in one write. */
  async #writeGroup(group: PendingAppend[]): Promise<void> {
    if (this.#openGroup === group) this.#openGroup = undefined; // later appends form the next group
    const now = this.options.clock.now();
    let pending: Array<{ bytes: Uint8Array; header: BatchHeader; item: PendingAppend }> = [];
    let pendingBytes = 0;
    let next = this.endOffset;
    const writePending = async () => {
      if (pending.length === 0) return;
      const out = pending;
      pending = [];
      pendingBytes = 0;
      this.#dirtySegments.add(this.#active);
      await this.#active.appendBatches(out);
      for (const p of out) this.#unflushedRecords += p.header.recordsCount;
    };
    const settled: Array<() => void> = [];
    try {
      for (const item of group) {
        try {
          this.#checkWritable("append");
        } catch (err) {
          settled.push(() => item.reject(err));
          continue;
        }
        let bytes: Uint8Array;
        try {
          bytes = encodeSnapshots(item.records, {
            baseOffset: next,
            timestamp: now,
            maxBatchBytes: this.options.maxBatchBytes,
            ...(this.options.crc32c === undefined ? {} : { crc32c: this.options.crc32c }),
          });
        } catch (err) {
          settled.push(() => item.reject(err)); // a bad append fails alone, before any I/O
          continue;
        }
        const header = readBatchHeader(bytes);
        await this.#guard(async () => {
          if (this.#needsRoll(pendingBytes, bytes.length, header, now)) {
            await writePending();
            await this.#roll(now);
          }
        });
        pending.push({ bytes, header, item });
        pendingBytes += bytes.length;
        next = header.lastOffset + 1;
        settled.push(() => item.resolve({ baseOffset: header.baseOffset, lastOffset: header.lastOffset }));
      }
      await this.#guard(async () => {
        await writePending();
        const { flushMessages, flushMs } = this.options;
        if ((flushMessages !== -1 && this.#unflushedRecords >= flushMessages) || (flushMs !== -1 && now - this.#lastFlushAt >= flushMs)) {
          await this.#flush();
        }
      });
    } catch (err) {
      // The group's write (or its flush) failed: none of it is acknowledged.
      for (const item of group) item.reject(err);
      return;
    }
    for (const settle of settled) settle();
  }

  /**
   * Makes every record appended so far durable, then advances the recovery point to the end.
   * Fails (and fails the log) if any fsync fails: a flush never reports data durable that is not.
   */
  flush(): Promise<void> {
    return this.#run(async () => {
      this.#checkWritable("flush");
      await this.#guard(() => this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const end = this.endOffset;
    for (const segment of this.#dirtySegments) await segment.flush();
    this.#dirtySegments.clear();
    // A segment created since the last flush is durable only once its name is: sync the
    // directory before claiming anything in it is durable.
    if (this.#dirDirty) {
      await this.#host.storage.syncDir(this.name);
      this.#dirDirty = false;
    }
    // Only now, after every fsync returned: the recovery point must never claim bytes the disk
    // does not have, or recovery would skip them and a torn batch could be served.
    this.#recoveryPoint = end;
    this.#unflushedRecords = 0;
    this.#lastFlushAt = this.options.clock.now();
    await this.#host.flushed?.();
  }

  async #timedFlush(): Promise<void> {
    if (this.#status !== "open" || this.options.flushMs === -1) return;
    if (this.options.clock.now() - this.#lastFlushAt < this.options.flushMs || this.#recoveryPoint === this.endOffset) return;
    await this.flush().catch(() => undefined); // the failure is kept in #status; callers see it on their next call
  }

  /**
   * Whether a batch of `bytes` (ending at `header.lastOffset`), after `pendingBytes` not yet
   * written, must go into a new segment.
   */
  #needsRoll(pendingBytes: number, batchBytes: number, header: BatchHeader, now: number): boolean {
    const active = this.#active;
    // A new segment takes any batch that fits its int32 fields.
    if (active.size === 0 && pendingBytes === 0) return false;
    const bytes = pendingBytes + batchBytes;
    const full = active.size + bytes > this.options.segmentBytes;
    const old = now - this.#activeCreatedAt >= this.options.segmentMs;
    return full || old || active.indexFull || !active.canHold(header.lastOffset, bytes);
  }

  async #roll(now: number): Promise<void> {
    this.#dirtySegments.add(this.#active);
    await this.#active.seal();
    this.#active.releaseIndexes(); // its entries are in the file; reads load them back
    const segment = await Segment.open(this.#host.storage, this.name, this.endOffset, this.#segmentOptions);
    // Nothing can legitimately be there (loading and truncation delete every segment past the
    // end, durably), but a stale file must never be read as part of this log.
    if (segment.size > 0) await segment.log.truncate(0);
    this.#segments.push(segment);
    this.#dirDirty = true;
    this.#activeCreatedAt = now;
    await this.#applyRetention(now);
  }

  /**
   * Drops every record at or after `offset`. Durable when it resolves: no crash after that can
   * bring a dropped record back. `offset` below the start offset is `PAGELOG_OFFSET_OUT_OF_RANGE`.
   */
  truncateTo(offset: number): Promise<void> {
    return this.#run(async () => {
      this.#checkWritable("truncateTo");
      checkOffset(offset, "offset");
      if (offset < this.#startOffset) throw outOfRange(offset, this.#startOffset, this.endOffset);
      if (offset >= this.endOffset) return;
      await this.#guard(async () => {
        let index = this.#segments.length - 1;
        while (this.#segments[index]!.baseOffset > offset) index--;
        const segment = this.#segments[index]!;
        // Segments cut whole batches. If `offset` falls inside one, its records below `offset`
        // must live on in a batch of their own, and they were durable: no crash may lose them.
        const holding = await segment.read(offset, 1);
        const straddling = holding === null || holding.firstOffset >= offset ? [] : await recordsBelow(holding.bytes, offset);
        // 1. Lower the durable recovery point to `offset` first. Otherwise a crash in the middle
        //    of the cut (a truncation undone, a page tail zeroed) would look like damage to
        //    flushed data. Every step below keeps the records below `offset` durable.
        if (this.#recoveryPoint > offset) {
          this.#recoveryPoint = offset;
          await this.#host.checkpoint();
        }
        if (straddling.length > 0) {
          await this.#replaceStraddlingBatch(index, holding!.firstOffset, straddling);
        } else {
          // 2. Cut: later segments newest first (a crash keeps a prefix), then this one.
          this.#dropSegmentsAfter(index);
          await deleteFrom(this.#host.storage, this.#segments, index + 1);
          this.#dirtySegments.add(segment);
          await segment.truncateTo(offset);
        }
        // 3. Durable before resolving.
        await this.#flush();
      });
    });
  }

  /** Forgets (for flushing) the segments after `index`, which the caller is about to delete. */
  #dropSegmentsAfter(index: number): void {
    if (index + 1 >= this.#segments.length) return;
    for (const s of this.#segments.slice(index + 1)) this.#dirtySegments.delete(s);
    this.#dirDirty = true;
  }

  /**
   * truncateTo inside a batch: the batch starting at `base` is replaced by one holding only
   * `keep` (its records below the truncation offset), and everything after it goes, such that
   * a crash at any point leaves the old log, the new one, or the old one cut somewhere past
   * `keep`, never one without `keep`.
   *
   * The new batch is written whole to `<base>.log.tmp` and fsynced, then renamed (atomically)
   * to `<base>.log`: a crash before the rename leaves a `.tmp` the next open removes. If `base`
   * starts the segment, that replaces the segment's file. Otherwise it is a new segment that
   * overlaps the old one until the old one is cut at `base`; the loader finishes that cut if a
   * crash comes first (an overlap can only mean this).
   */
  async #replaceStraddlingBatch(index: number, base: number, keep: readonly DecodedRecord[]): Promise<void> {
    const storage = this.#host.storage;
    const segment = this.#segments[index]!;
    const batch = encodeBatch(
      keep.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
      { baseOffset: base, ...(this.options.crc32c === undefined ? {} : { crc32c: this.options.crc32c }) },
    );
    const logPath = segmentFilePath(this.name, base, LOG_SUFFIX);
    const tmp = `${logPath}.tmp`;
    const file = await storage.open(tmp, { create: true });
    try {
      await file.truncate(0);
      await file.write(0, batch);
      await file.sync(); // the content is durable before its name can make it part of the log
    } finally {
      await file.close();
    }
    this.#dropSegmentsAfter(index);
    if (base === segment.baseOffset) {
      await deleteFrom(storage, this.#segments, index + 1);
      this.#dirtySegments.delete(segment);
      await segment.close();
    }
    await storage.rename(tmp, logPath);
    await storage.syncDir(this.name);
    const replacement = await Segment.open(storage, this.name, base, this.#segmentOptions);
    await replacement.recover(); // one batch: rebuilds (and fsyncs) its indexes
    if (base === segment.baseOffset) {
      this.#segments[index] = replacement;
    } else {
      this.#dirtySegments.add(segment);
      await segment.truncateTo(base);
      await segment.flush();
      await deleteFrom(storage, this.#segments, index + 1);
      this.#segments.push(replacement);
      this.#activeCreatedAt = this.options.clock.now();
    }
    this.#dirDirty = true;
  }

  /**
   * Moves the log start offset to `offset` (Kafka's DeleteRecords) and deletes every whole
   * segment below it, never the active one. Durable when it resolves.
   */
  deleteRecordsBefore(offset: number): Promise<void> {
    return this.#run(async () => {
      this.#checkWritable("deleteRecordsBefore");
      checkOffset(offset, "offset");
      if (offset > this.endOffset) throw outOfRange(offset, this.#startOffset, this.endOffset);
      if (offset <= this.#startOffset) return;
      await this.#guard(() => this.#moveStart(offset, (s) => s.nextOffset <= offset));
    });
  }

  /** Applies `retentionBytes` / `retentionMs` now (it also runs after every roll). */
  applyRetention(): Promise<void> {
    return this.#run(async () => {
      this.#checkWritable("applyRetention");
      await this.#guard(() => this.#applyRetention(this.options.clock.now()));
    });
  }

  async #applyRetention(now: number): Promise<void> {
    const { retentionBytes, retentionMs } = this.options;
    if (retentionBytes === -1 && retentionMs === -1) return;
    const count = segmentsToDelete(this.#segments, { retentionBytes, retentionMs, now });
    if (count === 0) return;
    const newStart = Math.max(this.#startOffset, this.#segments[count]!.baseOffset);
    await this.#moveStart(newStart, (_s, i) => i < count);
  }

  /**
   * Moves the start offset forward (checkpointed durably first, so a crash never shows records
   * below it again), then deletes the leading segments `doomed` picks, oldest first, and syncs
   * the directory.
   */
  async #moveStart(newStart: number, doomed: (segment: Segment, index: number) => boolean): Promise<void> {
    this.#startOffset = newStart;
    await this.#host.checkpoint();
    let count = 0;
    while (count < this.#segments.length - 1 && doomed(this.#segments[count]!, count)) count++;
    if (count === 0) return;
    for (const segment of this.#segments.splice(0, count)) {
      this.#dirtySegments.delete(segment);
      await deleteSegmentFiles(this.#host.storage, segment);
    }
    await this.#host.storage.syncDir(this.name);
  }

  // ---- reading --------------------------------------------------------------------------

  /**
   * Records with offset >= `offset`, from the segment holding it: at least one whole batch if
   * one exists there. `offset` equal to the end gives []; outside [start, end] is
   * `PAGELOG_OFFSET_OUT_OF_RANGE`. A bad CRC is `PAGELOG_CORRUPT`, never garbage.
   */
  read(offset: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    let maxRecords: number;
    let maxBytes: number;
    try {
      checkOffset(offset, "offset");
      checkOptionsObject(options, "read options");
      maxRecords = positiveInteger(options.maxRecords, "maxRecords", Number.POSITIVE_INFINITY);
      maxBytes = positiveInteger(options.maxBytes, "maxBytes", DEFAULT_READ_BYTES);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#run(async () => {
      this.#checkReadable();
      const raw = await this.#readBatches(offset, maxBytes);
      const out: LogRecord[] = [];
      for (let at = 0; at < raw.length && out.length < maxRecords; ) {
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
          if (r.offset >= offset && r.offset >= this.#startOffset && out.length < maxRecords) out.push(r);
        }
        at += size;
      }
      return out;
    });
  }

  /**
   * Whole raw batches starting with the one holding `offset`, as a Kafka Fetch response carries
   * them: bytes that can go to a socket or a file without decoding. The first batch may start
   * below `offset` (and below the start offset); consumers skip those records, as Kafka's do.
   */
  readBatches(offset: number, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
    let maxBytes: number;
    try {
      checkOffset(offset, "offset");
      checkOptionsObject(options, "readBatches options");
      maxBytes = positiveInteger(options.maxBytes, "maxBytes", DEFAULT_READ_BYTES);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#run(async () => {
      this.#checkReadable();
      return this.#readBatches(offset, maxBytes);
    });
  }

  /** `offset` and `maxBytes` were checked by the caller. */
  async #readBatches(offset: number, maxBytes: number): Promise<Uint8Array> {
    if (offset < this.#startOffset || offset > this.endOffset) throw outOfRange(offset, this.#startOffset, this.endOffset);
    let index = this.#segments.length - 1;
    while (index > 0 && this.#segments[index]!.baseOffset > offset) index--;
    for (; index < this.#segments.length; index++) {
      const segment = this.#segments[index]!;
      const read = await segment.read(offset, maxBytes);
      this.#touch(segment);
      if (read !== null) return read.bytes;
    }
    return new Uint8Array(0);
  }

  /** Every record from `from` (inclusive) to `to` (exclusive), read in batches as it goes. */
  async *records(options: RecordsOptions = {}): AsyncGenerator<LogRecord, void, undefined> {
    // Checked (and each option read once) at the first next(), as a generator can.
    checkOptionsObject(options, "records options");
    const { from, to, signal } = options as RecordsOptions;
    if (from !== undefined) checkOffset(from, "from");
    if (to !== undefined) checkOffset(to, "to");
    if (signal !== undefined && typeof (signal as { throwIfAborted?: unknown } | null)?.throwIfAborted !== "function") {
      throw new TypeError(`signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    let next = from ?? this.#startOffset;
    for (;;) {
      signal?.throwIfAborted();
      const limit = to ?? this.endOffset;
      if (next >= limit || next >= this.endOffset) return;
      const batch = await this.read(next);
      if (batch.length === 0) {
        if (next >= this.endOffset) return; // truncated meanwhile
        // The log holds offsets up to its end, so a read below it always finds a record: never
        // end an iteration early without saying why.
        throw new PagelogError(`log ${this.name} has no record at or after offset ${next}, below its end ${this.endOffset}`, ErrorCode.CORRUPT, { path: this.name });
      }
      for (const record of batch) {
        if (record.offset >= limit) return;
        // Every offset of a log holds a record: a batch that skips one (as only a compacted or
        // hostile batch can) would hand out a hole as if nothing were missing.
        if (record.offset !== next) {
          throw new PagelogError(`log ${this.name} has no record at offset ${next} (the next record is ${record.offset})`, ErrorCode.CORRUPT, { path: this.name });
        }
        signal?.throwIfAborted();
        yield record;
        next = record.offset + 1;
      }
    }
  }

  /**
   * The first offset whose record timestamp is at or after `timestamp` (Kafka's ListOffsets), or
   * null if there is none. Exact: the same answer as a linear scan.
   */
  offsetForTimestamp(timestamp: number): Promise<number | null> {
    if (typeof timestamp !== "number" || !Number.isSafeInteger(timestamp)) return Promise.reject(new TypeError(`timestamp must be a safe integer, got ${describeValue(timestamp)}`));
    return this.#run(async () => {
      this.#checkReadable();
      for (const segment of this.#segments) {
        if (segment.nextOffset <= this.#startOffset || segment.maxTimestamp < timestamp) continue;
        const found = await segment.offsetForTimestamp(timestamp);
        this.#touch(segment);
        if (found === null) continue;
        if (found >= this.#startOffset) return found;
        // The answer lies below the start offset: look again among the records from the start.
        let at = this.#startOffset;
        while (at < segment.nextOffset) {
          const read = await segment.read(at, DEFAULT_READ_BYTES);
          if (read === null) break;
          for (let p = 0; p < read.bytes.length; p += batchSize(read.bytes, p)) {
            const batch = await decodeBatch(read.bytes.subarray(p, p + batchSize(read.bytes, p)), { verifyCrc: false });
            const hit = batch.records.find((r) => r.offset >= this.#startOffset && r.timestamp >= timestamp);
            if (hit !== undefined) return hit.offset;
          }
          at = read.lastOffset + 1;
        }
      }
      return null;
    });
  }

  /**
   * Keeps the indexes of at most WARM_SEGMENTS segments besides the active one in memory (a
   * consumer reading an old segment keeps its index; one that moved on lets it go).
   */
  #touch(segment: Segment): void {
    if (segment === this.#active) return;
    this.#warm = [...this.#warm.filter((s) => s !== segment && this.#segments.includes(s)), segment];
    while (this.#warm.length > WARM_SEGMENTS) {
      const cold = this.#warm.shift()!;
      if (cold !== this.#active) cold.releaseIndexes();
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------

  /**
   * Flushes everything, adds each active segment's final time-index entry, and closes the files.
   * A crash anywhere in here still recovers correctly: nothing is removed or rewritten.
   * `LogDir.close()` calls it for every open log, then writes the checkpoints and the clean-shutdown marker.
   */
  close(): Promise<void> {
    // Every call gets the first call's promise (LogDir.close() calls it too).
    this.#closing ??= this.#run(async () => {
      this.#stopTimer();
      if (this.#status === "failed") {
        await Promise.allSettled(this.#segments.map((s) => s.close()));
        this.#status = "closed";
        throw this.#failedError("close");
      }
      this.#status = "closing";
      try {
        this.#dirtySegments.add(this.#active);
        await this.#active.seal();
        await this.#flush();
        for (const segment of this.#segments) await segment.close();
        this.#status = "closed";
      } catch (err) {
        this.#fail(err);
        throw err;
      }
    });
    return this.#closing;
  }


  #stopTimer(): void {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  async #guard<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof TypeError || err instanceof RangeError)) this.#fail(err);
      throw err;
    }
  }

  #fail(err: unknown): void {
    this.#status = "failed";
    this.#failure ??= err;
    this.#stopTimer();
  }

  #failedError(op: string): PagelogError {
    return new PagelogError(`log ${this.name} failed earlier and refuses ${op} until it is reopened`, ErrorCode.FAILED, { cause: this.#failure, path: this.name });
  }

  #checkWritable(op: string): void {
    if (this.#status === "failed") throw this.#failedError(op);
    if (this.#status !== "open") throw new PagelogError(`log ${this.name} is ${this.#status} (${op})`, ErrorCode.CLOSED, { path: this.name });
  }

  #checkReadable(): void {
    if (this.#status === "closed" || this.#status === "closing") throw new PagelogError(`log ${this.name} is ${this.#status}`, ErrorCode.CLOSED, { path: this.name });
  }

  /** `await using`: the same promise as `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The records below `offset` of the first batch in `bytes` (the batch that straddles it). */
async function recordsBelow(bytes: Uint8Array, offset: number): Promise<DecodedRecord[]> {
  const batch = await decodeBatch(bytes.subarray(0, batchSize(bytes, 0)));
  return batch.records.filter((r) => r.offset < offset);
}

/** Whole size of the batch at `position` in a buffer of back-to-back batches. */
function batchSize(bytes: Uint8Array, position: number): number {
  return LOG_OVERHEAD + new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(position + LENGTH_OFFSET);
}

function checkOffset(offset: unknown, name: string): asserts offset is number {
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
    throw new TypeError(`${name} must be a non-negative safe integer, got ${describeValue(offset)}`);
  }
}

/** An options argument: a plain object (not null, not an array, not a string). */
function checkOptionsObject(options: unknown, what: string): asserts options is Record<string, unknown> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new TypeError(`${what} must be an object, got ${describeValue(options)}`);
}

/** An optional positive safe integer option, or `fallback` when undefined. */
function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive safe integer, got ${describeValue(value)}`);
  return value;
}

function outOfRange(offset: number, start: number, end: number): PagelogError {
  return new PagelogError(`offset ${offset} is out of range [${start}, ${end}]`, ErrorCode.OFFSET_OUT_OF_RANGE);
}

/**
 * Opens (loading, and recovering as needed) one partition's log: what `LogDir.log()` does after
 * taking care of the directory. Not part of the package's API.
 */
export async function openLog(
  name: string,
  host: LogHost,
  options: ResolvedLogOptions,
  state: { clean: boolean; recoveryPoint: number | undefined; logStartOffset: number | undefined },
): Promise<Log> {
  const segmentOptions: SegmentOptions = {
    indexIntervalBytes: options.indexIntervalBytes,
    maxIndexBytes: options.maxIndexBytes,
    maxBatchBytes: options.maxBatchBytes,
    ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
  };
  const loaded = await loadLog({ storage: host.storage, dir: name, segmentOptions, ...state });
  return construct(name, host, options, segmentOptions, loaded);
}

/** True if the log ever failed (its LogDir then writes no clean-shutdown marker). */
export function logEverFailed(log: Log): boolean {
  return failureOf(log) !== undefined;
}
