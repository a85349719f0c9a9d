/*
 * Reading a segment that another process is writing (a read-only open): a walk that validates
 * every batch and indexes it in memory only, and a catch-up that walks what the file gained
 * since. Neither writes a byte nor reports a torn tail: the first byte that is not a valid
 * batch is the end for now (the writer may be half way through writing it). Part of the
 * segment's load (load/segment-load.ts re-exports it), a chunk a writable log loads only to
 * recover: a read-only open loads it with its own.
 */
import type { ScanStop } from "./batch-scanner.js";
import { ReusingScanner } from "./load/reusing-scanner.js";
import { beginWalk, indexBatch, scanOptions, type SegmentState } from "./segment-state.js";
import { NO_TIMESTAMP } from "./time-index.js";

/** A batch a read-only walk validated: where it is, its size, its last offset and stored CRC. */
export interface WalkedBatch {
  readonly position: number;
  readonly sizeInBytes: number;
  readonly lastOffset: number;
  readonly crc: number;
}

/** See `Segment.planFollow`. */
export async function planFollow(s: SegmentState, onBatch?: (batch: WalkedBatch) => void): Promise<ScanStop> {
  // In memory from here on: a rebuild pending is never released (nor written: no commit()).
  beginWalk(s);
  const fileSize = s.size;
  s.size = 0;
  return walk(s, fileSize, onBatch);
}

/** See `Segment.catchUp`. */
export async function catchUp(
  s: SegmentState,
  fileSize: number,
  onBatch?: (batch: WalkedBatch) => void,
): Promise<ScanStop> {
  if (!s.offsetIndex.rebuildPending || !s.timeIndex.rebuildPending)
    throw new Error("Segment.catchUp: the segment was not walked with planFollow()");
  if (fileSize <= s.size) return { position: s.size, reason: undefined, detail: "" };
  return walk(s, fileSize, onBatch);
}

/** Walks from `s.size` (where the valid batches end) to `fileSize`, extending the segment. */
async function walk(s: SegmentState, fileSize: number, onBatch?: (batch: WalkedBatch) => void): Promise<ScanStop> {
  const scanner = new ReusingScanner(
    s.log,
    fileSize,
    s.size,
    scanOptions(s, { expectedOffset: s.nextOffset, readAhead: true }),
  );
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    const { header, position } = batch;
    await indexBatch(s, header, position);
    s.size = position + header.sizeInBytes;
    onBatch?.({ position, sizeInBytes: header.sizeInBytes, lastOffset: header.lastOffset, crc: header.crc });
  }
  // As a recovery's walk does: one time-index entry for the largest timestamp so far.
  if (s.maxTimestamp !== NO_TIMESTAMP) await s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp);
  return scanner.stop;
}
