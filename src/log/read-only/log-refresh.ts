/*
 * Following, from a read-only open, the files a writer in another process changes: what a
 * refresh (`log.refresh()`, or a waiting read-only follower's poll) does. It reads only:
 * 1. the checkpoints again (the recovery point a durable read may go up to; the start offset),
 *    and the recovery point once more after the files (step 4): a truncateTo in between lowered
 *    it before it cut, and what the writer appended after may be walked but not flushed;
 * 2. the partition's listing: segments the writer deleted from the front (retention) move the
 *    start offset; segments gone from the back (a truncateTo) are a cut at the first one's base;
 * 3. the last segment left: if bytes already read changed (its marks, see tail-marks.ts: a
 *    truncation, maybe refilled since), it is walked again and the cut moves down to the first
 *    changed offset. Live `records()` iterators learn of every cut (read-cursors.ts), so one
 *    that had passed it reports `PAGELOG_TRUNCATED`, never a silent splice;
 * 4. the end: the last segment's new whole valid batches are walked and indexed (in memory), and
 *    while it ends exactly where a listed segment starts (a roll), that one is walked too. A torn
 *    or half-written batch at the tail is not visible yet.
 * A writer's crash and reopen needs nothing of its own: its recovery cuts only a tail the reader
 * never saw (a killed process loses no page-cache bytes) and rewrites the rest with the same bytes.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import { checkDurablePrefix, loadReadOnly, MARKED_SEGMENTS, walkSegment } from "./log-load-readonly.js";
import { activeSegment, endOffsetOf, type LogState } from "../state/log-state.js";
import {
  type CheckpointedValues,
  durableOf,
  followCleanPoint,
  listSegmentBases,
  type ReadOnlyState,
} from "../state/read-only-state.js";
import { cleanedSince, isCleaning, noteCheckpoints } from "./refresh-cleaned.js";
import { cutCursors } from "../state/read-cursors.js";
import { wake } from "../state/log-waiters.js";
import { stopPolling } from "./read-only-poll.js";
import { pushSegment, replaceAllSegments, replaceSegment, spliceSegments } from "../state/segment-list.js";
import { SegmentSlot } from "../state/segment-slot.js";
import type { TailMarks } from "../state/tail-marks.js";
import { discard, draftOf, publish } from "./refresh-draft.js";

/**
 * A refresh that meets the writer half way through a change (a file renamed or deleted between
 * the listing and its read, a segment listed beside one it replaces) runs again on a new listing,
 * up to this many times in all: each try is a few reads, and a writer's change is over in a few
 * of its own calls. Real damage fails every try the same way and is reported then.
 */
const REFRESH_TRIES = 4;

/** Brings a read-only log's view of its files up to date (see the file comment), then wakes the waiters. */
export async function refreshLog(s: LogState, ro: ReadOnlyState): Promise<void> {
  try {
    for (let tries = 1; ; tries++) {
      // A draft, published at once (refresh-draft.ts): the getters never see a refresh half way.
      const draft = draftOf(s, ro);
      let raced: boolean;
      try {
        raced = await refreshFiles(draft.s, draft.ro);
      } catch (err) {
        await discard(s, draft);
        if (tries >= REFRESH_TRIES || !mayBeRace(err)) throw err;
        // Give the writer's change a moment to finish (another process: its next few calls).
        await new Promise((resolve) => setTimeout(resolve, tries));
        continue;
      }
      if (raced && tries < REFRESH_TRIES) {
        // The view stops short of the listing because a cleaning swapped files in under a clean
        // point newer than the one this try read: its gaps looked like a truncation in progress,
        // and publishing would move the end down with nothing cut. Read it all again. (On the
        // last try the short view is published: it is what the files held under that clean point.)
        await discard(s, draft);
        await new Promise((resolve) => setTimeout(resolve, tries));
        continue;
      }
      await publish(s, ro, draft);
      return;
    }
  } finally {
    ro.lastRefreshAt = Date.now();
    wake(s.waiters);
  }
}

/** What a writer's change in progress can make a read see: a file gone, or files that do not fit together yet. */
function mayBeRace(err: unknown): boolean {
  if (!(err instanceof PagelogError)) return false;
  return (
    err.code === ErrorCode.NOT_FOUND || err.code === ErrorCode.CORRUPT || err.code === ErrorCode.OFFSET_OUT_OF_RANGE
  );
}

/**
 * Brings the draft up to date; resolves with whether it raced a cleaning (`stoppedShortByCleaning`):
 * then the caller reads again rather than publish.
 */
async function refreshFiles(s: LogState, ro: ReadOnlyState): Promise<boolean> {
  const checkpointed = await ro.readCheckpoints();
  followCleanPoint(s.offsetGaps, checkpointed); // before the files are read: the gaps a cleaning made are legal
  const bases = await listSegmentBases(s.host.storage, s.name);
  const listed = new Set(bases);
  if (ro.phantom || !s.segments.some((slot) => listed.has(slot.baseOffset))) {
    if (ro.phantom && bases.length === 0) return false;
    // Nothing the reader holds is there any more (or nothing was): start from the listing again.
    if (!ro.phantom) cutCursors(s.cursors, s.startOffset);
    await reload(s, ro, checkpointed);
    noteCheckpoints(ro, checkpointed);
    return stoppedShortByCleaning(s, ro, listed, checkpointed);
  }
  if ((await cleanedSince(s, ro, listed, checkpointed)) !== undefined) {
    // The writer's cleaner rewrote segments the reader holds (a swap: refresh-cleaned.ts). Every
    // offset keeps its record or lost it, so nothing is cut: iterators go on from their positions.
    await reload(s, ro, checkpointed);
    noteCheckpoints(ro, checkpointed);
    return stoppedShortByCleaning(s, ro, listed, checkpointed);
  }
  dropDeletedFront(s, ro, listed);
  // Only a truncateTo lowers the checkpointed recovery point (before it cuts): since the last
  // refresh the writer may have replaced a segment's file by one of the same size, whose old
  // handle still reads the old bytes. Then the marks are read through the file under the name.
  const truncated = checkpointed.recoveryPoint !== undefined && checkpointed.recoveryPoint < ro.recoveryPointSeen;
  // So are they when this refresh is to raise the recovery point over bytes an earlier one walked:
  // a durable read then vouches for them, and a truncateTo since may have replaced their file
  // (a rename) and refilled it to its old size with a checkpoint no lower than the last one read
  // (a later cut, or a checkpoint, raised it again), while the old handle reads the old bytes.
  const rising = Math.min(durableOf(checkpointed), endOffsetOf(s)) > s.recoveryPoint;
  const byName = truncated || rising;
  let cut = await cutAtBack(s, ro, listed);
  cut = Math.min(cut, await cutAtChangedMarks(s, ro, listed, byName));
  cut = Math.min(cut, await rewalkIfChanged(s, ro, cut, checkpointed, byName));
  // It lowered the checkpoint to where it cut (unless a flush and a checkpoint since raised it
  // again): the cut is at most there, whatever the files look like.
  if (truncated) cut = Math.min(cut, checkpointed.recoveryPoint);
  cut = Math.min(cut, await rewalkFromCut(s, ro, cut));
  if (cut < Infinity) cutCursors(s.cursors, cut);
  await extend(s, ro, listed);
  const end = endOffsetOf(s);
  const before = checkpointed.recoveryPoint ?? 0;
  // Read again now the files are read, if the recovery point is to move up (or to check it): a
  // truncateTo since the first read lowered it before it cut, and what it appended after (walked
  // just now) may not be flushed. Both bound the durable. (Below the last view's recovery point,
  // bytes not cut are the ones that were durable then.) The published durable offset raises
  // the durable only, never the structural checks (see CheckpointedValues.published).
  const again = Math.min(durableOf(checkpointed), end) > s.recoveryPoint ? await ro.readCheckpoints() : undefined;
  const after = again === undefined ? before : again.recoveryPoint;
  if (before > end) checkDurablePrefix(s.name, end, after);
  const first = s.segments[0]!.baseOffset;
  s.startOffset = Math.min(Math.max(s.startOffset, first, checkpointed.logStartOffset ?? first), end);
  const durable = Math.min(durableOf(checkpointed), again === undefined ? Infinity : durableOf(again), end);
  // The checkpoint lags the writer's flushes, and a cut takes back what it passed.
  s.recoveryPoint = cut < Infinity ? Math.min(durable, cut) : Math.max(Math.min(s.recoveryPoint, end), durable);
  noteCheckpoints(ro, checkpointed);
  return stoppedShortByCleaning(s, ro, listed, checkpointed);
}

/**
 * Whether the view stops before segments the listing holds while the clean point moved since
 * this refresh read it. The writer's cleaner writes its clean point, then swaps the cleaned files
 * in: a refresh that read the old clean point and then walked a swapped-in segment sees the
 * cleaning's gap before the next segment as a segment that does not continue its predecessor (a
 * truncateTo in progress), and stops there, below the end it showed before. Only then is the
 * checkpoint read again (a view that reaches the last listed segment needs no second read).
 */
async function stoppedShortByCleaning(
  s: LogState,
  ro: ReadOnlyState,
  listed: ReadonlySet<number>,
  checkpointed: CheckpointedValues,
): Promise<boolean> {
  const last = activeSegment(s).baseOffset;
  if (![...listed].some((base) => base > last)) return false;
  return (await ro.readCheckpoints()).cleanPoint !== checkpointed.cleanPoint;
}

/** Retention deleted the oldest segments (the front is gone, a later one of ours is still there). */
function dropDeletedFront(s: LogState, ro: ReadOnlyState, listed: ReadonlySet<number>): void {
  let gone = 0;
  while (gone < s.segments.length - 1 && !listed.has(s.segments[gone]!.baseOffset)) gone++;
  if (gone === 0) return;
  // Closed when the refresh publishes (refresh-draft.ts): until then the log still holds them.
  for (const slot of spliceSegments(s, 0, gone)) ro.marks.delete(slot.baseOffset);
}

/** Segments gone from the back: a truncation. Returns the cut (Infinity if none) and drops them. */
async function cutAtBack(s: LogState, ro: ReadOnlyState, listed: ReadonlySet<number>): Promise<number> {
  let keep = s.segments.length;
  while (keep > 1 && !listed.has(s.segments[keep - 1]!.baseOffset)) keep--;
  if (keep === s.segments.length) return Infinity;
  const cut = s.segments[keep]!.baseOffset;
  for (const slot of spliceSegments(s, keep)) ro.marks.delete(slot.baseOffset);
  return cut;
}

/**
 * The last segment left: walks it again if bytes already read changed, or if the segments after
 * it went (it may have been cut too). Returns the lowest offset that may have changed, or Infinity.
 */
async function rewalkIfChanged(
  s: LogState,
  ro: ReadOnlyState,
  cutAfter: number,
  checkpointed: CheckpointedValues,
  byName: boolean,
): Promise<number> {
  const index = s.segments.length - 1;
  const slot = s.segments[index]!;
  const marks = ro.marks.get(slot.baseOffset);
  let changedAt: number | undefined;
  if (marks !== undefined && slot.segment !== undefined) {
    const found = await firstChanged(s, slot, marks, byName);
    changedAt = found.at;
    // A file replaced under its name (a truncateTo's rename of a batch that starts the segment)
    // while the reader had walked none of its bytes is walked again all the same: the old handle
    // still reads the old file, which the writer no longer appends to.
    if (changedAt === undefined && cutAfter === Infinity && !found.replaced) return Infinity;
  } else if (cutAfter === Infinity) {
    return Infinity;
  } else {
    // No marks (a segment trusted at open, never walked), and the segments after it are gone: a
    // truncateTo reached into it. It lowered the checkpointed recovery point to its offset before
    // it cut (read again now: after the cut), which bounds the cut even if the writer refilled
    // the segment since. (A later checkpoint may have raised it again: then the old end does.)
    changedAt = Math.min(slot.nextOffset, (await ro.readCheckpoints()).recoveryPoint ?? slot.nextOffset);
    // Loaded (read from) and of another size now: cut and refilled, somewhere from its base on.
    if (slot.segment !== undefined && !(await sameSize(s, slot))) changedAt = slot.baseOffset;
  }
  const oldEnd = slot.nextOffset;
  ro.marks.delete(slot.baseOffset);
  // A segment wholly below the clean point rewritten under its name: a cleaning at the same clean
  // point (tombstones past deleteRetentionMs), not a cut (refresh-cleaned.ts).
  const cleaned =
    cutAfter === Infinity &&
    slot.baseOffset < (checkpointed.cleanPoint ?? 0) &&
    oldEnd <= (checkpointed.cleanPoint ?? 0) &&
    (await isCleaning(ro, oldEnd));
  const { segment, marked } = await walkSegment(s.slotContext, slot.baseOffset);
  replaceSegment(s, index, SegmentSlot.of(s.slotContext, segment));
  ro.marks.set(slot.baseOffset, marked);
  if (cleaned || (changedAt === undefined && cutAfter === Infinity)) return Infinity;
  return Math.min(changedAt ?? oldEnd, segment.nextOffset);
}

/**
 * A segment before the last that is gone from the listing, or walked and whose bytes changed: a
 * truncateTo cut into it (or below it) and the writer refilled past it, rolling again at some of
 * the same base offsets (the listing's ends look the same). From there on the segments are
 * dropped, as `cutAtBack` drops them; returns the cut, or Infinity.
 */
async function cutAtChangedMarks(
  s: LogState,
  ro: ReadOnlyState,
  listed: ReadonlySet<number>,
  byName: boolean,
): Promise<number> {
  for (let index = 0; index < s.segments.length - 1; index++) {
    const slot = s.segments[index]!;
    if (!listed.has(slot.baseOffset)) {
      // (The front is listed: dropDeletedFront ran.) A cleaning's grouping was told apart before.
      for (const dropped of spliceSegments(s, index)) ro.marks.delete(dropped.baseOffset);
      return slot.baseOffset;
    }
    const marks = ro.marks.get(slot.baseOffset);
    if (marks === undefined || slot.segment === undefined) continue;
    if ((await firstChanged(s, slot, marks, byName)).at === undefined) continue;
    const cut = s.segments[index + 1]!.baseOffset;
    for (const dropped of spliceSegments(s, index + 1)) ro.marks.delete(dropped.baseOffset);
    return cut;
  }
  return Infinity;
}

/**
 * The first offset of `slot` whose walked bytes its file no longer holds (`at`, undefined if
 * none), and whether the file under its name may be another one than the slot reads while no
 * walked byte tells (`replaced`: none were walked). `throughName`: the marks are read through
 * the name in any case (the writer truncated since the last refresh, or the refresh is to make
 * walked bytes durable: see refreshFiles).
 */
async function firstChanged(
  s: LogState,
  slot: SegmentSlot,
  marks: TailMarks,
  throughName: boolean,
): Promise<{ at: number | undefined; replaced: boolean }> {
  const loaded = slot.segment!;
  const path = segmentFilePath(s.name, slot.baseOffset, LOG_SUFFIX);
  const stat = await s.host.storage.stat(path);
  const size = stat?.kind === "file" ? stat.size : 0;
  // Storage has no file identity: a handle whose file has another size than the name's may read
  // a replaced file (a truncateTo's rename), so the marks are checked through the name. (An
  // append between the two calls looks the same: the cost is one open.) A replacement changes
  // the walked bytes from the first batch on, so only a segment walked empty needs `replaced`.
  const sameFile = size === (await loaded.log.size());
  const byName = !sameFile || throughName;
  const probe = byName ? await s.host.storage.open(path, { readOnly: true }) : loaded.log;
  try {
    const at = await marks.firstChanged(probe, size);
    return { at, replaced: !sameFile && marks.end === 0 };
  } finally {
    if (byName) await probe.close();
  }
}

/**
 * After a cut at `cut`: the segment holding it is the last one the view keeps, walked again from
 * its file, and the segments after it go (`extend` walks on into what the listing holds now).
 * The cut may lie below the last slot: a truncateTo into an older segment that the writer
 * refilled past its old end, rolling again at the same base offsets (the later ones are listed,
 * but hold other records). An older segment the reader loaded but holds no marks of (it keeps
 * them for its last `MARKED_SEGMENTS` walks) has only its size to tell: one whose file has
 * another size now was cut too, and the cut moves down to its base. Returns the cut.
 */
async function rewalkFromCut(s: LogState, ro: ReadOnlyState, cut: number): Promise<number> {
  if (cut === Infinity) return cut;
  let holding = s.segments.findIndex((slot) => slot.nextOffset > cut);
  if (holding < 0) holding = s.segments.length - 1;
  for (let index = holding - 1; index >= 0; index--) {
    const slot = s.segments[index]!;
    if (slot.segment === undefined || ro.marks.has(slot.baseOffset) || (await sameSize(s, slot))) continue;
    holding = index;
    cut = Math.min(cut, slot.baseOffset);
  }
  if (holding === s.segments.length - 1) return cut;
  const slot = s.segments[holding]!;
  for (const dropped of spliceSegments(s, holding + 1)) ro.marks.delete(dropped.baseOffset);
  const { segment, marked } = await walkSegment(s.slotContext, slot.baseOffset);
  replaceSegment(s, holding, SegmentSlot.of(s.slotContext, segment));
  ro.marks.set(slot.baseOffset, marked);
  for (const base of [...ro.marks.keys()].slice(0, -MARKED_SEGMENTS)) ro.marks.delete(base);
  return Math.min(cut, segment.nextOffset);
}

/** Whether the loaded `slot`'s file under its name has the size the slot knows. */
async function sameSize(s: LogState, slot: SegmentSlot): Promise<boolean> {
  const stat = await s.host.storage.stat(segmentFilePath(s.name, slot.baseOffset, LOG_SUFFIX));
  return stat?.kind === "file" && stat.size === slot.segment?.size;
}

/** Walks the bytes the last segment gained, and on into the segments a roll started. */
async function extend(s: LogState, ro: ReadOnlyState, listed: ReadonlySet<number>): Promise<void> {
  for (;;) {
    const active = activeSegment(s);
    const stat = await s.host.storage.stat(segmentFilePath(s.name, active.baseOffset, LOG_SUFFIX));
    if (stat === null || stat.kind !== "file") return;
    const marks = ro.marks.get(active.baseOffset);
    const stop = await active.catchUp(stat.size, (batch) => marks?.add(batch));
    // As at open: only a next segment that continues this one exactly (not after a gap, nor one
    // that overlaps it: a truncateTo the writer is in the middle of) is part of the log for now.
    const next = Math.min(...[...listed].filter((base) => base > active.baseOffset));
    if (stop.reason !== undefined || next !== active.nextOffset) return;
    const { segment, marked } = await walkSegment(s.slotContext, active.nextOffset);
    pushSegment(s, SegmentSlot.of(s.slotContext, segment));
    ro.marks.set(segment.baseOffset, marked);
    for (const base of [...ro.marks.keys()].slice(0, -MARKED_SEGMENTS)) ro.marks.delete(base);
  }
}

/** Replaces every segment with what the listing holds now, as a read-only open would. */
async function reload(s: LogState, ro: ReadOnlyState, checkpointed: CheckpointedValues): Promise<void> {
  const loaded = await loadReadOnly(
    {
      storage: s.host.storage,
      dir: s.name,
      segmentOptions: s.segmentOptions,
      clean: false,
      recoveryPoint: checkpointed.recoveryPoint,
      logStartOffset: checkpointed.logStartOffset,
    },
    s.slotContext,
  );
  replaceAllSegments(s, loaded.segments);
  ro.marks.clear();
  for (const [base, marked] of loaded.marks) ro.marks.set(base, marked);
  ro.phantom = loaded.phantom;
  s.startOffset = Math.max(s.startOffset, loaded.startOffset);
  if (s.startOffset > endOffsetOf(s)) s.startOffset = loaded.startOffset;
  // Bounded by the checkpoint read again after the walk, as a refresh's (refreshFiles).
  s.recoveryPoint = Math.min(loaded.recoveryPoint, (await ro.readCheckpoints()).recoveryPoint ?? 0);
}

/** A read-only log's close: its handles only (there is nothing of this process's to flush). */
export async function closeReadOnly(s: LogState): Promise<void> {
  stopPolling(s);
  s.status = "closing";
  wake(s.waiters); // a waiting follower ends now with PAGELOG_CLOSED, never hangs
  await Promise.allSettled(s.segments.map((slot) => slot.close()));
  s.status = "closed";
}
