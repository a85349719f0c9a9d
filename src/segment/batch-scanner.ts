/**
 * Walks the record batches of a `.log` file from a byte position, reading in large chunks so a
 * walk costs a few reads per megabyte, not one per batch. Each step either yields a whole batch
 * (validated: length, size limit, magic, CRC-32C, offsets continuing from the previous batch)
 * or stops with the reason the bytes at that position are not one.
 *
 * It never allocates from a length field: a batch is read only after its declared size was
 * checked against the bytes the file holds (and `maxBatchBytes`, when given).
 */
import { type BatchHeader, type Crc32c, type InvalidBatchReason, readBatchHeader } from "../format/index.js";
import { validateBatchTrusting } from "../format/batch-header.js";
import {
  BATCH_HEADER_SIZE,
  CRC_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MIN_BATCH_LENGTH,
  MIN_RECORD_SIZE,
} from "../format/index.js";
import type { StorageFile } from "../storage/storage.js";

/** How much a scan reads at once. Batches larger than this are read whole, one at a time. */
const SCAN_CHUNK_BYTES = 1 << 20;

/** The most a read-ahead reads at once (it goes by length fields nobody checked yet). */
const READ_AHEAD_MAX_BYTES = 16 << 20;

/** Why a scan stopped before the end of the file. */
export type ScanStopReason = InvalidBatchReason | "offset-gap" | "bad-header";

interface ScannedBatch {
  /** Byte position of the batch in the file. */
  readonly position: number;
  readonly header: BatchHeader;
  /** The whole batch (a view into the scan's buffer: valid until the next step). */
  readonly bytes: Uint8Array;
}

/** Largest int32: segment-relative offsets and byte positions in the indexes are int32s. */
const MAX_INT32 = 0x7fffffff;

export interface ScanOptions {
  /**
   * Largest whole batch to accept. Segments never set it: what was appended under any setting
   * is read back. @defaultValue no limit but the bytes the file holds
   */
  readonly maxBatchBytes?: number;
  /**
   * The segment's base offset: a batch whose last offset is more than an int32 past it, or
   * that ends past byte 2^31 − 1, cannot belong to the segment (its indexes could not name it).
   */
  readonly segmentBaseOffset?: number;
  /**
   * End the walk (as at the end of the file) before the first batch whose last offset is at or
   * past this offset.
   */
  readonly endOffset?: number;
  readonly crc32c?: Crc32c;
  /**
   * The offset the first batch must start at; each later batch must start right after the
   * previous one's last offset. A CRC-valid batch out of sequence (a stale batch from before a
   * truncation) ends the walk: it is not part of this log. Omit to accept any offsets.
   */
  readonly expectedOffset?: number;
  /**
   * The last offset the first batch must end at: an offset-index entry's offset, when the walk
   * starts at that entry's position. Omit to accept any.
   */
  readonly expectedLastOffset?: number;
  /**
   * A compacted log's cleaned part (`SegmentOptions.offsetGaps`): a batch that ends below this
   * may start past the expected offset. Omit: every batch continues the previous one.
   */
  readonly gapsBelow?: number;
  /** Check CRCs. Recovery and reads do; a walk over already-validated bytes may skip it. */
  readonly verifyCrc?: boolean;
  /** Bytes per read. @defaultValue SCAN_CHUNK_BYTES */
  readonly chunkBytes?: number;
  /** A chunk already being read (a segment's read-ahead): used if the walk asks for it first. */
  readonly prefetched?: { readonly position: number; readonly length: number; readonly bytes: Promise<Uint8Array> };
  /**
   * While the batches of one chunk are checked, read the next chunk (from the first batch the
   * chunk does not hold whole): the read overlaps the CRC work. For walks that go to the end
   * (recovery, sequential reads); a walk that stops early leaves the read in `pendingRead`.
   * (Reusing the walk's buffers, and writing back what it read, are the loader's and the
   * follower's: load/reusing-scanner.ts.)
   */
  readonly readAhead?: boolean;
}

/** Where, and why, a walk over a segment's batches stopped (`SegmentRecovery.stop`). */
export interface ScanStop {
  /** Position of the first byte that is not a valid batch (the file size if all were). */
  readonly position: number;
  /** Undefined when the walk reached the end of the file cleanly. */
  readonly reason: ScanStopReason | undefined;
  /** The reason in words, with the position (empty at a clean end). */
  readonly detail: string;
}

export class BatchScanner {
  /** @internal */
  protected readonly file: StorageFile;
  readonly #fileSize: number;
  readonly #options: ScanOptions;
  #position: number;
  #expected: number | undefined;
  #expectedLast: number | undefined;
  /** Buffered bytes of the file starting at #bufferStart. */
  #buffer: Uint8Array = new Uint8Array(0);
  #bufferStart = 0;
  /** The read of the next chunk, started while this one is walked (`readAhead`). */
  #ahead: { readonly position: number; readonly length: number; readonly bytes: Promise<Uint8Array> } | undefined;
  #stop: ScanStop | undefined;

  constructor(file: StorageFile, fileSize: number, startPosition: number, options: ScanOptions) {
    this.file = file;
    this.#fileSize = fileSize;
    this.#position = startPosition;
    this.#options = options;
    this.#expected = options.expectedOffset;
    this.#expectedLast = options.expectedLastOffset;
    this.#ahead = options.prefetched;
  }

  /** Where the walk stopped; set once `next()` returned null. */
  get stop(): ScanStop {
    if (this.#stop === undefined) throw new Error("BatchScanner.stop read before the walk ended");
    return this.#stop;
  }

  /** The position of the next batch to read. */
  get position(): number {
    return this.#position;
  }

  /**
   * The declared whole size of the next batch (12 + its length field), reading at most its
   * 12-byte prefix, or undefined at the end of the file. Unvalidated: a reader uses it only to
   * decide whether to take one more batch before calling `next()`.
   */
  async peekSize(): Promise<number | undefined> {
    const available = this.#fileSize - this.#position;
    if (this.#stop !== undefined || available < LOG_OVERHEAD) return undefined;
    // A prefix the buffer does not hold is read on its own: the buffer stays, so a reader that
    // stops here can still hand on the batches it took without copying them (`buffered`).
    const prefix =
      this.buffered(this.#position, this.#position + LOG_OVERHEAD) ??
      (await this.file.read(this.#position, LOG_OVERHEAD));
    if (prefix.length < LOG_OVERHEAD) return undefined;
    return LOG_OVERHEAD + new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength).getInt32(LENGTH_OFFSET);
  }

  /**
   * Bytes [start, end) of the file if the scan still holds them all in its buffer (they were
   * returned by `next()` since the last read), else undefined. Lets a reader hand on several
   * batches with one copy.
   */
  buffered(start: number, end: number): Uint8Array | undefined {
    if (start < this.#bufferStart || end > this.#bufferStart + this.#buffer.length) return undefined;
    return this.#view(start, end - start);
  }

  /** The next valid batch, or null when the walk ends (see `stop`). */
  async next(): Promise<ScannedBatch | null> {
    if (this.#stop !== undefined) return null;
    const position = this.#position;
    const available = this.#fileSize - position;
    if (available <= 0) return this.#end(position, undefined, "end of file");

    // First the fixed-size header: enough to learn the declared size without trusting it.
    await this.#ensure(position, Math.min(BATCH_HEADER_SIZE, available));
    const headerView = this.#view(position, Math.min(BATCH_HEADER_SIZE, available));
    if (headerView.length >= LENGTH_OFFSET + 4) {
      const length = new DataView(headerView.buffer, headerView.byteOffset, headerView.byteLength).getInt32(
        LENGTH_OFFSET,
      );
      const size = LOG_OVERHEAD + length;
      // Read the body only if the declared size is plausible; validateBatch reports otherwise.
      if (length > 0 && size <= this.#maxBatchBytes && size <= available) await this.#ensure(position, size);
    }
    const window = this.#view(position, Math.min(available, this.#buffer.length - (position - this.#bufferStart)));
    const verdict = validateBatchTrusting(window, 0, available, {
      maxBatchBytes: this.#maxBatchBytes,
      ...(this.#options.crc32c === undefined ? {} : { crc32c: this.#options.crc32c }),
      ...(this.#options.verifyCrc === false ? { crc32c: () => readStoredCrc(window) } : {}),
    });
    // (validateBatch saw the batch at 0 of its window: name the file position instead.)
    if (!verdict.ok) return this.#end(position, verdict.reason, verdict.detail.replace(/\bat 0\b/, `at ${position}`));
    let header: BatchHeader;
    try {
      header = readBatchHeader(window, 0);
    } catch (err) {
      return this.#end(position, "bad-header", (err as Error).message);
    }
    const impossible = impossibleHeader(header, position, this.#options.segmentBaseOffset);
    if (impossible !== undefined) return this.#end(position, "bad-header", `batch at ${position} ${impossible}`);
    if (this.#options.endOffset !== undefined && header.lastOffset >= this.#options.endOffset)
      return this.#end(position, undefined, `end offset ${this.#options.endOffset}`);
    if (this.#expectedLast !== undefined && header.lastOffset !== this.#expectedLast) {
      return this.#end(
        position,
        "offset-gap",
        `batch at ${position} ends at offset ${header.lastOffset}, the offset index says ${this.#expectedLast}`,
      );
    }
    this.#expectedLast = undefined;
    if (
      this.#expected !== undefined &&
      header.baseOffset !== this.#expected &&
      !gapAllowed(header, this.#expected, this.#options.gapsBelow)
    ) {
      return this.#end(
        position,
        "offset-gap",
        `batch at ${position} starts at offset ${header.baseOffset}, expected ${this.#expected}`,
      );
    }
    this.#expected = header.lastOffset + 1;
    this.#position = position + verdict.size;
    return { position, header, bytes: window.subarray(0, verdict.size) };
  }

  get #maxBatchBytes(): number {
    return this.#options.maxBatchBytes ?? Number.MAX_SAFE_INTEGER;
  }

  #end(position: number, reason: ScanStopReason | undefined, detail: string): null {
    this.#stop = { position, reason, detail };
    return null;
  }

  #view(position: number, length: number): Uint8Array {
    const start = position - this.#bufferStart;
    return this.#buffer.subarray(start, start + length);
  }

  /**
   * Makes [position, position + length) buffered, reading a chunk ahead when it reads at all.
   */
  async #ensure(position: number, length: number): Promise<void> {
    const start = position - this.#bufferStart;
    if (start >= 0 && start + length <= this.#buffer.length) return;
    const want = Math.min(Math.max(length, this.#options.chunkBytes ?? SCAN_CHUNK_BYTES), this.#fileSize - position);
    const ahead = this.#ahead;
    this.#ahead = undefined;
    this.#buffer = await this.refill(
      position,
      want,
      ahead !== undefined && ahead.position === position && ahead.length >= Math.min(length, want)
        ? ahead.bytes
        : undefined,
    );
    this.#bufferStart = position;
    if (this.#options.readAhead === true) this.#readNextChunk();
  }

  /** The chunk being read ahead, if any, handed over (the scan will not use it). */
  takePendingRead():
    { readonly position: number; readonly length: number; readonly bytes: Promise<Uint8Array> } | undefined {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    return ahead;
  }

  /**
   * The next chunk, [position, position + length): the read ahead of it when there is one, else a
   * read. (The buffer still holds the chunk before it until this returns.) @internal
   */
  protected refill(position: number, length: number, ahead: Promise<Uint8Array> | undefined): Promise<Uint8Array> {
    return ahead ?? this.read(position, length);
  }

  /** `length` bytes at `position`, in a buffer of the walk's. @internal */
  protected read(position: number, length: number): Promise<Uint8Array> {
    return this.file.read(position, length);
  }

  /**
   * Starts reading the chunk after the buffer: from the first batch it does not hold whole (found
   * by stepping over the length fields, unchecked: a wrong guess is only a wasted read), at least
   * a chunk long, and the whole of that batch if it is longer.
   */
  #readNextChunk(): void {
    const end = this.#bufferStart + this.#buffer.length;
    let at = this.#bufferStart;
    let size = 0;
    while (at + LOG_OVERHEAD <= end) {
      const prefix = this.#view(at, LOG_OVERHEAD);
      const length = new DataView(prefix.buffer, prefix.byteOffset, LOG_OVERHEAD).getInt32(LENGTH_OFFSET);
      if (length <= 0) return; // not a batch: the walk stops here
      size = LOG_OVERHEAD + length;
      if (at + size > end) break;
      at += size;
      size = 0;
    }
    // Never more than READ_AHEAD_MAX_BYTES on an unchecked length field: a larger batch (or a
    // hostile length) is read by the walk itself, once its size was checked, as any other.
    const length = Math.min(
      Math.max(size, this.#options.chunkBytes ?? SCAN_CHUNK_BYTES),
      READ_AHEAD_MAX_BYTES,
      this.#fileSize - at,
    );
    if (length <= 0 || at <= this.#bufferStart) return;
    const bytes = this.read(at, length);
    bytes.catch(() => undefined); // a read never awaited must not be an unhandled rejection
    this.#ahead = { position: at, length, bytes };
  }
}

/**
 * Whether a batch may start past `expected`: only in a compacted log's cleaned part, where the
 * cleaner dropped whole batches, and only forward (a batch never starts inside an earlier one).
 */
export function gapAllowed(header: BatchHeader, expected: number, gapsBelow: number | undefined): boolean {
  return gapsBelow !== undefined && header.baseOffset > expected && header.lastOffset < gapsBelow;
}

/**
 * Why a CRC-valid header cannot be a batch of this segment, or undefined. Cheap checks of what
 * reading the records would refuse anyway, made here so that a walk stops where a read would
 * fail: offsets that go backwards, more records than offsets or than the bytes can hold, and
 * offsets or positions beyond the segment's int32 range. `pagelog verify` asks the same.
 */
export function impossibleHeader(
  header: BatchHeader,
  position: number,
  segmentBase: number | undefined,
): string | undefined {
  if (header.lastOffsetDelta < 0) return `has lastOffsetDelta ${header.lastOffsetDelta}`;
  if (header.recordsCount < 0 || header.recordsCount > header.lastOffsetDelta + 1) {
    return `declares ${header.recordsCount} records for ${header.lastOffsetDelta + 1} offsets`;
  }
  // (Compressed records can take less than their minimum size each.)
  if (header.compression === 0 && header.recordsCount * MIN_RECORD_SIZE > header.length - MIN_BATCH_LENGTH) {
    return `declares ${header.recordsCount} records in ${header.length - MIN_BATCH_LENGTH} bytes`;
  }
  if (segmentBase !== undefined) {
    if (header.baseOffset < segmentBase || header.lastOffset - segmentBase > MAX_INT32) {
      return `holds offsets ${header.baseOffset}..${header.lastOffset}, outside segment ${segmentBase}'s int32 range`;
    }
    if (position + header.sizeInBytes > MAX_INT32 + 1)
      return `ends at byte ${position + header.sizeInBytes}, past the int32 positions a segment's index can address`;
  }
  return undefined;
}

/** For a walk that skips CRC checks: a "checksum" that always equals the stored one. */
function readStoredCrc(window: Uint8Array): number {
  return new DataView(window.buffer, window.byteOffset, window.byteLength).getUint32(CRC_OFFSET);
}

/**
 * Whether the offsets `[from, to)` between a segment's last batch and the next segment's base are
 * records a log cleaner dropped: the gap lies wholly below the clean point, where offsets may be
 * missing (Kafka's cleaner drops a cleaned segment's last batches when their keys recur later, so
 * the next segment starts past its end). Anywhere else such a gap is lost records.
 */
export function cleanedAway(from: number, to: number, gapsBelow: number | undefined): boolean {
  return gapsBelow !== undefined && from < to && to <= gapsBelow;
}
