/*
 * Reading what the log cleaner cleans: every batch of a segment, each one's CRC-32C checked (a
 * cleaner must never copy a damaged record into a segment that then looks clean), and of each
 * record only what the cleaner decides by: its offset, timestamp, key and whether it is a
 * tombstone. An uncompressed batch's records are walked in place (no record objects, no key,
 * value or header views: the key is handed on as a range of the batch's bytes, which the offset
 * map reads where it lies); their structure is checked as the decoder checks it, so a batch the
 * cleaner copies is one a reader can decode.
 */
import { ErrorCode, PagelogError, corruptError as corrupt } from "../../errors.js";
import {
  type BatchHeader,
  CONTROL_FLAG_MASK,
  decodeBatch,
  type DecodedRecord,
  MIN_RECORD_BODY_SIZE,
  MIN_RECORD_SIZE,
  RECORDS_OFFSET,
} from "../../format/api.js";
import { type ByteCursor, readVarint, readVarlong } from "../../format/varint.js";
import { BatchScanner } from "../../segment/batch-scanner.js";
import type { Segment, SegmentOptions } from "../../segment/segment.js";
import type { StorageFile } from "../../storage/storage.js";

/**
 * Told of each record of a batch, in order: its index in the batch, offset, timestamp, its key
 * as `keyBytes[keyFrom, keyTo)` (`keyBytes` null: no key) and whether it is a tombstone.
 */
type RecordVisitor = (
  index: number,
  offset: number,
  timestamp: number,
  keyBytes: Uint8Array | null,
  keyFrom: number,
  keyTo: number,
  tombstone: boolean,
) => void;

/** One batch as the cleaner sees it: its bytes and header, checked; its records by `visitRecords`. */
export interface CleanerBatch {
  readonly bytes: Uint8Array;
  readonly header: BatchHeader;
  /** Copied whole, never filtered: compressed or control (pagelog writes neither). */
  readonly whole: boolean;
  /** A compressed batch's records, decoded (rare: pagelog never writes one). */
  readonly decoded: readonly DecodedRecord[] | undefined;
}

/** One batch of `segmentBatches`: its bytes (a copy), header and decoded records. */
interface DecodedCleanerBatch {
  readonly bytes: Uint8Array;
  readonly header: BatchHeader;
  readonly records: readonly DecodedRecord[];
}

/** Where the bytes of one `.log` come from: its path, size and a read (the cleaner's may go through the log's queue). */
export interface BatchSource {
  readonly path: string;
  readonly baseOffset: number;
  readonly size: number;
  read(position: number, length: number): Promise<Uint8Array>;
}

/** How much the cleaner reads at once: one read is one turn of the log's queue for a background cleaning. */
const CLEANER_CHUNK_BYTES = 256 << 10;

/**
 * Every batch of `source`, oldest first, CRC-checked, with the cleaner's view of its records;
 * damage is `PAGELOG_CORRUPT`. A batch's bytes are the read's own memory (never reused), so the
 * caller may keep them.
 */
export async function* cleanerBatches(
  source: BatchSource,
  options: SegmentOptions,
): AsyncGenerator<CleanerBatch, void, undefined> {
  // The scanner only reads (`read`); the rest of a StorageFile is never touched.
  const file = { path: source.path, read: source.read } as Pick<StorageFile, "path" | "read"> as StorageFile;
  const scanner = new BatchScanner(file, source.size, 0, {
    segmentBaseOffset: source.baseOffset,
    expectedOffset: source.baseOffset,
    chunkBytes: CLEANER_CHUNK_BYTES,
    ...(options.offsetGaps === undefined ? {} : { gapsBelow: options.offsetGaps.below }),
    ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
  });
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    const { header, bytes } = batch;
    const whole = header.compression !== 0 || (header.attributes & CONTROL_FLAG_MASK) !== 0;
    // Checked now (a damaged record is found before anything is built on its batch), walked
    // again by whoever uses it: a walk allocates nothing.
    if (header.compression === 0) walkRecords(bytes, header, ignore);
    const decoded = header.compression === 0 ? undefined : await decodedRecords(bytes, options);
    yield { bytes, header, whole, decoded };
  }
  throwIfDamaged(scanner, source.path);
}

/** Every batch of a loaded segment, CRC-checked and fully decoded (a copy of its bytes); damage is `PAGELOG_CORRUPT`. */
export async function* segmentBatches(
  segment: Segment,
  options: SegmentOptions,
): AsyncGenerator<DecodedCleanerBatch, void, undefined> {
  const scanner = new BatchScanner(segment.log, segment.size, 0, {
    segmentBaseOffset: segment.baseOffset,
    expectedOffset: segment.baseOffset,
    ...(options.offsetGaps === undefined ? {} : { gapsBelow: options.offsetGaps.below }),
    ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
  });
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    const bytes = batch.bytes.slice();
    const { records } = await decodeBatch(bytes, {
      verifyCrc: false, // the scanner checked it
      ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
    });
    yield { bytes, header: batch.header, records };
  }
  throwIfDamaged(scanner, segment.log.path);
}

function throwIfDamaged(scanner: BatchScanner, path: string): void {
  const stop = scanner.stop;
  if (stop.reason !== undefined)
    throw new PagelogError(
      `the log cleaner found ${path} corrupt at byte ${stop.position}: ${stop.detail}`,
      ErrorCode.CORRUPT,
      { path },
    );
}

const ignore: RecordVisitor = () => undefined;

/** A compressed batch's records, decoded (pagelog never writes one: rare, so the slow way). */
async function decodedRecords(bytes: Uint8Array, options: SegmentOptions): Promise<readonly DecodedRecord[]> {
  const { records } = await decodeBatch(bytes, {
    verifyCrc: false, // the scanner checked it
    ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
  });
  return records;
}

/** Tells `visit` of every record of a batch `cleanerBatches` yielded. */
export function visitRecords(batch: CleanerBatch, visit: RecordVisitor): void {
  if (batch.decoded === undefined) return walkRecords(batch.bytes, batch.header, visit);
  batch.decoded.forEach((r, i) =>
    visit(i, r.offset, r.timestamp, r.key, 0, r.key === null ? 0 : r.key.length, r.value === null),
  );
}

/**
 * The records of an uncompressed batch (already CRC-checked), walked in place. Strict as the
 * decoder (`readRecords`): each record ends where its length says, the records end where the
 * batch does, offset deltas increase within the batch, and the largest timestamp is the
 * header's. (Header keys are not decoded: their bytes are copied unchanged, and a reader checks
 * them as before.)
 */
function walkRecords(bytes: Uint8Array, header: BatchHeader, visit: RecordVisitor): void {
  const { baseOffset, baseTimestamp, maxTimestamp, isLogAppendTime, recordsCount, lastOffsetDelta } = header;
  const end = header.sizeInBytes;
  if (recordsCount < 0 || recordsCount > (end - RECORDS_OFFSET) / MIN_RECORD_SIZE)
    throw corrupt(`batch at offset ${baseOffset} declares ${recordsCount} records in ${end - RECORDS_OFFSET} bytes`);
  const cursor: ByteCursor = { bytes, pos: RECORDS_OFFSET, end };
  let previousDelta = -1;
  let largest = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < recordsCount; i++) {
    cursor.end = end;
    const length = readVarint(cursor);
    const recordEnd = cursor.pos + length;
    if (length < MIN_RECORD_BODY_SIZE || recordEnd > end)
      throw corrupt(`record ${i} of the batch at offset ${baseOffset} has a bad length ${length}`);
    cursor.end = recordEnd;
    cursor.pos++; // attributes
    const timestampDelta = readVarlong(cursor);
    const offsetDelta = readVarint(cursor);
    if (offsetDelta <= previousDelta || offsetDelta > lastOffsetDelta)
      throw corrupt(`record ${i} of the batch at offset ${baseOffset} has offsetDelta ${offsetDelta}`);
    previousDelta = offsetDelta;
    const keyLength = readVarint(cursor);
    const keyFrom = cursor.pos;
    if (keyLength !== -1) (fieldFits(cursor, keyLength, i, baseOffset), (cursor.pos += keyLength));
    const valueLength = readVarint(cursor);
    if (valueLength !== -1) (fieldFits(cursor, valueLength, i, baseOffset), (cursor.pos += valueLength));
    const headerCount = readVarint(cursor);
    if (headerCount < 0) throw corrupt(`record ${i} of the batch at offset ${baseOffset} has ${headerCount} headers`);
    for (let h = 0; h < headerCount; h++) {
      const hk = readVarint(cursor);
      fieldFits(cursor, hk, i, baseOffset); // a header key is never null
      cursor.pos += hk;
      const hv = readVarint(cursor);
      if (hv !== -1) (fieldFits(cursor, hv, i, baseOffset), (cursor.pos += hv));
    }
    if (cursor.pos !== recordEnd)
      throw corrupt(`record ${i} of the batch at offset ${baseOffset} declares ${length} bytes but its fields differ`);
    const timestamp = isLogAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    if (timestamp > largest) largest = timestamp;
    visit(
      i,
      baseOffset + offsetDelta,
      timestamp,
      keyLength === -1 ? null : bytes,
      keyFrom,
      keyFrom + Math.max(0, keyLength),
      valueLength === -1,
    );
  }
  if (cursor.pos !== end) throw corrupt(`batch at offset ${baseOffset} has bytes after its ${recordsCount} records`);
  if (!isLogAppendTime && recordsCount > 0 && largest !== maxTimestamp)
    throw corrupt(`batch at offset ${baseOffset}: maxTimestamp ${maxTimestamp} is not its records' largest ${largest}`);
}

function fieldFits(cursor: ByteCursor, length: number, record: number, baseOffset: number): void {
  if (length < 0 || length > cursor.end - cursor.pos)
    throw corrupt(`record ${record} of the batch at offset ${baseOffset} has a field of bad length ${length}`);
}
