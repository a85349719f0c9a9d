/**
 * pagelog's answers to the course's four exercises, in the course's shapes: what `pagelog check`
 * holds a reader's answers against, and what the course's engine runs when none are given.
 */
import { HEADER_SIZE_UP_TO_MAGIC, LENGTH_OFFSET, LOG_OVERHEAD, MAGIC_OFFSET, MAGIC_V2 } from "../format/index.js";
import { MIN_BATCH_LENGTH, writeVarint } from "../format/index.js";
import { retentionDeleteCount as retentionRule } from "../log/policies/retention.js";
import type {
  CoursePolicies,
  IndexEntry,
  RecoverHelpers,
  RetentionConfig,
  RetentionSegment,
} from "../policies/policy-types.js";

/**
 * Chapter 2, the offset index: the entry with the largest `offset <= target`, or null when the
 * target is below the first entry. Kafka: `OffsetIndex.lookup` (`largestLowerBoundSlotFor`).
 * A binary search: about log2(n) reads, 17 for 100,000 entries.
 */
function lookup(index: readonly IndexEntry[], target: number): IndexEntry | null {
  let low = 0;
  let high = index.length - 1;
  let found: IndexEntry | null = null;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const entry = index[mid]!;
    if (entry.offset <= target) {
      found = entry;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/**
 * Chapter 3, retention: how many of the oldest segments to delete. Kafka:
 * `UnifiedLog.deleteOldSegments` with `retention.ms` / `retention.bytes`. The rule itself is the
 * one pagelog's `Log` applies (src/log/policies/retention.ts); this only adapts the course's shape to it.
 */
function segmentsToDelete(segments: readonly RetentionSegment[], now: number, config: RetentionConfig): number {
  const summaries = segments.map((s) => ({
    baseOffset: s.baseOffset,
    size: s.sizeBytes,
    maxTimestamp: s.largestTimestamp,
  }));
  return retentionRule(summaries, { retentionMs: config.retentionMs, retentionBytes: config.retentionBytes, now });
}

/**
 * Chapter 4, recovery: how many bytes at the start of `log` are whole, valid record batches.
 * Walks from 0 and stops at the first batch that is short, too small (length below 49, a header
 * with no records), not magic 2, or fails its CRC. Kafka: `LogSegment.recover`. Never throws: it
 * checks that a batch fits before asking the helpers about it.
 */
function recover(log: Uint8Array, helpers: RecoverHelpers): number {
  let position = 0;
  while (log.length - position >= HEADER_SIZE_UP_TO_MAGIC) {
    const length = helpers.readInt32(log, position + LENGTH_OFFSET);
    if (length < MIN_BATCH_LENGTH) break;
    const end = position + LOG_OVERHEAD + length;
    if (end > log.length) break;
    if (log[position + MAGIC_OFFSET] !== MAGIC_V2) break;
    if (!helpers.crcMatches(position, end)) break;
    position = end;
  }
  return position;
}

/**
 * The four answers as one policies object. Chapter 1's `writeVarint` (Kafka:
 * `ByteUtils.writeVarint`) is pagelog's plain reference writer from src/format/varint.ts.
 */
export const kafkaPolicies: CoursePolicies = { writeVarint, lookup, segmentsToDelete, recover };
