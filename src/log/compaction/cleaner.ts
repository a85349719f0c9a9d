/*
 * The log cleaner, as Kafka's LogCleaner cleans one log (Cleaner.clean): find the cleanable
 * range, build the key → latest offset map over its dirty part, then rewrite the segments from
 * the start of the log to the end of the dirty part, grouped into segments of at most
 * `segmentBytes`, each group swapped in by the crash-safe protocol of swap.ts.
 *
 * What it may clean: only segments below the active one and wholly below the recovery point (a
 * record a power cut could still take back must never be the reason an older, durable one is
 * removed), and, with `minCompactionLagMs`, only segments whose newest record is that old.
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import type { Segment } from "../../segment/segment.js";
import { guard, keepsLogOpen, type LogState } from "../log-state.js";
import { compacts } from "./cleanup-policy.js";
import type { SegmentSlot } from "../segment-slot.js";
import { removeIfThere } from "../segment-files.js";
import { keyString, segmentBatches } from "./cleaner-scan.js";
import { writeCleaned } from "./cleaned-segment.js";
import { CLEANED_SUFFIX, type CleaningRules } from "./cleaning-rules.js";
import { swapIn } from "./swap.js";

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
  /** The clean point after the cleaning (the first offset not cleaned). */
  readonly cleanPoint: number;
}

/** The range a cleaning covers: the first `count` segments, ending at `end`; dirty from `dirtyFrom`. */
interface Cleanable {
  readonly count: number;
  readonly end: number;
  readonly dirtyFrom: number;
}

/** A rejection if the log's policy does not compact (a TypeError: the caller's mistake), else undefined. */
export function refuseCompaction(s: LogState): Promise<never> | undefined {
  const policy = s.options.cleanupPolicy;
  if (compacts(policy)) return undefined;
  return Promise.reject(
    new TypeError(`compact() needs cleanupPolicy "compact" or "compact,delete", this log has "${policy}"`),
  );
}

/** `Log.compact()` in the log's queue: the clock, then the cleaning under `guard` (a storage error fails the log). */
export async function compactNow(s: LogState): Promise<CompactionResult> {
  const now = s.options.clock.now();
  return guard(s, () => compactLog(s, now));
}

/** Cleans the log now (inside its queue, under `guard`). `now` is the clock's wall time. */
export async function compactLog(s: LogState, now: number): Promise<CompactionResult> {
  const range = await cleanableRange(s, now);
  const nothing: CompactionResult = {
    bytesBefore: 0,
    bytesAfter: 0,
    recordsBefore: 0,
    recordsAfter: 0,
    tombstonesRemoved: 0,
    segmentsCleaned: 0,
    segmentsAfter: 0,
    cleanPoint: s.offsetGaps.below,
  };
  if (range === undefined) return nothing;
  const latest = await buildOffsetMap(s, range);
  // The clean point is durable before the first cleaned segment (with its gaps) can be swapped
  // in: the next open accepts gaps only below it. A crash before any swap leaves it past records
  // that were not cleaned, which only makes the next cleaning skip their duplicates.
  const previousCleanPoint = s.offsetGaps.below;
  s.offsetGaps.below = range.end;
  await s.host.cleaned?.(range.end);
  const rules = {
    latest,
    // A tombstone is dropped only once a cleaning reached it before (it lies below the clean
    // point this cleaning started from) and its segment's newest record is deleteRetentionMs old.
    tombstonesBelow: previousCleanPoint,
    tombstoneHorizon: now - s.options.deleteRetentionMs,
  };
  let totals = { ...nothing, cleanPoint: range.end };
  for (const group of await groups(s, range.count)) {
    const done = await cleanGroup(s, group, rules, range.end);
    totals = {
      ...totals,
      bytesBefore: totals.bytesBefore + done.bytesBefore,
      bytesAfter: totals.bytesAfter + done.bytesAfter,
      recordsBefore: totals.recordsBefore + done.recordsBefore,
      recordsAfter: totals.recordsAfter + done.recordsAfter,
      tombstonesRemoved: totals.tombstonesRemoved + done.tombstonesRemoved,
      segmentsCleaned: totals.segmentsCleaned + (done.swapped ? group.length : 0),
      segmentsAfter: totals.segmentsAfter + (done.swapped ? 1 : 0),
    };
  }
  return totals;
}

/**
 * The leading segments the cleaner may rewrite: below the active one, wholly below the recovery
 * point, newest record at least `minCompactionLagMs` old. Undefined when nothing is dirty.
 */
async function cleanableRange(s: LogState, now: number): Promise<Cleanable | undefined> {
  const lag = s.options.minCompactionLagMs;
  let count = 0;
  while (count < s.segments.length - 1) {
    const slot = s.segments[count]!;
    if (slot.nextOffset > s.recoveryPoint) break;
    if (lag > 0 && (await loaded(slot)).maxTimestamp > now - lag) break;
    count++;
  }
  if (count === 0) return undefined;
  const end = s.segments[count - 1]!.nextOffset;
  const dirtyFrom = Math.max(s.offsetGaps.below, s.segments[0]!.baseOffset);
  if (dirtyFrom >= end) return undefined;
  return { count, end, dirtyFrom };
}

/** Key → offset of its latest record in [dirtyFrom, end). Keyless records are never superseded. */
async function buildOffsetMap(s: LogState, range: Cleanable): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  for (const slot of s.segments.slice(0, range.count)) {
    if (slot.nextOffset <= range.dirtyFrom) continue;
    for await (const batch of segmentBatches(await loaded(slot), s.segmentOptions)) {
      for (const r of batch.records)
        if (r.key !== null && r.offset >= range.dirtyFrom) latest.set(keyString(r.key), r.offset);
    }
  }
  return latest;
}

/**
 * Consecutive segments whose `.log`s together fit `segmentBytes`, whose indexes together fit
 * `maxIndexBytes` and whose offsets fit a segment's int32 relative offsets (Kafka's
 * groupSegmentsBySize). The sizes are the sources': the cleaned segment is never larger.
 */
async function groups(s: LogState, count: number): Promise<SegmentSlot[][]> {
  const { segmentBytes, maxIndexBytes, indexIntervalBytes } = s.options;
  // The most index bytes a cleaned segment of `bytes` can need: an entry (12 bytes at most) per
  // index interval, and never more than one per smallest batch (68 bytes).
  const indexFor = (bytes: number): number => 12 * (1 + Math.floor(bytes / Math.max(68, indexIntervalBytes)));
  const out: SegmentSlot[][] = [];
  let group: SegmentSlot[] = [];
  let bytes = 0;
  for (const slot of s.segments.slice(0, count)) {
    const size = await slot.size(); // one stat of an idle segment
    const fits =
      bytes + size <= segmentBytes &&
      indexFor(bytes + size) <= maxIndexBytes &&
      slot.nextOffset - 1 - (group[0]?.baseOffset ?? 0) <= 0x7fffffff;
    if (group.length > 0 && !fits) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(slot);
    bytes += size;
  }
  if (group.length > 0) out.push(group);
  return out;
}

/** Loads a slot (its first use checks it); a check that fails leaves the log as it was. */
async function loaded(slot: SegmentSlot): Promise<Segment> {
  return slot.segment ?? (await slot.load().catch((err: unknown) => Promise.reject(keepsLogOpen(err))));
}

interface GroupDone {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly recordsBefore: number;
  readonly recordsAfter: number;
  readonly tombstonesRemoved: number;
  readonly swapped: boolean;
}

/** Cleans one group into `<base>.log.cleaned` and swaps it in (or, if it dropped nothing, removes it). */
async function cleanGroup(
  s: LogState,
  group: SegmentSlot[],
  rules: CleaningRules,
  cleanEnd: number,
): Promise<GroupDone> {
  const sources = [];
  for (const slot of group) sources.push(await loaded(slot));
  const base = group[0]!.baseOffset;
  let written;
  try {
    written = await writeCleaned(s, base, sources, rules, cleanEnd);
  } catch (err) {
    // Damage found while reading: nothing was swapped, the partial `.cleaned` files go.
    await removeCleaned(s, base);
    throw isPagelogError(err, ErrorCode.CORRUPT) ? keepsLogOpen(err) : err;
  }
  const before = sources.reduce((sum, seg) => sum + seg.size, 0);
  const result = { ...written.stats, bytesBefore: before, bytesAfter: written.size };
  if (written.stats.recordsAfter === written.stats.recordsBefore && written.size === before) {
    await removeCleaned(s, base); // nothing to reclaim: keep the segments as they are
    return { ...result, swapped: false };
  }
  await swapIn(s, group, written.size);
  return { ...result, swapped: true };
}

async function removeCleaned(s: LogState, base: number): Promise<void> {
  for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
    await removeIfThere(s.host.storage, segmentFilePath(s.name, base, suffix) + CLEANED_SUFFIX);
}
