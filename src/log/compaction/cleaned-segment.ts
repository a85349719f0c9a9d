/*
 * Writing one cleaned segment, `<base>.log.cleaned` and its two indexes, from a group of source
 * segments: each source batch keeps the records the rules keep, with its own base offset, last
 * offset delta, base timestamp, producer fields and attributes (filter-batch.ts). A batch left
 * with no record is dropped, except the group's first and last (kept as Kafka's empty batches):
 * the cleaned segment then starts at its name's offset and ends where the next segment starts,
 * so every check that segments continue one another holds as before.
 *
 * It touches only its own `.cleaned` files: a background cleaning runs it outside the log's
 * queue (the sources' bytes come through `CleanerSource`, whose reads take the queue's turns).
 */
import { type BatchHeader, readBatchHeader } from "../../format/index.js";
import { filterBatch } from "../../format/filter-batch.js";
import { Segment } from "../../segment/segment.js";
import type { LogState } from "../state/log-state.js";
import { type CleanerBatch, visitRecords } from "./cleaner-scan.js";
import { CLEANED_SUFFIX, type CleaningRules } from "./cleaning-rules.js";

interface Stats {
  recordsBefore: number;
  recordsAfter: number;
  tombstonesRemoved: number;
}

/** One source segment of a group: its `.log`'s size, its newest record's timestamp, and its batches. */
export interface CleanerSource {
  readonly size: number;
  readonly maxTimestamp: number;
  batches(): AsyncIterable<CleanerBatch>;
}

/** How many bytes of cleaned batches are gathered into one write. */
const WRITE_BYTES = 256 << 10;

/**
 * Writes the cleaned segment of `sources` (consecutive, the first at `base`) and makes its three
 * files durable: their content must be on disk before any name can say the cleaning finished.
 * `pause` is awaited between writes (a background cleaning yields to the log's calls there).
 */
export async function writeCleaned(
  s: LogState,
  base: number,
  sources: readonly CleanerSource[],
  rules: CleaningRules,
  cleanEnd: number,
  pause: () => Promise<void>,
): Promise<{ size: number; stats: Stats }> {
  const options = { ...s.segmentOptions, offsetGaps: { below: cleanEnd } };
  const cleaned = await Segment.open(s.host.storage, s.name, base, options, CLEANED_SUFFIX);
  const stats: Stats = { recordsBefore: 0, recordsAfter: 0, tombstonesRemoved: 0 };
  try {
    // A `.cleaned` of an earlier, failed cleaning is garbage: start from nothing.
    if (cleaned.size > 0) await cleaned.log.truncate(0);
    // Written (and paused after) every WRITE_BYTES read or to write, whichever comes first: a
    // group that drops most of its records must not hold the thread for all of them.
    let out: Array<{ bytes: Uint8Array; header: BatchHeader }> = [];
    let outBytes = 0;
    let inBytes = 0;
    const write = async (): Promise<void> => {
      if (out.length > 0) await cleaned.appendBatches(out);
      out = [];
      outBytes = 0;
      inBytes = 0;
      await pause();
    };
    let pending: { bytes: Uint8Array; empty: boolean } | undefined;
    let first = true;
    for (const source of sources) {
      for await (const batch of source.batches()) {
        if (pending !== undefined && (!pending.empty || first)) {
          out.push({ bytes: pending.bytes, header: readBatchHeader(pending.bytes) });
          outBytes += pending.bytes.length;
        }
        inBytes += batch.bytes.length;
        if (outBytes >= WRITE_BYTES || inBytes >= WRITE_BYTES) await write();
        if (pending !== undefined) first = false;
        pending = cleanBatch(s, source.maxTimestamp, batch, rules, stats);
      }
    }
    if (pending !== undefined) out.push({ bytes: pending.bytes, header: readBatchHeader(pending.bytes) }); // the last batch, even empty
    await write();
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
  maxTimestamp: number,
  batch: CleanerBatch,
  rules: CleaningRules,
  stats: Stats,
): { bytes: Uint8Array; empty: boolean } {
  const count = batch.header.recordsCount;
  stats.recordsBefore += count;
  // Compressed and control batches are copied whole: pagelog writes neither, and re-compressing
  // a batch from another writer is not the cleaner's to do.
  if (batch.whole) {
    visitRecords(batch, (_i, _o, _t, key, from, to, tombstone) => {
      if (key !== null && !tombstone) rules.keptValues.add(key, from, to);
    });
    stats.recordsAfter += count;
    return { bytes: batch.bytes, empty: false };
  }
  const keep = new Array<boolean>(count);
  const timestamps = new Array<number>(count);
  let kept = 0;
  visitRecords(batch, (i, offset, timestamp, key, from, to, tombstone) => {
    const k = keepRecord(key, from, to, offset, tombstone, maxTimestamp, rules, stats);
    keep[i] = k;
    timestamps[i] = timestamp;
    if (k) kept++;
  });
  stats.recordsAfter += kept;
  if (kept === count) return { bytes: batch.bytes, empty: false };
  const bytes = filterBatch(batch.bytes, keep, timestamps, s.options.crc32c);
  return { bytes, empty: kept === 0 };
}

/** Whether the cleaning keeps one record (a source segment's newest timestamp is `maxTimestamp`). */
function keepRecord(
  key: Uint8Array | null,
  from: number,
  to: number,
  offset: number,
  tombstone: boolean,
  maxTimestamp: number,
  rules: CleaningRules,
  stats: Stats,
): boolean {
  if (key === null) return true; // never superseded: no key to supersede it by
  if (offset < rules.latest.latest(key, from, to)) return false;
  if (!tombstone) {
    rules.keptValues.add(key, from, to);
    return true;
  }
  // A tombstone goes once its retention is over, unless a value of its key is still kept
  // before it (a group the clean point passed but a crash left uncleaned: kept-keys.ts).
  const expired = offset < rules.tombstonesBelow && maxTimestamp <= rules.tombstoneHorizon;
  if (expired && !rules.keptValues.mightHave(key, from, to)) {
    stats.tombstonesRemoved++;
    return false;
  }
  return true;
}
