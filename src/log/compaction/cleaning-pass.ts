/*
 * One cleaning, as Kafka's Cleaner.clean, cut into steps: each step reads or rewrites at most
 * one segment's worth (one source segment scanned into the offset map, or one group of at most
 * `segmentBytes` rewritten and swapped in), so the background cleaner can give the log's queue
 * back between steps and an append never waits behind more than one of them. `compact()` runs
 * every step in one turn.
 *
 * The clean point moves group by group, just before each group's swap: to the end of the group
 * (or where the offset map filled, if earlier), never down. So at every step boundary all that
 * lies below the clean point was cleaned against a map holding the latest offset of each of its
 * keys, and a pass abandoned between two steps (the log truncated, retention, a close) leaves a
 * log the next cleaning can go on from: a tombstone below the clean point has no older record
 * of its key left below it, so dropping it later resurrects nothing.
 */
import type { LogState } from "../state/log-state.js";
import { openCursor, type ReadCursor } from "../state/read-cursors.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { type Cleanable, cleanableRange, groups, loaded } from "./cleanable.js";
import { cleanGroup } from "./cleaned-group.js";
import { segmentBatches } from "./cleaner-scan.js";
import type { CleaningRules } from "./cleaning-rules.js";
import { type CompactionResult, nothingCleaned } from "./compaction-result.js";
import { KeptKeys } from "./kept-keys.js";
import { OffsetMap } from "./offset-map.js";

/** A cleaning in progress. */
export interface CleaningPass {
  readonly range: Cleanable;
  /** The cleanable slots as they were when the pass started (`s.segments[0, count)`). */
  readonly slots: readonly SegmentSlot[];
  readonly map: OffsetMap;
  readonly rules: CleaningRules;
  /** Told of every truncation (read-cursors.ts): one since the pass started ends it. */
  readonly cursor: ReadCursor;
  /** Slots scanned into the map so far. */
  scanned: number;
  /** Where this pass's cleaning ends, once the map is complete (or full). */
  end: number | undefined;
  /** The groups to rewrite, once the map is complete; `cleaned` of them done. */
  groups: SegmentSlot[][] | undefined;
  cleaned: number;
  /** The clean point as this pass last left it: anything else means someone else moved it. */
  cleanPoint: number;
  totals: CompactionResult;
}

/** Starts a cleaning at wall time `now` (reads only what sizing the range needs); undefined if nothing is dirty. */
export async function startPass(s: LogState, now: number): Promise<CleaningPass | undefined> {
  const range = await cleanableRange(s, now);
  if (range === undefined) return undefined;
  const cleanPoint = s.offsetGaps.below;
  return {
    range,
    slots: s.segments.slice(0, range.count),
    map: new OffsetMap(s.options.cleanerDedupeBufferBytes),
    rules: {
      latest: new Map(), // replaced by the map's once it is complete
      // A tombstone is dropped only once a cleaning reached it before (it lies below the clean
      // point this cleaning started from) and its segment's newest record is deleteRetentionMs old.
      tombstonesBelow: cleanPoint,
      tombstoneHorizon: now - s.options.deleteRetentionMs,
      keptValues: new KeptKeys(),
    },
    cursor: openCursor(s.cursors),
    scanned: 0,
    end: undefined,
    groups: undefined,
    cleaned: 0,
    cleanPoint,
    totals: nothingCleaned(cleanPoint),
  };
}

/** Runs the pass's next step; false once it is done (then `pass.totals` is its report). */
export async function stepPass(s: LogState, pass: CleaningPass): Promise<boolean> {
  if (pass.end === undefined) {
    await scanStep(s, pass);
    return true;
  }
  if (pass.groups === undefined) {
    const end = pass.end;
    pass.groups = await groups(
      s,
      pass.slots.filter((slot) => slot.baseOffset < end),
    );
    return pass.groups.length > 0 || finish(s, pass);
  }
  await groupStep(s, pass, pass.groups[pass.cleaned]!);
  pass.cleaned++;
  return pass.cleaned < pass.groups.length || finish(s, pass);
}

/** True while the log is as the pass left it: open, never truncated since, its slots and clean point in place. */
export function passStillValid(s: LogState, pass: CleaningPass): boolean {
  if (s.status !== "open" || pass.cursor.cut !== Infinity || s.offsetGaps.below !== pass.cleanPoint) return false;
  const left = pass.groups === undefined ? pass.slots : pass.groups.slice(pass.cleaned).flat();
  return left.every((slot) => !slot.closed && s.segments.includes(slot));
}

/** Ends the pass's hold on the log (its truncation cursor); safe to call more than once. */
export function endPass(s: LogState, pass: CleaningPass): void {
  s.cursors.delete(pass.cursor.ref);
}

function finish(s: LogState, pass: CleaningPass): false {
  endPass(s, pass);
  return false;
}

/**
 * Scans the next slot holding dirty records into the offset map. When the map fills, the pass
 * ends at the batch that did not fit: the clean point goes no further this time.
 */
async function scanStep(s: LogState, pass: CleaningPass): Promise<void> {
  const { dirtyFrom } = pass.range;
  while (pass.scanned < pass.slots.length && pass.slots[pass.scanned]!.nextOffset <= dirtyFrom) pass.scanned++;
  if (pass.scanned < pass.slots.length) {
    const slot = pass.slots[pass.scanned++]!;
    for await (const batch of segmentBatches(await loaded(slot), s.segmentOptions)) {
      if (batch.header.lastOffset < dirtyFrom) continue;
      if (!pass.map.addBatch(batch.records, dirtyFrom)) {
        pass.end = Math.max(batch.header.baseOffset, dirtyFrom);
        break;
      }
    }
  }
  if (pass.end === undefined && pass.scanned >= pass.slots.length) pass.end = pass.range.end;
  if (pass.end !== undefined) (pass.rules as { latest: ReadonlyMap<string, number> }).latest = pass.map.latest;
}

/** Rewrites one group, the clean point first raised to cover it (the next open accepts its gaps only below it). */
async function groupStep(s: LogState, pass: CleaningPass, group: readonly SegmentSlot[]): Promise<void> {
  const groupEnd = group[group.length - 1]!.nextOffset;
  const cleanPoint = Math.max(pass.rules.tombstonesBelow, Math.min(groupEnd, pass.end!));
  // Durable before the group's cleaned segment (with its gaps) can be swapped in. A crash after
  // this and before the swap leaves the clean point past this group's uncleaned records, which
  // only keeps their duplicates until a later cleaning supersedes them (and keeps their
  // tombstones while an older value of the key is left: kept-keys.ts).
  if (cleanPoint > s.offsetGaps.below) {
    s.offsetGaps.below = cleanPoint;
    await s.host.cleaned?.(cleanPoint);
  }
  pass.cleanPoint = s.offsetGaps.below;
  const done = await cleanGroup(s, group, pass.rules, cleanPoint);
  const t = pass.totals;
  pass.totals = {
    bytesBefore: t.bytesBefore + done.bytesBefore,
    bytesAfter: t.bytesAfter + done.bytesAfter,
    recordsBefore: t.recordsBefore + done.recordsBefore,
    recordsAfter: t.recordsAfter + done.recordsAfter,
    tombstonesRemoved: t.tombstonesRemoved + done.tombstonesRemoved,
    segmentsCleaned: t.segmentsCleaned + (done.swapped ? group.length : 0),
    segmentsAfter: t.segmentsAfter + (done.swapped ? 1 : 0),
    cleanPoint: s.offsetGaps.below,
  };
}
