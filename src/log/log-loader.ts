/**
 * Opening a partition's segments, as Kafka's LogLoader does, with pagelog's stricter rules.
 *
 * An open decides before it changes anything. First a plan, which only reads:
 * 1. Clean shutdown: trust every segment's log, but sanity-check its indexes and plan a rebuild
 *    of any that fail. Unclean: segments wholly below the recovery point get the same check;
 *    from the segment holding the recovery point to the last, `Segment.planRecovery()` walks
 *    every batch, rebuilds the indexes in memory and plans a cut at the first bad byte; every
 *    segment after a cut or a gap in offsets is planned for deletion.
 * 2. Reject (`PAGELOG_CORRUPT`) whatever would lose acknowledged records: damage below the
 *    recovery point, a recovery point past the end, and after a clean shutdown (when every
 *    record was durable) an overlap of segments or a checkpointed start past the end.
 * A rejected plan leaves every file as it was. An accepted one is then carried out, in order:
 * leftovers (`*.tmp`, `*.deleted`, `*.cleaned`, index files whose `.log` is gone) removed, each
 * planned cut and rebuild written, deletions newest first (so a crash while deleting leaves a
 * prefix). Every truncation and deletion is durable (file fsync, directory fsync) before this
 * returns, so the log never accepts an append on top of something a crash could undo.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { Segment, type SegmentOptions, type SegmentRecovery } from "../segment/segment.js";
import { INDEX_SUFFIX, LOG_SUFFIX, parseSegmentFileName, segmentFilePath, TIME_INDEX_SUFFIX } from "../segment/segment-names.js";
import { joinPath, parentOf } from "../storage/paths.js";
import { checkOverlapAgrees } from "./overlap.js";
import type { Storage, StorageFile } from "../storage/storage.js";

/** What opening a log had to do, so a user can see what a crash cost. */
export interface LogRecovery {
  /** The directory was shut down cleanly: nothing was scanned but the index sanity checks. */
  readonly clean: boolean;
  /** Segments whose batches were walked and validated. */
  readonly segmentsScanned: number;
  /** Bytes of `.log` walked. */
  readonly bytesScanned: number;
  /** Bytes cut off at the first invalid batch. */
  readonly bytesTruncated: number;
  /** Segments deleted because they came after a truncation or a gap. */
  readonly segmentsDeleted: number;
  /** Segments whose `.index` and `.timeindex` were rebuilt from the log. */
  readonly indexesRebuilt: number;
  /** Leftover files removed (`*.tmp`, `*.deleted`, orphaned indexes). */
  readonly filesRemoved: number;
  readonly durationMs: number;
}

export interface LoadInput {
  readonly storage: Storage;
  /** The partition directory. */
  readonly dir: string;
  readonly segmentOptions: SegmentOptions;
  readonly clean: boolean;
  /** From `recovery-point-offset-checkpoint`; undefined (absent or malformed) means 0. */
  readonly recoveryPoint: number | undefined;
  /** From `log-start-offset-checkpoint`. */
  readonly logStartOffset: number | undefined;
}

export interface LoadedLog {
  readonly segments: Segment[];
  readonly startOffset: number;
  readonly recovery: LogRecovery;
}

const LEFTOVER = /\.(tmp|deleted|cleaned)$/;
const SWAP = /\.swap$/;
/** Bytes per read/write when rewriting a recovered tail: bounded memory, few calls. */
const REWRITE_CHUNK_BYTES = 1 << 20;

function now(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

/** One step of an accepted plan, carried out in order. */
type Step =
  /** Write what the segment's plan decided; then rewrite `[from, to)` so its fsync writes it. */
  | { readonly kind: "commit"; readonly segment: Segment; rewrite?: { readonly from: number; readonly to: number } }
  /** Delete these segments, newest first. */
  | { readonly kind: "delete"; readonly segments: Segment[] };

/** The counters of `LogRecovery` that planning adds up. */
class Tally {
  segmentsScanned = 0;
  bytesScanned = 0;
  bytesTruncated = 0;
  segmentsDeleted = 0;
  indexesRebuilt = 0;

  /** A segment's batches were walked and its indexes rebuilt. */
  walked(result: SegmentRecovery): void {
    this.segmentsScanned++;
    this.indexesRebuilt++;
    this.bytesScanned += result.validBytes + result.truncatedBytes;
    this.bytesTruncated += result.truncatedBytes;
  }
}

interface Plan {
  readonly steps: Step[];
  readonly tally: Tally;
  /** Unclean only: the checkpointed start is past every surviving record; start over, empty, there. */
  readonly startOverAt: number | undefined;
}

export async function loadLog(input: LoadInput): Promise<LoadedLog> {
  const started = now();
  const { storage, dir, segmentOptions } = input;
  const names = await storage.list(dir);
  // A `.swap` file is a Kafka compaction a broker was completing: the compacted data may exist
  // only there (the old segments already renamed `.deleted`). pagelog never writes one and its
  // logs have no offset gaps to hold compacted data, so it refuses rather than delete it.
  const swap = names.find((n) => SWAP.test(n));
  if (swap !== undefined) {
    throw new PagelogError(
      `log ${dir} holds ${swap}, an interrupted Kafka compaction: let a Kafka broker finish it (pagelog does not compact and will not delete it)`,
      ErrorCode.CORRUPT,
      { path: joinPath(dir, swap) },
    );
  }
  const logBases = new Set(names.map(parseSegmentFileName).filter((p) => p?.suffix === LOG_SUFFIX).map((p) => p!.baseOffset));
  const leftovers: string[] = [];
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    const leftover = LEFTOVER.test(name) || (parsed !== undefined && parsed.suffix !== LOG_SUFFIX && !logBases.has(parsed.baseOffset));
    // Only files: a directory that happens to have such a name is not something pagelog (or
    // Kafka) left behind, and removing it would fail the open for good.
    if (leftover && (await storage.stat(joinPath(dir, name)))?.kind === "file") leftovers.push(name);
  }
  const bases = [...logBases].sort((a, b) => a - b);

  let segments: Segment[];
  let plan: Plan;
  if (bases.length === 0) {
    // A new log starts where its checkpointed start offset says, else at 0. A log whose
    // checkpointed recovery point lies above that had durable records, and every segment
    // holding them is gone: report it, never start over.
    const start = input.logStartOffset ?? 0;
    if (input.recoveryPoint !== undefined && input.recoveryPoint > start) throw recoveryPointPastEnd(dir, input.recoveryPoint, start);
    segments = [];
    plan = { steps: [], tally: new Tally(), startOverAt: start };
  } else {
    segments = [];
    try {
      for (const base of bases) segments.push(await Segment.openExisting(storage, dir, base, segmentOptions));
      plan = await planLoad(input, segments);
    } catch (err) {
      // Rejected: nothing was written. Give the handles back and report.
      await Promise.allSettled(segments.map((s) => s.close()));
      throw err;
    }
  }

  // ---- the plan is accepted: carry it out --------------------------------------------------
  for (const name of leftovers) await storage.remove(joinPath(dir, name));
  if (leftovers.length > 0) await storage.syncDir(dir);
  for (const step of plan.steps) {
    if (step.kind === "delete") {
      await deleteSegments(storage, step.segments);
      continue;
    }
    await step.segment.commit();
    // The Log takes everything loaded as durable, but recovery's fsync writes only dirty pages.
    // Reopened without a reboot (a killed process, or a reopen after a failed fsync), the page
    // cache can hold pages that read back whole yet never reached the disk and are no longer
    // dirty (Linux marks them clean after a failed writeback). Rewrite what lies above the
    // recovery point so the fsync really writes it; after a reboot this costs one rewrite of
    // the tail that was not yet checkpointed.
    const to = Math.min(step.rewrite?.to ?? 0, step.segment.size);
    if (step.rewrite !== undefined && to > step.rewrite.from) {
      await rewrite(step.segment.log, step.rewrite.from, to);
      await step.segment.log.sync();
    }
  }
  if (plan.startOverAt !== undefined) {
    const fresh = await Segment.open(storage, dir, plan.startOverAt, segmentOptions);
    segments.push(fresh);
    await fresh.flush();
  }
  // After a crash, not only after deletions: a segment created by a roll the last process never
  // synced the directory for may still be only in the cache, and the Log counts it durable.
  if (!input.clean || plan.tally.segmentsDeleted > 0 || plan.startOverAt !== undefined) await storage.syncDir(dir);

  // Only the active segment's indexes stay in memory: the others are read back on demand, so
  // opening a large log costs memory for what is used.
  for (const segment of segments.slice(0, -1)) segment.releaseIndexes();
  const first = segments[0]!;
  const end = segments[segments.length - 1]!.nextOffset;
  const startOffset = Math.min(Math.max(input.logStartOffset ?? first.baseOffset, first.baseOffset), end);
  const { tally } = plan;
  return {
    segments,
    startOffset,
    recovery: {
      clean: input.clean,
      segmentsScanned: tally.segmentsScanned,
      bytesScanned: tally.bytesScanned,
      bytesTruncated: tally.bytesTruncated,
      segmentsDeleted: tally.segmentsDeleted,
      indexesRebuilt: tally.indexesRebuilt,
      filesRemoved: leftovers.length,
      durationMs: now() - started,
    },
  };
}

/**
 * Decides, reading only, what opening these segments must do; leaves in `segments` the ones
 * that stay. Throws `PAGELOG_CORRUPT` where carrying it out would lose acknowledged records.
 */
async function planLoad(input: LoadInput, segments: Segment[]): Promise<Plan> {
  const { dir } = input;
  const tally = new Tally();
  const steps: Step[] = [];
  const commit = (segment: Segment, rewrite?: { from: number; to: number }): void => {
    const existing = steps.find((s) => s.kind === "commit" && s.segment === segment);
    if (existing === undefined) steps.push({ kind: "commit", segment, ...(rewrite === undefined ? {} : { rewrite }) });
    else if (rewrite !== undefined && existing.kind === "commit") existing.rewrite = rewrite;
  };
  const deleteFromIndex = (from: number): void => {
    const doomed = segments.splice(from);
    tally.segmentsDeleted += doomed.length;
    steps.push({ kind: "delete", segments: doomed });
  };
  const recoveryPoint = input.clean ? Number.MAX_SAFE_INTEGER : (input.recoveryPoint ?? 0);
  // The first segment to walk: the one holding the recovery point (the last with base <= it).
  let firstToRecover = 0;
  while (firstToRecover + 1 < segments.length && segments[firstToRecover + 1]!.baseOffset <= recoveryPoint) firstToRecover++;
  if (input.clean) firstToRecover = segments.length;

  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const previous = segments[i - 1];
    if (previous !== undefined && segment.baseOffset < previous.nextOffset && segment.baseOffset > previous.baseOffset) {
      // Overlap: a truncateTo inside a batch was interrupted after it durably wrote this
      // segment (the kept records of that batch) and while it cut `previous`, whose tail may
      // be half cut (a zeroed page tail behind an index that still points past it). Walk all
      // of `previous`, which must be whole up to this segment's base, and finish the cut there.
      // A clean shutdown leaves no interrupted cut: there an overlap is damage.
      if (input.clean) {
        throw new PagelogError(
          `log ${dir} is corrupt: segment ${segment.baseOffset} overlaps the previous one (which ends at offset ${previous.nextOffset - 1}) after a clean shutdown`,
          ErrorCode.CORRUPT,
          { path: segment.log.path },
        );
      }
      await checkOverlapAgrees(previous, segment);
      tally.walked(await previous.planRecovery({ minNextOffset: segment.baseOffset, endOffset: segment.baseOffset }));
      commit(previous);
    }
    if (previous !== undefined && segment.baseOffset !== previous.nextOffset) {
      // A gap: this segment cannot continue the log. Below the recovery point (or anywhere after
      // a clean shutdown) that is lost acknowledged data; above it, the remains of a crash.
      if (previous.nextOffset < recoveryPoint) {
        throw new PagelogError(
          `log ${dir} is corrupt: segment ${segment.baseOffset} does not continue the previous one (which ends at offset ${previous.nextOffset - 1})${input.clean ? " after a clean shutdown" : `, below the recovery point ${recoveryPoint}`}`,
          ErrorCode.CORRUPT,
          { path: segment.log.path },
        );
      }
      deleteFromIndex(i);
      break;
    }
    if (i < firstToRecover) {
      try {
        if ((await segment.planLoadClean()).indexesRebuilt) tally.indexesRebuilt++;
      } catch (err) {
        // Below the recovery point the records must all be there, but after a crash they may be
        // there in the next segment: a truncateTo inside a batch writes the kept records into a
        // new segment durably, then cuts this one, and a crash mid-cut leaves this one's tail
        // damaged past the new segment's base. Recover this one up to that base (damage before
        // it is still PAGELOG_CORRUPT); the overlap check above then finishes the cut.
        const next = segments[i + 1];
        if (input.clean || !(err instanceof PagelogError && err.code === ErrorCode.CORRUPT) || next === undefined || next.baseOffset <= segment.baseOffset) throw err;
        tally.walked(await segment.planRecovery({ minNextOffset: next.baseOffset }));
      }
      commit(segment);
      continue;
    }
    const result = await segment.planRecovery({ minNextOffset: i === firstToRecover ? recoveryPoint : segment.baseOffset });
    tally.walked(result);
    // What lies above the recovery point is rewritten once committed (see loadLog).
    const from = i === firstToRecover ? segment.offsetIndex.lookup(recoveryPoint).position : 0;
    commit(segment, { from, to: result.validBytes });
    if (result.truncatedBytes > 0 && i + 1 < segments.length) {
      deleteFromIndex(i + 1);
      break;
    }
  }
  const end = segments[segments.length - 1]!.nextOffset;
  // Also after a clean shutdown: close() checkpointed the exact end, so a log that ends below
  // it lost acknowledged records (a deleted last segment), which must not open as a shorter log.
  const durableUpTo = input.clean ? input.recoveryPoint : recoveryPoint;
  if (durableUpTo !== undefined && durableUpTo > end) throw recoveryPointPastEnd(dir, durableUpTo, end);

  // The checkpointed start offset is past everything that survived. After a crash that is
  // sound (records deleted by deleteRecordsBefore were never flushed, then lost): the start
  // never moves back, so the log starts over, empty, at it, as Kafka's truncateFullyAndStartAt
  // does, and offsets below it are never handed out again. After a clean shutdown every record
  // was durable and the start was at most the end: the files or the checkpoint are damaged, and
  // starting over would delete acknowledged records.
  const checkpointedStart = input.logStartOffset ?? 0;
  // The start offset is checkpointed durably before any segment below it is deleted, so the
  // first segment never starts past it: if it does, the segments holding [start, base) are gone.
  const firstBase = segments[0]!.baseOffset;
  if (input.logStartOffset !== undefined && input.logStartOffset < firstBase && firstBase <= end && checkpointedStart <= end) {
    throw new PagelogError(
      `log ${dir} is corrupt: its checkpointed start offset is ${input.logStartOffset} but its first segment starts at ${firstBase}: the records between are missing`,
      ErrorCode.CORRUPT,
      { path: segments[0]!.log.path },
    );
  }
  if (checkpointedStart <= end) return { steps, tally, startOverAt: undefined };
  if (input.clean) {
    throw new PagelogError(
      `log ${dir} is corrupt: its checkpointed start offset ${checkpointedStart} is past its end ${end} after a clean shutdown (log-start-offset-checkpoint or the segments are damaged)`,
      ErrorCode.CORRUPT,
      { path: dir },
    );
  }
  deleteFromIndex(0);
  return { steps, tally, startOverAt: checkpointedStart };
}

/** Rewrites bytes [from, to) of a file with what reads give, a chunk at a time, dirtying their pages. */
async function rewrite(file: StorageFile, from: number, to: number): Promise<void> {
  for (let at = from; at < to; at += REWRITE_CHUNK_BYTES) {
    await file.write(at, await file.read(at, Math.min(REWRITE_CHUNK_BYTES, to - at)));
  }
}

function recoveryPointPastEnd(dir: string, recoveryPoint: number, end: number): PagelogError {
  return new PagelogError(`log ${dir} is corrupt: its recovery point ${recoveryPoint} is past its end ${end}: flushed records are missing`, ErrorCode.CORRUPT, {
    path: dir,
  });
}

/**
 * Closes and deletes `segments[from..]`, newest first: directory changes survive a crash as a
 * prefix in the order they were made, so deleting from the end never leaves a hole. The caller
 * syncs the directory. Returns how many were deleted.
 */
export async function deleteFrom(storage: Storage, segments: Segment[], from: number): Promise<number> {
  const doomed = segments.splice(from);
  await deleteSegments(storage, doomed);
  return doomed.length;
}

/** Closes and deletes these consecutive segments, newest first (see `deleteFrom`). */
async function deleteSegments(storage: Storage, doomed: readonly Segment[]): Promise<void> {
  for (const segment of [...doomed].reverse()) await deleteSegmentFiles(storage, segment);
}

/**
 * Closes a segment and removes its files, the `.log` first: a crash in between leaves orphaned
 * index files, which the next load removes, never a log without the offsets it claims.
 */
export async function deleteSegmentFiles(storage: Storage, segment: Segment): Promise<void> {
  await segment.close();
  const dir = parentOf(segment.log.path);
  for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX]) {
    try {
      await storage.remove(segmentFilePath(dir, segment.baseOffset, suffix));
    } catch (err) {
      if (!(err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND)) throw err;
    }
  }
}
