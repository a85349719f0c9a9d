/*
 * The rule compaction adds to a log's appends, checked before anything is queued: every appended
 * record has a key (the cleaner keeps the latest record of each key, and a record without one
 * could be neither kept nor dropped by it). Part of the cleaner's chunk, which a log loads only
 * when its policy compacts (log.ts, `openLog`): `BackgroundCleaner.refuseKeyless` is the log's
 * way to it. (`compact()` on a log whose policy does not compact is refused in log.ts.)
 */
import type { RecordSnapshot } from "../../format/record-codec.js";

/**
 * Throws a TypeError naming the first record without a key, before anything is written (Kafka's
 * broker refuses such a batch: "Compacted topic cannot accept message without key").
 */
export function refuseKeyless(records: readonly RecordSnapshot[]): void {
  for (let i = 0; i < records.length; i++) {
    if (records[i]!.key === null)
      throw new TypeError(
        `records[${i}].key must not be null or absent: a compacted log (cleanupPolicy with "compact") cannot accept a record without a key`,
      );
  }
}
