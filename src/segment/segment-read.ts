/**
 * Reading a segment: whole raw batches from the one holding an offset (every batch handed out
 * has its CRC checked). The exact offset-for-timestamp lookup is load/time-lookup.ts, loaded on
 * first use.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { validateBatchTrusting } from "../format/batch-header.js";
import { BatchScanner } from "./batch-scanner.js";
import {
  corruptAt,
  fromIndex,
  loadIndexes,
  scanFrom,
  scanOptions,
  type SegmentState,
  validateOptions,
} from "./segment-state.js";
import type { SegmentRead } from "./segment-types.js";

/** See `Segment.read`. */
export async function readSegment(s: SegmentState, offset: number, maxBytes: number): Promise<SegmentRead | null> {
  await loadIndexes(s);
  if (offset >= s.nextOffset) return null;
  const target = Math.max(offset, s.baseOffset);
  const ahead = s.readAhead;
  s.readAhead = undefined;
  if (ahead !== undefined && ahead.offset === target) {
    // A reader going on where the last read stopped: walk from there, on the chunk read ahead.
    // The batch there must start at `target` (the scanner checks it); if it does not, or is
    // damaged, the read starts over from the index like any other.
    const scanner = new BatchScanner(
      s.log,
      s.size,
      ahead.position,
      scanOptions(s, {
        expectedOffset: target,
        chunkBytes: chunkFor(s, maxBytes),
        verifyCrc: false,
        prefetched: ahead,
        readAhead: maxBytes >= SEQUENTIAL_READ_BYTES,
      }),
    );
    try {
      return await readFrom(s, scanner, target, maxBytes);
    } catch (err) {
      // As `fromIndex` does for a lying index entry: only damage met on the way starts over.
      if (!(err instanceof PagelogError && err.code === ErrorCode.CORRUPT)) throw err;
    }
  }
  return fromIndex(s, s.offsetIndex.lookup(target), (start) =>
    // Batches before the target are only stepped over (their offsets are still checked): a
    // damaged batch there must not make an intact later one unreadable. Every batch returned
    // has its CRC checked in readFrom.
    readFrom(
      s,
      scanFrom(s, start, {
        chunkBytes: chunkFor(s, maxBytes),
        verifyCrc: false,
        readAhead: maxBytes >= SEQUENTIAL_READ_BYTES,
      }),
      target,
      maxBytes,
    ),
  );
}

/**
 * Reads at least this large are taken for a sequential consumer's (records(), a fetch loop): the
 * next chunk is read while this one's CRCs are checked. Smaller ones (lookups) read only what
 * they return.
 */
const SEQUENTIAL_READ_BYTES = 64 * 1024;

/** A read's chunk: what it may return and an index interval's worth before it, within 16 KiB..1 MiB. */
function chunkFor(s: SegmentState, maxBytes: number): number {
  return Math.min(1 << 20, Math.max(16 * 1024, maxBytes + s.options.indexIntervalBytes));
}

async function readFrom(
  s: SegmentState,
  scanner: BatchScanner,
  target: number,
  maxBytes: number,
): Promise<SegmentRead | null> {
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
    // Trusting: the segment's crc32c was checked at its open, its options are its own.
    const verdict = validateBatchTrusting(batch.bytes, 0, batch.bytes.length, validateOptions(s));
    if (!verdict.ok) {
      // Hand on the good batches before it; the read that starts at it reports it.
      if (first !== undefined) break;
      throw corruptAt(s, { position: batch.position, reason: verdict.reason, detail: verdict.detail });
    }
    first ??= { position: batch.position, offset: batch.header.baseOffset };
    parts.push(batch.bytes);
    total += batch.bytes.length;
    lastOffset = batch.header.lastOffset;
    if (total >= maxBytes) break;
  }
  if (first === undefined) {
    if (scanner.stop.reason !== undefined) throw corruptAt(s, scanner.stop);
    return null;
  }
  const end = first.position + total;
  // A reader that goes on will ask for the next batch: its chunk is being read already if the
  // scan read ahead from there, else start reading it now.
  const pending = scanner.takePendingRead();
  if (pending !== undefined && pending.position === end) {
    s.readAhead = { offset: lastOffset + 1, ...pending };
  } else if (end < s.size && maxBytes >= SEQUENTIAL_READ_BYTES) {
    const length = Math.min(chunkFor(s, maxBytes), s.size - end);
    const bytes = s.log.read(end, length);
    bytes.catch(() => undefined); // a read-ahead nobody uses must not be an unhandled rejection
    s.readAhead = { offset: lastOffset + 1, position: end, length, bytes };
  }
  // Batches are back to back on disk: when the scan still holds the whole run, hand it out as it
  // is. The scan's buffer is this read's own (a Storage read returns memory the caller owns, and
  // the scanner ends here), so no copy is needed.
  const run = scanner.buffered(first.position, first.position + total);
  if (run !== undefined) return { bytes: run, position: first.position, firstOffset: first.offset, lastOffset };
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, position: first.position, firstOffset: first.offset, lastOffset };
}
