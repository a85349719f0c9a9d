/*
 * What a cleaning reports (`Log.compact()` resolves with it), and the report of one that had
 * nothing to clean.
 */

/**
 * Why a `Log.compact()` cleaned nothing (a stable string: new reasons may be added, none renamed):
 * - `"no-closed-segment"`: the log is only its active segment, which is never cleaned (nor
 *   what lies above the recovery point: `compact()` first waits for the rolls' flushes, so every
 *   closed segment is below it);
 * - `"min-compaction-lag"`: the oldest closed segment holds a record younger than `minCompactionLagMs`;
 * - `"already-clean"`: every cleanable segment lies below the clean point (nothing dirty).
 */
export type NothingCleanedReason = "no-closed-segment" | "min-compaction-lag" | "already-clean";

/** What one `Log.compact()` did. */
export interface CompactionResult {
  /** Bytes of the `.log` files of the segments the cleaner read, before it cleaned them. */
  readonly bytesBefore: number;
  /** Bytes of the `.log` files they became. */
  readonly bytesAfter: number;
  /** Records in those segments before the cleaning. */
  readonly recordsBefore: number;
  /** Records left in them. */
  readonly recordsAfter: number;
  /** Tombstones dropped (their `deleteRetentionMs` was over). */
  readonly tombstonesRemoved: number;
  /** Segments rewritten. */
  readonly segmentsCleaned: number;
  /** The segments they became (fewer when small ones were grouped). */
  readonly segmentsAfter: number;
  /**
   * The clean point after the cleaning (the first offset not cleaned). Below the end of the
   * cleanable part when the offset map filled (`cleanerDedupeBufferBytes`): the next cleaning
   * goes on from here.
   */
  readonly cleanPoint: number;
  /** Set when nothing was cleaned (`segmentsCleaned` 0): why. Absent when the cleaning cleaned. */
  readonly reason?: NothingCleanedReason;
}

/** The report of a cleaning that found nothing to clean (`reason`: why): the clean point stays where it is. */
export function nothingCleaned(cleanPoint: number, reason?: NothingCleanedReason): CompactionResult {
  return {
    ...(reason === undefined ? {} : { reason }),
    bytesBefore: 0,
    bytesAfter: 0,
    recordsBefore: 0,
    recordsAfter: 0,
    tombstonesRemoved: 0,
    segmentsCleaned: 0,
    segmentsAfter: 0,
    cleanPoint,
  };
}
