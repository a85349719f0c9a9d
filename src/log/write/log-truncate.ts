/**
 * `truncateTo`: dropping every record at or after an offset, durably, including the crash-safe
 * replacement of a batch the offset falls inside (its records below the offset must survive any
 * crash during the cut). The loader's overlap repair (`overlap.ts`) finishes a cut a crash
 * interrupted.
 */
import { decodeBatch, type DecodedRecord, encodeBatch, readBatchHeader } from "../../format/api.js";
import { filterBatch } from "../../format/filter-batch.js";
import { Segment } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import { segmentBatches } from "../compaction/cleaner-scan.js";
import { batchSize } from "../options/log-arguments.js";
import { deleteSegments } from "../state/segment-files.js";
import { pushSegment, replaceSegment, spliceSegments } from "../state/segment-list.js";
import { endOffsetOf, flushLog, keepsLogOpen, type LogState } from "../state/log-state.js";
import { assertInvariant, expensiveChecks } from "../../errors.js";
import { cutCursors } from "../state/read-cursors.js";
import { withdrawDurableOffset } from "../state/durable-mark.js";
import { SegmentSlot } from "../state/segment-slot.js";

/**
 * Drops every record at or after `offset`, which the caller checked lies in [start, end).
 * Durable when it resolves. Runs under the caller's `guard`.
 */
export async function truncateLog(s: LogState, offset: number): Promise<void> {
  // The clock first: one that throws fails the call before anything is cut.
  const startedAt = s.stopwatch.now();
  let index = s.segments.length - 1;
  while (s.segments[index]!.baseOffset > offset) index--;
  // A first use like any other: an idle segment is checked before anything is cut, and one that
  // fails its check changes nothing (the log stays open: its files and its state still agree).
  const segment = await s.segments[index]!.load().catch((err: unknown) => {
    throw keepsLogOpen(err);
  });
  // Then the iterators learn of the cut: from here on, no record at or after `offset` may be handed out.
  cutCursors(s.cursors, offset);
  s.writtenTail?.clear(); // and no follower is handed a batch this may cut (state/written-tail.ts)
  // Segments cut whole batches. If `offset` falls inside one, its records below `offset`
  // must live on in a batch of their own, and they were durable: no crash may lose them.
  const holding = await segment.read(offset, 1);
  const straddling = holding === null || holding.firstOffset >= offset ? [] : await recordsBelow(holding.bytes, offset);
  // 1. Lower the durable recovery point to `offset` first. Otherwise a crash in the middle
  //    of the cut (a truncation undone, a page tail zeroed) would look like damage to
  //    flushed data. Every step below keeps the records below `offset` durable.
  //    A batch cut whole whose first offset lies below `offset` (a cleaned batch that kept only
  //    records at or past it) takes the end below `offset` until the empty batch over the gap is
  //    written and flushed: the recovery point must not stay above that end meanwhile.
  const cutWhole = holding !== null && holding.firstOffset < offset && straddling.length === 0;
  const durableDuringCut = cutWhole ? await batchesEndBefore(s, segment, holding.firstOffset) : offset;
  if (s.recoveryPoint > durableDuringCut) {
    s.recoveryPoint = durableDuringCut;
    await s.host.checkpoint();
  }
  //    The published durable offset (durable-mark.ts) goes too, durably, whatever this session
  //    thinks it holds: an earlier session's file may name an offset above the cut.
  await withdrawDurableOffset(s);
  if (straddling.length > 0) {
    const batch = keptBatch(s, holding!.bytes, straddling, offset);
    // A cleaned gap before the batch: the replacement starts where the batches before it end,
    // with an empty batch over the gap, so that the segment cut there and it continue each other.
    const from = await batchesEndBefore(s, segment, holding!.firstOffset);
    const bytes = from === holding!.firstOffset ? batch : concat(emptyBatchUpTo(s, from, holding!.firstOffset), batch);
    await replaceStraddlingBatch(s, index, from, bytes, startedAt);
  } else {
    // 2. Cut: later segments newest first (a crash keeps a prefix), then this one.
    dropSegmentsAfter(s, index);
    await deleteSegments(s.host.storage, s.name, spliceSegments(s, index + 1));
    s.dirtySegments.add(segment);
    await segment.truncateTo(offset);
    // In a compacted log's cleaned part `offset` may lie in a gap: an empty batch up to it keeps
    // the offsets the cleaner dropped from being handed out again.
    if (segment.nextOffset < offset && offset <= s.offsetGaps.below)
      await segment.append(emptyBatchUpTo(s, segment.nextOffset, offset));
  }
  // 3. Durable before resolving. The flush wakes the waiters: a follower past the cut learns of it.
  await flushLog(s, { at: startedAt });
  checkTruncated(s, offset);
  // Then the clean point comes down to the new end: above it nothing is cleaned any more.
  if (offset < s.offsetGaps.below) {
    s.offsetGaps.below = offset;
    await s.host.cleaned?.(offset);
  }
}

/**
 * The truncation's assertions, once it is durable: the log ends at or below `offset` (below it
 * only where a cleaned batch was cut whole), its recovery point is that end, and (expensive, with
 * `PAGELOG_CHECKS=all`) no segment starts past it.
 */
export function checkTruncated(s: LogState, offset: number): void {
  const end = endOffsetOf(s);
  assertInvariant(
    end <= offset && s.recoveryPoint === end,
    () => `truncateTo(${offset}) of ${s.name} left end ${end}, recovery point ${s.recoveryPoint}`,
    s.name,
  );
  if (expensiveChecks) {
    const past = s.segments.find((slot) => slot.baseOffset > end);
    assertInvariant(
      past === undefined,
      () => `truncateTo(${offset}) of ${s.name} left segment ${past?.baseOffset} past end ${end}`,
      s.name,
    );
  }
}

/**
 * The batch that replaces the one straddling `offset`: its records below it. Re-encoded as before,
 * unless a cleaning left gaps in it: then its own bytes, filtered, ending at `offset - 1` (every
 * kept record keeps its offset).
 */
function keptBatch(s: LogState, bytes: Uint8Array, keep: readonly DecodedRecord[], offset: number): Uint8Array {
  const header = readBatchHeader(bytes);
  // Contiguous up to `offset - 1`: a cleaned gap between the last kept record and `offset` must
  // stay a gap (re-encoding would end the batch, and the log, at the last kept record).
  const contiguous =
    keep.every((r, i) => r.offset === header.baseOffset + i) && header.baseOffset + keep.length === offset;
  if (contiguous || header.compression !== 0)
    return encodeBatch(
      keep.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
      { baseOffset: header.baseOffset, ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }) },
    );
  return filterBatch(
    bytes.subarray(0, header.sizeInBytes),
    Array.from({ length: header.recordsCount }, (_, i) => i < keep.length),
    Array.from({ length: header.recordsCount }, (_, i) => keep[i]?.timestamp ?? 0),
    s.options.crc32c,
    offset - 1 - header.baseOffset,
  );
}

/** A batch with no record covering offsets [from, to) (Kafka's empty batch). */
function emptyBatchUpTo(s: LogState, from: number, to: number): Uint8Array {
  const one = encodeBatch([{ key: null, value: null }], { baseOffset: from, timestamp: 0 });
  return filterBatch(one, [false], [0], s.options.crc32c, to - 1 - from);
}

/**
 * Where the batches of `segment` before the one at `base` end (one past the last offset of the
 * previous batch): `base` itself unless a cleaning dropped the batches just before it, which only
 * happens below the clean point (no scan elsewhere).
 */
async function batchesEndBefore(s: LogState, segment: Segment, base: number): Promise<number> {
  if (base === segment.baseOffset || base > s.offsetGaps.below) return base;
  let end = segment.baseOffset;
  for await (const batch of segmentBatches(segment, s.segmentOptions)) {
    if (batch.header.baseOffset >= base) break;
    end = batch.header.baseOffset + batch.header.lastOffsetDelta + 1;
  }
  return end;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Forgets (for flushing) the segments after `index`, which the caller is about to delete. */
function dropSegmentsAfter(s: LogState, index: number): void {
  if (index + 1 >= s.segments.length) return;
  for (const slot of s.segments.slice(index + 1)) if (slot.segment !== undefined) s.dirtySegments.delete(slot.segment);
  s.dirDirty = true;
}

/**
 * truncateTo inside a batch: the batch starting at `base` is replaced by one holding only
 * `keep` (its records below the truncation offset), and everything after it goes, such that
 * a crash at any point leaves the old log, the new one, or the old one cut somewhere past
 * `keep`, never one without `keep`.
 *
 * The new batch is written whole to `<base>.log.tmp` and fsynced, then renamed (atomically)
 * to `<base>.log`: a crash before the rename leaves a `.tmp` the next open removes. If `base`
 * starts the segment, that replaces the segment's file. Otherwise it is a new segment that
 * overlaps the old one until the old one is cut at `base`; the loader finishes that cut if a
 * crash comes first (an overlap can only mean this).
 */
async function replaceStraddlingBatch(
  s: LogState,
  index: number,
  base: number,
  batch: Uint8Array,
  startedAt: number,
): Promise<void> {
  const storage = s.host.storage;
  const segment = s.segments[index]!.segment!; // loaded by truncateLog
  const logPath = segmentFilePath(s.name, base, LOG_SUFFIX);
  const tmp = `${logPath}.tmp`;
  const file = await storage.open(tmp, { create: true });
  try {
    await file.truncate(0);
    await file.write(0, batch);
    await file.sync(); // the content is durable before its name can make it part of the log
  } finally {
    await file.close();
  }
  dropSegmentsAfter(s, index);
  // The later segments go first, durably. Once the replacement has its name, a later segment left
  // behind (a crash before its deletion) would follow a gap at the cut: the replacement ends at
  // `offset - 1`, the next segment starts further on. Below the clean point the loader takes such
  // a gap for the cleaner's, keeps the segments after it, and the cut is lost with the record at
  // its edge. Found by the compaction workload, schedule 1512701580.
  const later = spliceSegments(s, index + 1);
  if (later.length > 0) {
    await deleteSegments(storage, s.name, later);
    await storage.syncDir(s.name);
  }
  if (base === segment.baseOffset) {
    s.dirtySegments.delete(segment);
    await segment.close();
  } else {
    // Once the new segment exists, this one lies below the segment holding the recovery point,
    // where the loader trusts indexes instead of walking: make them durable first (the active
    // segment's are synced lazily, see flushLog). Found by the crash property, schedule 600341771.
    await segment.flush();
  }
  await storage.rename(tmp, logPath);
  await storage.syncDir(s.name);
  const replacement = await Segment.open(storage, s.name, base, s.segmentOptions);
  await replacement.recover(); // one batch: rebuilds (and fsyncs) its indexes
  if (base === segment.baseOffset) {
    replaceSegment(s, index, SegmentSlot.of(s.slotContext, replacement));
  } else {
    s.dirtySegments.add(segment);
    await segment.truncateTo(base);
    await segment.flush();
    pushSegment(s, SegmentSlot.of(s.slotContext, replacement));
    s.activeCreatedAt = startedAt;
  }
  s.dirDirty = true;
}

/** The records below `offset` of the first batch in `bytes` (the batch that straddles it). */
async function recordsBelow(bytes: Uint8Array, offset: number): Promise<DecodedRecord[]> {
  const batch = await decodeBatch(bytes.subarray(0, batchSize(bytes, 0)));
  return batch.records.filter((r) => r.offset < offset);
}
