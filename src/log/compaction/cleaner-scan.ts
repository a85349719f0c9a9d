/*
 * Reading what the log cleaner cleans: every batch of a segment, each one's CRC-32C checked (a
 * cleaner must never copy a damaged record into a segment that then looks clean), decoded.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { type BatchHeader, decodeBatch, type DecodedRecord } from "../../format/index.js";
import { BatchScanner } from "../../segment/batch-scanner.js";
import type { Segment, SegmentOptions } from "../../segment/segment.js";

/** One batch as the cleaner sees it: its bytes (a copy), header and records. */
export interface CleanerBatch {
  readonly bytes: Uint8Array;
  readonly header: BatchHeader;
  readonly records: readonly DecodedRecord[];
}

/** Every batch of `segment`, oldest first, CRC-checked and decoded; damage is `PAGELOG_CORRUPT`. */
export async function* segmentBatches(
  segment: Segment,
  options: SegmentOptions,
): AsyncGenerator<CleanerBatch, void, undefined> {
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
  const stop = scanner.stop;
  if (stop.reason !== undefined)
    throw new PagelogError(
      `the log cleaner found ${segment.log.path} corrupt at byte ${stop.position}: ${stop.detail}`,
      ErrorCode.CORRUPT,
      { path: segment.log.path },
    );
}

/** A key as a map key: one character per byte (exact, and cheap for short keys). */
export function keyString(key: Uint8Array): string {
  // Short keys (the common case) a byte at a time: spreading a subarray into fromCharCode costs
  // more than the key itself.
  if (key.length <= 32) {
    let short = "";
    for (let i = 0; i < key.length; i++) short += String.fromCharCode(key[i]!);
    return short;
  }
  let out = "";
  for (let i = 0; i < key.length; i += 4096) out += String.fromCharCode(...key.subarray(i, i + 4096));
  return out;
}
