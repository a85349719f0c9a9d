/*
 * Retention as the course's chapter 3 exercise shapes it: which oldest whole segments to delete.
 * `-1` turns a limit off; the active (last) segment is never deleted; only a prefix of the
 * segments goes, so the log stays contiguous.
 */

/** What retention needs to know about one segment. */
export interface SegmentSummary {
  /** The segment's first offset (its file name). */
  readonly baseOffset: number;
  /** Bytes in its `.log`. */
  readonly size: number;
  /** Largest record timestamp in it, or -1 if it has none. */
  readonly maxTimestamp: number;
}

/** The two retention settings `retentionDeleteCount` applies. */
export interface RetentionLimits {
  /** Keep the log at most this large (Kafka's `retention.bytes`); -1 is off. */
  readonly retentionBytes: number;
  /** Keep segments whose newest record is at most this old (Kafka's `retention.ms`); -1 is off. */
  readonly retentionMs: number;
  /** The current time, in ms. */
  readonly now: number;
}

/**
 * How many leading segments retention deletes: the longest prefix (never including the last
 * segment) in which each segment is either past `retentionMs` or still needed to be dropped to
 * bring the log under `retentionBytes`. Kafka applies the two limits the same way.
 */
export function retentionDeleteCount(segments: readonly SegmentSummary[], limits: RetentionLimits): number {
  const deletable = Math.max(0, segments.length - 1);
  let total = 0;
  for (const s of segments) total += s.size;
  let excess = limits.retentionBytes === -1 ? 0 : total - limits.retentionBytes;
  let count = 0;
  while (count < deletable) {
    const s = segments[count]!;
    const expired = limits.retentionMs !== -1 && s.maxTimestamp < limits.now - limits.retentionMs;
    const oversize = limits.retentionBytes !== -1 && excess - s.size >= 0;
    if (!expired && !oversize) break;
    excess -= s.size;
    count++;
  }
  return count;
}
