/*
 * One cleaning, as Kafka's Cleaner.clean: the dirty part scanned into the key → offset map, then
 * the segments from the start to the end of what the map covers rewritten group by group, each
 * group swapped in. `compact()` runs it all in its own turn of the log's queue; the background
 * cleaner (background-cleaner.ts) runs it beside the log's calls, as Kafka's cleaner thread
 * copies outside the log's lock and swaps under it: the work that costs (the CRC checks, walking
 * the records, the map, writing and fsyncing the `.cleaned` files) runs outside the queue, and
 * only what reads or changes the log's state takes a turn (`PassHooks.inQueue`): each read of a
 * source segment (at most 256 KiB), the grouping, and each group's swap. A turn first checks that
 * nothing the pass depends on changed (`passStillValid`), else the pass is abandoned.
 *
 * Read once where it can: the batches the scan checked and walked are kept for the rewrite (up
 * to `READ_ONCE_BYTES`), so the dirty part is read, CRC-checked and walked once; past that, or
 * for the clean part below the clean point, a segment is read when its group is rewritten.
 *
 * The clean point moves group by group, after the group's `.cleaned` files are durable and just
 * before its swap: to the end of the group (or where the offset map filled, if earlier), never
 * down. So at every turn all that lies below the clean point was cleaned against a map holding
 * the latest offset of each of its keys, and a pass abandoned at any turn (the log truncated,
 * retention, a close) leaves a log the next cleaning can go on from: a tombstone below the
 * clean point has no older record of its key left below it, so dropping it later resurrects
 * nothing.
 */
import type { LogState } from "../state/log-state.js";
import { openCursor, type ReadCursor } from "../state/read-cursors.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { type Cleanable, cleanableRange, groups, loaded } from "./cleanable.js";
import { type CleanerSource } from "./cleaned-segment.js";
import { removeCleaned, swapGroup, writeCleanedGroup } from "./cleaned-group.js";
import { type BatchSource, type CleanerBatch, cleanerBatches, visitRecords } from "./cleaner-scan.js";
import type { CleaningRules } from "./cleaning-rules.js";
import { type CompactionResult, nothingCleaned } from "./compaction-result.js";
import { KeptKeys } from "./kept-keys.js";
import { OffsetMap } from "./offset-map.js";

/** The most a pass keeps of what its scan read, for the rewrite (the batches' bytes: nothing else per record). */
const READ_ONCE_BYTES = 64 << 20;

/** How a pass reaches the log. */
export interface PassHooks {
  /**
   * Runs `task` where the log is the pass's alone (its queue's turn), after checking that the
   * pass still holds; rejects with `PassAbandoned` (running nothing) if it does not.
   */
  inQueue<T>(task: () => Promise<T>): Promise<T>;
  /** Between two writes of a group's rewrite: the log's calls queued meanwhile may run. */
  pause(): Promise<void>;
}

/** The pass no longer holds (the log changed under it, or it was stopped): it ends, changing nothing more. */
export class PassAbandoned extends Error {
  constructor() {
    super("cleaning pass abandoned");
  }
}

/** What the pass knows of one source segment (read in a queue turn: closed segments do not change). */
interface Source {
  readonly slot: SegmentSlot;
  readonly size: number;
  readonly maxTimestamp: number;
  readonly path: string;
}

/** A cleaning in progress. */
export interface CleaningPass {
  readonly range: Cleanable;
  /** The cleanable slots as they were when the pass started (`s.segments[0, count)`). */
  readonly slots: readonly SegmentSlot[];
  readonly map: OffsetMap;
  readonly rules: CleaningRules;
  /** Told of every truncation (read-cursors.ts): one since the pass started ends it. */
  readonly cursor: ReadCursor;
  /** Where this pass's cleaning ends, once the map is complete (or full). */
  end: number | undefined;
  /** The groups to rewrite, once the map is complete; `cleaned` of them done. */
  groups: SegmentSlot[][] | undefined;
  cleaned: number;
  /** The clean point as this pass last left it: anything else means someone else moved it. */
  cleanPoint: number;
  /** Batches the scan read, kept for the rewrite (read once), by slot; and what they are counted as. */
  readonly kept: Map<SegmentSlot, { readonly source: Source; readonly batches: readonly CleanerBatch[] }>;
  keptBytes: number;
  /** The base of the group whose `.cleaned` files may be on disk (written, not yet swapped). */
  writing: number | undefined;
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
      latest: { latest: () => -1 }, // the map, once it is complete
      // A tombstone is dropped only once a cleaning reached it before (it lies below the clean
      // point this cleaning started from) and its segment's newest record is deleteRetentionMs old.
      tombstonesBelow: cleanPoint,
      tombstoneHorizon: now - s.options.deleteRetentionMs,
      keptValues: new KeptKeys(),
    },
    cursor: openCursor(s.cursors),
    end: undefined,
    groups: undefined,
    cleaned: 0,
    cleanPoint,
    kept: new Map(),
    keptBytes: 0,
    writing: undefined,
    totals: nothingCleaned(cleanPoint),
  };
}

/** Runs the whole pass (then `pass.totals` is its report). A rejection leaves `pass.writing`'s files to `discardWritten`. */
export async function runPass(s: LogState, pass: CleaningPass, hooks: PassHooks): Promise<void> {
  await scan(s, pass, hooks);
  const end = pass.end!;
  const toClean = pass.slots.filter((slot) => slot.baseOffset < end);
  pass.groups = await hooks.inQueue(() => groups(s, toClean));
  for (const group of pass.groups) {
    await cleanOneGroup(s, pass, group, hooks);
    pass.cleaned++;
  }
}

/** True while the log is as the pass left it: open, never truncated since, its slots and clean point in place. */
export function passStillValid(s: LogState, pass: CleaningPass): boolean {
  if (s.status !== "open" || pass.cursor.cut !== Infinity || s.offsetGaps.below !== pass.cleanPoint) return false;
  const left = pass.groups === undefined ? pass.slots : pass.groups.slice(pass.cleaned).flat();
  return left.every((slot) => !slot.closed && s.segments.includes(slot));
}

/** Removes the `.cleaned` files an ended pass left (written, never swapped); only where no one else writes them. */
export async function discardWritten(s: LogState, pass: CleaningPass): Promise<void> {
  const base = pass.writing;
  pass.writing = undefined;
  pass.kept.clear();
  if (base !== undefined) await removeCleaned(s, base);
}

/** Ends the pass's hold on the log (its truncation cursor); safe to call more than once. */
export function endPass(s: LogState, pass: CleaningPass): void {
  s.cursors.delete(pass.cursor.ref);
  pass.kept.clear();
}

/** What the pass needs of a slot, read in a queue turn. */
function sourceOf(pass: CleaningPass, slot: SegmentSlot, hooks: PassHooks): Promise<Source> | Source {
  const known = pass.kept.get(slot)?.source;
  if (known !== undefined) return known;
  return hooks.inQueue(async () => {
    const segment = await loaded(slot);
    return { slot, size: segment.size, maxTimestamp: segment.maxTimestamp, path: segment.log.path };
  });
}

/** The slot's `.log` as the cleaner reads it: each read a queue turn (the segment may have been closed and reopened between two). */
function batchSource(source: Source, hooks: PassHooks): BatchSource {
  const { slot } = source;
  return {
    path: source.path,
    baseOffset: slot.baseOffset,
    size: source.size,
    read: (position, length) => hooks.inQueue(async () => (await loaded(slot)).log.read(position, length)),
  };
}

/**
 * Scans the slots holding dirty records into the offset map, keeping what it read while it fits
 * `READ_ONCE_BYTES`. When the map fills, the pass ends at the batch that did not fit: the clean
 * point goes no further this time.
 */
async function scan(s: LogState, pass: CleaningPass, hooks: PassHooks): Promise<void> {
  const { dirtyFrom } = pass.range;
  for (const slot of pass.slots) {
    if (slot.nextOffset <= dirtyFrom) continue;
    const source = await sourceOf(pass, slot, hooks);
    let kept: CleanerBatch[] | undefined = pass.keptBytes + source.size <= READ_ONCE_BYTES ? [] : undefined;
    const { map } = pass;
    const add = (_: number, offset: number, _t: number, key: Uint8Array | null, from: number, to: number): void => {
      if (key !== null && offset >= dirtyFrom) map.add(key, from, to, offset);
    };
    for await (const batch of cleanerBatches(batchSource(source, hooks), s.segmentOptions)) {
      if (batch.header.lastOffset >= dirtyFrom) {
        map.startBatch(batch.header.recordsCount);
        visitRecords(batch, add);
        if (!map.endBatch()) {
          pass.end = Math.max(batch.header.baseOffset, dirtyFrom);
          kept = undefined; // only whole segments are kept
          break;
        }
      }
      kept?.push(batch);
    }
    if (kept !== undefined) {
      pass.kept.set(slot, { source, batches: kept });
      pass.keptBytes += source.size;
    }
    if (pass.end !== undefined) break;
  }
  pass.end ??= pass.range.end;
  (pass.rules as { latest: CleaningRules["latest"] }).latest = pass.map;
}

/**
 * Rewrites one group into its `.cleaned` files (outside the queue), then, in one turn, raises
 * the clean point to cover it (the next open accepts its gaps only below it) and swaps it in.
 */
async function cleanOneGroup(
  s: LogState,
  pass: CleaningPass,
  group: readonly SegmentSlot[],
  hooks: PassHooks,
): Promise<void> {
  const groupEnd = group[group.length - 1]!.nextOffset;
  const cleanPoint = Math.max(pass.rules.tombstonesBelow, Math.min(groupEnd, pass.end!));
  const sources: CleanerSource[] = [];
  for (const slot of group) {
    const source = await sourceOf(pass, slot, hooks);
    const kept = pass.kept.get(slot)?.batches;
    sources.push({
      size: source.size,
      maxTimestamp: source.maxTimestamp,
      batches: () =>
        kept !== undefined ? iterate(kept) : cleanerBatches(batchSource(source, hooks), s.segmentOptions),
    });
  }
  const base = group[0]!.baseOffset;
  pass.writing = base;
  const written = await writeCleanedGroup(s, base, sources, pass.rules, cleanPoint, hooks.pause);
  if (!written.toSwap) pass.writing = undefined; // (its files are gone already)
  for (const slot of group) pass.kept.delete(slot);
  await hooks.inQueue(async () => {
    // Durable before the group's cleaned segment (with its gaps) can be swapped in. A crash after
    // this and before the swap leaves the clean point past this group's uncleaned records, which
    // only keeps their duplicates until a later cleaning supersedes them (and keeps their
    // tombstones while an older value of the key is left: kept-keys.ts).
    if (cleanPoint > s.offsetGaps.below) {
      s.offsetGaps.below = cleanPoint;
      await s.host.cleaned?.(cleanPoint);
    }
    pass.cleanPoint = s.offsetGaps.below;
    await swapGroup(s, group, written);
    pass.writing = undefined;
  });
  const t = pass.totals;
  pass.totals = {
    bytesBefore: t.bytesBefore + written.bytesBefore,
    bytesAfter: t.bytesAfter + written.bytesAfter,
    recordsBefore: t.recordsBefore + written.recordsBefore,
    recordsAfter: t.recordsAfter + written.recordsAfter,
    tombstonesRemoved: t.tombstonesRemoved + written.tombstonesRemoved,
    segmentsCleaned: t.segmentsCleaned + (written.toSwap ? group.length : 0),
    segmentsAfter: t.segmentsAfter + (written.toSwap ? 1 : 0),
    cleanPoint: s.offsetGaps.below,
  };
}

async function* iterate(batches: readonly CleanerBatch[]): AsyncGenerator<CleanerBatch, void, undefined> {
  yield* batches;
}
