/*
 * The rules compaction adds to a log's calls, checked before anything is queued: every appended
 * record has a key (the cleaner keeps the latest record of each key, and a record without one
 * could be neither kept nor dropped by it), and `compact()` needs a policy that compacts. Apart
 * from the cleaner, which a log loads only when its policy compacts (log.ts, `openLog`).
 */
import type { RecordSnapshot } from "../../format/record-codec.js";
import { type CleanupPolicy, compacts } from "../options/cleanup-policy.js";

/** A rejection if the log's policy does not compact (a TypeError: the caller's mistake), else undefined. */
export function refuseCompaction(policy: CleanupPolicy): Promise<never> | undefined {
  if (compacts(policy)) return undefined;
  return Promise.reject(
    new TypeError(`compact() needs cleanupPolicy "compact" or "compact,delete", this log has "${policy}"`),
  );
}

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
