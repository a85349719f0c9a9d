/**
 * The first phase of opening a log (see log-loader.ts): the plan. It only reads: every segment's
 * own plan (`planRecovery` or `planLoadClean`), the checks that reject an open which would lose
 * acknowledged records, and the list of steps an accepted plan carries out (log-load-apply.ts).
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Segment, SegmentRecovery } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import { OPENING_AT_ONCE } from "../util/in-order.js";
import type { LoadInput } from "./log-load-input.js";
import { checkOverlapAgrees } from "./overlap.js";
import { cleanedAway } from "../../segment/batch-scanner.js";
import { report } from "../options/recovery-progress.js";

/** One step of an accepted plan, carried out in order. */
type LoadStep =
  /** Write what the segment's plan decided (its walk already wrote back what its fsync must write). */
  | { readonly kind: "commit"; readonly segment: Segment }
  /** Delete these segments, newest first. */
  | { readonly kind: "delete"; readonly segments: Segment[] };

/** The counters of `LogRecovery` that planning adds up. */
export class Tally {
  segmentsScanned = 0;
  bytesScanned = 0;
  bytesTruncated = 0;
  segmentsDeleted = 0;
  indexesRebuilt = 0;
  /** Where a torn tail was cut: the last segment, or one whose later segments were then deleted. */
  tailCut: "none" | "last-segment" | "mid-log" = "none";
  segmentsDeletedAfterGap = 0;
  /** Segments an interrupted truncateTo was cutting, whose cut the open finished. */
  readonly truncationsFinished = new Set<Segment>();

  /** Set once the plan knows what it walks: told after every walk. */
  onWalked: (() => void) | undefined;

  /** A segment's batches were walked and its indexes rebuilt. */
  walked(result: SegmentRecovery): void {
    this.segmentsScanned++;
    this.indexesRebuilt++;
    this.bytesScanned += result.validBytes + result.truncatedBytes;
    this.bytesTruncated += result.truncatedBytes;
    this.onWalked?.();
  }
}

export interface Plan {
  readonly steps: LoadStep[];
  readonly tally: Tally;
  /** Unclean only: the checkpointed start is past every surviving record; start over, empty, there. */
  readonly startOverAt: number | undefined;
  /** A `<base>.log.deleted` is the proof that the gap below the first segment is a deletion: keep it. */
  readonly keepRetired?: boolean;
  /** A clean open's every segment base, from the listing (only the last segment is opened). */
  readonly keptBases?: readonly number[];
}

/**
 * Decides, reading only, what opening these segments must do; leaves in `segments` the ones
 * that stay. Throws `PAGELOG_CORRUPT` where carrying it out would lose acknowledged records.
 */
export async function planLoad(
  input: LoadInput,
  segments: Segment[],
  retiredBases: readonly number[] = [],
): Promise<Plan> {
  const tally = new Tally();
  const steps: LoadStep[] = [];
  const commits = new Set<Segment>();
  const commit = (segment: Segment): void => {
    if (commits.has(segment)) return;
    commits.add(segment);
    steps.push({ kind: "commit", segment });
  };
  const deleteFromIndex = (from: number): number => {
    const doomed = segments.splice(from);
    tally.segmentsDeleted += doomed.length;
    steps.push({ kind: "delete", segments: doomed });
    return doomed.length;
  };
  const { recoveryPoint, requiredUpTo, firstToRecover } = walkStart(input, segments);
  watchProgress(input, tally, segments.slice(firstToRecover));

  // The clean loads below the first segment to walk read only their own files: a window of them
  // runs ahead of the loop, which still takes each result in order. (A result never taken, of a
  // segment the plan deletes, is awaited at the end: no read outlives the plan.)
  const cleanPlans = new Map<Segment, Promise<{ indexesRebuilt: boolean }>>();
  const startCleanPlans = (from: number): void => {
    for (let j = from; j < Math.min(firstToRecover, from + OPENING_AT_ONCE, segments.length); j++) {
      const segment = segments[j]!;
      if (cleanPlans.has(segment)) continue;
      const planned = segment.planLoadClean();
      planned.catch(() => undefined); // taken (and its error thrown) by the loop, in order
      cleanPlans.set(segment, planned);
    }
  };
  const cleanPlanOf = (i: number): Promise<{ indexesRebuilt: boolean }> => {
    startCleanPlans(i);
    const segment = segments[i]!;
    return cleanPlans.get(segment) ?? segment.planLoadClean();
  };
  try {
    return await planEach({
      input,
      segments,
      retiredBases,
      tally,
      steps,
      recoveryPoint,
      requiredUpTo,
      firstToRecover,
      commit,
      deleteFromIndex,
      cleanPlanOf,
    });
  } finally {
    await Promise.allSettled(cleanPlans.values());
  }
}

/**
 * Where the plan's walk starts, and what it must keep: the recovery point (after a clean
 * shutdown, past every record), what must survive below it, and the first segment to walk.
 */
function walkStart(
  input: LoadInput,
  segments: readonly Segment[],
): { recoveryPoint: number; requiredUpTo: number; firstToRecover: number } {
  const recoveryPoint = input.clean ? Number.MAX_SAFE_INTEGER : (input.recoveryPoint ?? 0);
  // What must still be there after a crash: the flushed records [start, recovery point). A
  // checkpointed start at or past the recovery point leaves none: deleteRecordsBefore moved the
  // start past flushed records, and a crash inside the start-over that follows (which deletes
  // every segment) may leave any of them, whole or not, below a recovery point they no longer
  // need to reach. (Kafka's loader, too, checks nothing below the log start offset.)
  const requiredUpTo =
    !input.clean && input.logStartOffset !== undefined && input.logStartOffset >= recoveryPoint ? 0 : recoveryPoint;
  // The first segment to walk: the one holding the recovery point (the last with base at or
  // below it), or the first, as Kafka's LogLoader. A recovery point at a segment's base vouches
  // for the indexes of every segment below it too: the roll flush syncs a sealed segment whole
  // before it moves the recovery point, and a roll after a flush() that reached the segment's
  // end syncs its indexes before the next segment exists (log-append.ts `roll`).
  let firstToRecover = 0;
  while (firstToRecover + 1 < segments.length && segments[firstToRecover + 1]!.baseOffset <= recoveryPoint)
    firstToRecover++;
  if (input.clean) firstToRecover = segments.length;
  return { recoveryPoint, requiredUpTo, firstToRecover };
}

/** What one plan's loop works with (see planLoad). */
interface Planning {
  readonly input: LoadInput;
  readonly segments: Segment[];
  readonly retiredBases: readonly number[];
  readonly tally: Tally;
  readonly steps: LoadStep[];
  readonly recoveryPoint: number;
  /** Below this every record must survive (see planLoad): the recovery point, or 0. */
  readonly requiredUpTo: number;
  readonly firstToRecover: number;
  /** Plans writing this segment's plan (once, however often it is asked). */
  commit(segment: Segment): void;
  /** Plans deleting `segments[from..]` (newest first), which leave `segments`. */
  deleteFromIndex(from: number): number;
  /** The clean load of `segments[i]`, started ahead in a window (see planLoad). */
  cleanPlanOf(i: number): Promise<{ indexesRebuilt: boolean }>;
}

/** planLoad's loop over the segments, oldest first, then the checks of both ends. */
async function planEach(p: Planning): Promise<Plan> {
  const { input, segments, retiredBases, tally, steps, recoveryPoint, requiredUpTo, firstToRecover } = p;
  const { commit, deleteFromIndex } = p;
  const { dir } = input;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const previous = segments[i - 1];
    if (previous !== undefined && segment.baseOffset < previous.nextOffset && segment.baseOffset > previous.baseOffset)
      await finishOverlap(p, previous, segment);
    if (
      previous !== undefined &&
      segment.baseOffset !== previous.nextOffset &&
      !cleanedAway(previous.nextOffset, segment.baseOffset, input.segmentOptions.offsetGaps?.below)
    ) {
      // A gap: this segment cannot continue the log. Below the recovery point (or anywhere after
      // a clean shutdown) that is lost acknowledged data; above it, the remains of a crash.
      if (previous.nextOffset < requiredUpTo) {
        throw new PagelogError(
          `log ${dir} is corrupt: segment ${segment.baseOffset} does not continue the previous one (which ends at offset ${previous.nextOffset - 1})${input.clean ? " after a clean shutdown" : `, below the recovery point ${recoveryPoint}`}`,
          ErrorCode.CORRUPT,
          { path: segment.log.path },
        );
      }
      tally.segmentsDeletedAfterGap += deleteFromIndex(i);
      break;
    }
    if (i < firstToRecover) {
      await checkBelowRecoveryPoint(p, i);
      commit(segment);
      continue;
    }
    // What lies above the recovery point is written back by the walk itself, unchanged, so that
    // the commit's fsync really writes it (see carryOut in log-load-apply.ts).
    const from = i === firstToRecover ? recoveryPoint : segment.baseOffset;
    const result = await walkSegment(p, i, from);
    tally.walked(result);
    commit(segment);
    if (result.truncatedBytes > 0) tally.tailCut = i + 1 < segments.length ? "mid-log" : "last-segment";
    if (result.truncatedBytes > 0 && i + 1 < segments.length) {
      deleteFromIndex(i + 1);
      break;
    }
  }
  const ends = checkEnds(input, {
    firstBase: segments[0]!.baseOffset,
    firstPath: segments[0]!.log.path,
    end: segments[segments.length - 1]!.nextOffset,
    durableUpTo: input.clean ? input.recoveryPoint : requiredUpTo,
    retiredBases,
  });
  if (ends.startOverAt !== undefined) deleteFromIndex(0);
  return { steps, tally, ...ends };
}

/**
 * The recovery walk of `segments[i]` from `from`. The first segment walked must hold every record
 * below the recovery point; except that when the recovery point falls in a gap the log cleaner
 * left before the next segment (`cleanedAway`), the records of the gap are not there to hold: the
 * walk must then end whole (no torn tail) where the cleaner left the segment's end.
 */
async function walkSegment(p: Planning, i: number, from: number): Promise<SegmentRecovery> {
  const segment = p.segments[i]!;
  if (i !== p.firstToRecover) return segment.planRecovery({ minNextOffset: segment.baseOffset }, from);
  const next = p.segments[i + 1];
  const gapsBelow = p.input.segmentOptions.offsetGaps?.below;
  if (next === undefined || !cleanedAway(p.requiredUpTo, next.baseOffset, gapsBelow))
    return segment.planRecovery({ minNextOffset: p.requiredUpTo }, from);
  const result = await segment.planRecovery({ minNextOffset: segment.baseOffset }, from);
  if (segment.nextOffset < p.requiredUpTo && result.truncatedBytes > 0)
    throw new PagelogError(
      `segment ${segment.log.path} is corrupt below the recovery point ${p.requiredUpTo}: valid batches end at offset ${segment.nextOffset - 1}, before a torn tail`,
      ErrorCode.CORRUPT,
      { path: segment.log.path },
    );
  return result;
}

/**
 * Overlap: a truncateTo inside a batch was interrupted after it durably wrote `segment` (the kept
 * records of that batch) and while it cut `previous`, whose tail may be half cut (a zeroed page
 * tail behind an index that still points past it). Walk all of `previous`, which must be whole up
 * to `segment`'s base, and finish the cut there. A clean shutdown leaves no interrupted cut: there
 * an overlap is damage.
 */
async function finishOverlap(p: Planning, previous: Segment, segment: Segment): Promise<void> {
  if (p.input.clean) {
    throw new PagelogError(
      `log ${p.input.dir} is corrupt: segment ${segment.baseOffset} overlaps the previous one (which ends at offset ${previous.nextOffset - 1}) after a clean shutdown`,
      ErrorCode.CORRUPT,
      { path: segment.log.path },
    );
  }
  await checkOverlapAgrees(previous, segment);
  p.tally.walked(await previous.planRecovery({ minNextOffset: segment.baseOffset, endOffset: segment.baseOffset }));
  p.tally.truncationsFinished.add(previous);
  p.commit(previous);
}

/** The check of `segments[i]`, wholly below the recovery point (or after a clean shutdown). */
async function checkBelowRecoveryPoint(p: Planning, i: number): Promise<void> {
  const segment = p.segments[i]!;
  try {
    if ((await p.cleanPlanOf(i)).indexesRebuilt) p.tally.indexesRebuilt++;
  } catch (err) {
    // Below the recovery point the records must all be there, but after a crash they may be
    // there in the next segment: a truncateTo inside a batch writes the kept records into a
    // new segment durably, then cuts this one, and a crash mid-cut leaves this one's tail
    // damaged past the new segment's base. Recover this one up to that base (damage before
    // it is still PAGELOG_CORRUPT); the overlap check of planEach then finishes the cut.
    const next = p.segments[i + 1];
    if (
      p.input.clean ||
      !(err instanceof PagelogError && err.code === ErrorCode.CORRUPT) ||
      next === undefined ||
      next.baseOffset <= segment.baseOffset
    )
      throw err;
    p.tally.walked(await segment.planRecovery({ minNextOffset: next.baseOffset }));
    p.tally.truncationsFinished.add(segment);
  }
}

/**
 * Reports the walk of `walked` (the segments from the first to recover on) to the open's
 * listener: once before it starts, then after each segment (recovery-progress.ts).
 */
function watchProgress(input: LoadInput, tally: Tally, walked: readonly Segment[]): void {
  const listener = input.onProgress;
  if (listener === undefined || walked.length === 0) return;
  const bytesToWalk = walked.reduce((sum, segment) => sum + segment.size, 0);
  const send = (): void =>
    report(listener, {
      log: input.dir,
      bytesWalked: tally.bytesScanned,
      bytesToWalk: Math.max(bytesToWalk, tally.bytesScanned),
      segmentsWalked: tally.segmentsScanned,
      segmentsLeft: Math.max(0, walked.length - tally.segmentsScanned),
    });
  tally.onWalked = send;
  send();
}

/**
 * The plan of a clean open, which reads only the active (last) segment: the old ones are checked
 * on first use (segment-slot.ts). `bases` are every segment's, from the listing. After a clean
 * shutdown every record was durable and no cut can be pending, so nothing but the active
 * segment can change what the open must do: the checks that need only the listing (the first
 * base against the checkpointed start, the end against the checkpointed recovery point) run here.
 */
export async function planCleanLoad(
  input: LoadInput,
  bases: readonly number[],
  active: Segment,
  retiredBases: readonly number[],
): Promise<Plan> {
  const tally = new Tally();
  if ((await active.planLoadClean()).indexesRebuilt) tally.indexesRebuilt++;
  const ends = checkEnds(input, {
    firstBase: bases[0]!,
    firstPath: bases.length === 1 ? active.log.path : segmentFilePath(input.dir, bases[0]!, LOG_SUFFIX),
    end: active.nextOffset,
    durableUpTo: input.recoveryPoint,
    retiredBases,
  });
  return { steps: [{ kind: "commit", segment: active }], tally, ...ends };
}

/**
 * The checks of a plan against the checkpoints, on the log's first base and its end: rejects
 * (`PAGELOG_CORRUPT`) a log that lost acknowledged records at either end, and says whether the
 * log must start over, empty, at its checkpointed start (only after a crash) and whether the
 * `.log.deleted` proof of a full-disk deletion must stay.
 */
function checkEnds(
  input: LoadInput,
  at: {
    readonly firstBase: number;
    readonly firstPath: string;
    readonly end: number;
    readonly durableUpTo: number | undefined;
    readonly retiredBases: readonly number[];
  },
): Pick<Plan, "startOverAt" | "keepRetired"> {
  const { dir } = input;
  const { firstBase, end, durableUpTo } = at;
  // Also after a clean shutdown: close() checkpointed the exact end, so a log that ends below
  // it lost acknowledged records (a deleted last segment), which must not open as a shorter log.
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
  // Except after retention on a full disk: it renames the oldest doomed `.log` to `.deleted`
  // (durably) before it deletes anything, so such a file at or below the start proves the gap.
  const gapIsDeletion = at.retiredBases.some((base) => base <= checkpointedStart && base < firstBase);
  if (
    input.logStartOffset !== undefined &&
    input.logStartOffset < firstBase &&
    firstBase <= end &&
    checkpointedStart <= end &&
    !gapIsDeletion
  ) {
    throw new PagelogError(
      `log ${dir} is corrupt: its checkpointed start offset is ${input.logStartOffset} but its first segment starts at ${firstBase}: the records between are missing`,
      ErrorCode.CORRUPT,
      { path: at.firstPath },
    );
  }
  // The proof is kept only while the gap it explains is there: once a checkpoint names a start
  // at or past the first segment, a `.deleted` is garbage like any other.
  const keepRetired = gapIsDeletion && checkpointedStart < firstBase;
  if (checkpointedStart <= end) return { startOverAt: undefined, keepRetired };
  if (input.clean) {
    throw new PagelogError(
      `log ${dir} is corrupt: its checkpointed start offset ${checkpointedStart} is past its end ${end} after a clean shutdown (log-start-offset-checkpoint or the segments are damaged)`,
      ErrorCode.CORRUPT,
      { path: dir },
    );
  }
  return { startOverAt: checkpointedStart, keepRetired };
}

export function recoveryPointPastEnd(dir: string, recoveryPoint: number, end: number): PagelogError {
  return new PagelogError(
    `log ${dir} is corrupt: its recovery point ${recoveryPoint} is past its end ${end}: flushed records are missing`,
    ErrorCode.CORRUPT,
    {
      path: dir,
    },
  );
}
