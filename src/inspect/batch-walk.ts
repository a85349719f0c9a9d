/**
 * A forgiving walk over the record batches of a `.log` file, for tools that must *report* damage
 * rather than stop at it (dump, verify, the demo's picture). Unlike the segment's BatchScanner it
 * keeps going past a batch whose CRC fails, as long as its length still frames it, so one flipped
 * byte is one finding, not the end of the report. It stops where the framing itself breaks: fewer
 * bytes than a header up to magic, a Length smaller than a header or past the end of the file,
 * a magic that is not 2, or header fields that are not numbers pagelog can hold.
 *
 * Reads one batch at a time (header first, then the whole batch once its size is known to fit),
 * so a large segment costs memory for one batch, never the file.
 */
import { type BatchHeader, readBatchHeader } from "../format/batch-header.js";
import {
  BATCH_HEADER_SIZE,
  CRC_COVERED_START,
  CRC_OFFSET,
  HEADER_SIZE_UP_TO_MAGIC,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_BATCH_LENGTH,
  MIN_BATCH_LENGTH,
} from "../format/batch-layout.js";
import { crc32c } from "../format/crc32c.js";
import { plural } from "../text/plural.js";

/** Bytes to walk: a file handle, or bytes already in memory. */
interface ReadSource {
  readonly size: number;
  read(position: number, length: number): Promise<Uint8Array>;
}

export interface FileBatch {
  readonly position: number;
  readonly header: BatchHeader;
  /** The whole batch. */
  readonly bytes: Uint8Array;
  readonly crcValid: boolean;
  /** CRC-32C of bytes [21, size), as computed. */
  readonly computedCrc: number;
}

/** Where and why the walk ended; `reason` undefined means it reached the end of the file cleanly. */
export interface WalkEnd {
  readonly position: number;
  readonly reason: "short-header" | "too-small" | "short" | "too-large" | "bad-magic" | "bad-header" | undefined;
  readonly detail: string;
}

/**
 * Largest batch the walk reads: whatever the format allows (an int32 Length), as the log's own
 * recovery and reads accept, so the tools never call damaged a batch the library reads. Memory is
 * bounded by the file: a batch is read only once its declared size is known to fit in the file.
 */
const MAX_WALK_BATCH_BYTES = LOG_OVERHEAD + MAX_BATCH_LENGTH;

export function bytesSource(bytes: Uint8Array): ReadSource {
  return {
    size: bytes.length,
    read: async (position, length) => bytes.subarray(position, Math.min(bytes.length, position + length)),
  };
}

export function hex32(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, "0")}`;
}

/** Calls `onBatch` for every framed batch in order; resolves with where the walk ended. */
export async function walkBatches(
  source: ReadSource,
  onBatch: (batch: FileBatch) => void | Promise<void>,
): Promise<WalkEnd> {
  let position = 0;
  for (;;) {
    const left = source.size - position;
    if (left <= 0) return { position, reason: undefined, detail: "end of file" };
    if (left < HEADER_SIZE_UP_TO_MAGIC) {
      return {
        position,
        reason: "short-header",
        detail: `${plural(left, "byte")} at the end, fewer than a batch header up to magic (${HEADER_SIZE_UP_TO_MAGIC})`,
      };
    }
    const head = await source.read(position, Math.min(BATCH_HEADER_SIZE, left));
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const length = view.getInt32(LENGTH_OFFSET);
    const size = LOG_OVERHEAD + length;
    if (length < MIN_BATCH_LENGTH)
      return {
        position,
        reason: "too-small",
        detail: `batch length ${length} is smaller than a header (${MIN_BATCH_LENGTH})`,
      };
    if (size > left)
      return {
        position,
        reason: "short",
        detail: `batch of ${plural(size, "byte")}, only ${left} left in the file (a torn or truncated tail)`,
      };
    if (size > MAX_WALK_BATCH_BYTES)
      return { position, reason: "too-large", detail: `batch of ${size} bytes is larger than ${MAX_WALK_BATCH_BYTES}` };
    const magic = view.getInt8(MAGIC_OFFSET);
    if (magic !== MAGIC_V2) return { position, reason: "bad-magic", detail: `magic ${magic}, expected ${MAGIC_V2}` };
    const bytes = size <= head.length ? head.subarray(0, size) : await source.read(position, size);
    let header: BatchHeader;
    try {
      header = readBatchHeader(bytes, 0);
    } catch (err) {
      return { position, reason: "bad-header", detail: (err as Error).message };
    }
    if (header.lastOffsetDelta < 0)
      return { position, reason: "bad-header", detail: `lastOffsetDelta ${header.lastOffsetDelta} is negative` };
    const computedCrc = crc32c(bytes.subarray(CRC_COVERED_START, size)) >>> 0;
    const stored = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(CRC_OFFSET);
    await onBatch({ position, header, bytes, crcValid: stored === computedCrc, computedCrc });
    position += size;
  }
}
