/*
 * Writing one cleaned segment, `<base>.log.cleaned` and its two indexes, from a group of source
 * segments: each source batch keeps the records the rules keep, with its own base offset, last
 * offset delta, base timestamp, producer fields and attributes (filter-batch.ts). A batch left
 * with no record is dropped, except the group's first and last (kept as Kafka's empty batches):
 * the cleaned segment then starts at its name's offset and ends where the next segment starts,
 * so every check that segments continue one another holds as before.
 */
import { filterBatch } from "../../format/filter-batch.js";
import { CONTROL_FLAG_MASK } from "../../format/index.js";
import { Segment } from "../../segment/segment.js";
import type { LogState } from "../state/log-state.js";
import { type CleanerBatch, keyString, segmentBatches } from "./cleaner-scan.js";
import { CLEANED_SUFFIX, type CleaningRules } from "./cleaning-rules.js";

interface Stats {
  recordsBefore: number;
  recordsAfter: number;
  tombstonesRemoved: number;
}

/**
 * Writes the cleaned segment of `sources` (consecutive, the first at `base`) and makes its three
 * files durable: their content must be on disk before any name can say the cleaning finished.
 */
export async function writeCleaned(
  s: LogState,
  base: number,
  sources: readonly Segment[],
  rules: CleaningRules,
  cleanEnd: number,
): Promise<{ size: number; stats: Stats }> {
  const options = { ...s.segmentOptions, offsetGaps: { below: cleanEnd } };
  const cleaned = await Segment.open(s.host.storage, s.name, base, options, CLEANED_SUFFIX);
  const stats: Stats = { recordsBefore: 0, recordsAfter: 0, tombstonesRemoved: 0 };
  try {
    // A `.cleaned` of an earlier, failed cleaning is garbage: start from nothing.
    if (cleaned.size > 0) await cleaned.log.truncate(0);
    let pending: { bytes: Uint8Array; empty: boolean } | undefined;
    let first = true;
    for (const source of sources) {
      for await (const batch of segmentBatches(source, s.segmentOptions)) {
        if (pending !== undefined && (!pending.empty || first)) await cleaned.append(pending.bytes);
        if (pending !== undefined) first = false;
        pending = cleanBatch(s, source, batch, rules, stats);
      }
    }
    if (pending !== undefined) await cleaned.append(pending.bytes); // the last batch, even empty
    await cleaned.seal(); // the last time-index entry, as a roll adds
    await cleaned.flush({ force: true }); // log and both indexes durable before the rename to .swap
    return { size: cleaned.size, stats };
  } finally {
    await cleaned.close();
  }
}

/** One source batch with the records the rules keep (the same bytes if it keeps them all). */
function cleanBatch(
  s: LogState,
  source: Segment,
  batch: CleanerBatch,
  rules: CleaningRules,
  stats: Stats,
): { bytes: Uint8Array; empty: boolean } {
  const { header, records } = batch;
  stats.recordsBefore += records.length;
  // Compressed and control batches are copied whole: pagelog writes neither, and re-compressing
  // a batch from another writer is not the cleaner's to do.
  if (header.compression !== 0 || (header.attributes & CONTROL_FLAG_MASK) !== 0) {
    for (const r of records) if (r.key !== null && r.value !== null) rules.keptValues.add(keyString(r.key));
    stats.recordsAfter += records.length;
    return { bytes: batch.bytes, empty: false };
  }
  const keep = records.map((r) => {
    if (r.key === null) return true; // never superseded: no key to supersede it by
    const key = keyString(r.key);
    const latest = rules.latest.get(key);
    if (latest !== undefined && r.offset < latest) return false;
    if (r.value !== null) {
      rules.keptValues.add(key);
      return true;
    }
    // A tombstone goes once its retention is over, unless a value of its key is still kept
    // before it (a group the clean point passed but a crash left uncleaned: kept-keys.ts).
    const expired = r.offset < rules.tombstonesBelow && source.maxTimestamp <= rules.tombstoneHorizon;
    if (expired && !rules.keptValues.mightHave(key)) {
      stats.tombstonesRemoved++;
      return false;
    }
    return true;
  });
  const kept = keep.filter(Boolean).length;
  stats.recordsAfter += kept;
  if (kept === records.length) return { bytes: batch.bytes, empty: false };
  const bytes = filterBatch(
    batch.bytes,
    keep,
    records.map((r) => r.timestamp),
    s.options.crc32c,
  );
  return { bytes, empty: kept === 0 };
}
