/*
 * The one rule compaction adds to appending: every record has a key, since the cleaner keeps the
 * latest record of each key and a record without one could be neither kept nor dropped by it.
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
