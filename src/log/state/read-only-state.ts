/*
 * What a log opened read-only keeps besides the usual state: the marks that tell it when the
 * writer (another process) changed bytes it already read, and how it re-reads the checkpoints.
 * See log-load-readonly.ts (the open) and log-refresh.ts (following the files as they change).
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { LOG_SUFFIX, segmentBaseOf } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";
import type { TailMarks } from "./tail-marks.js";

/** The directory's checkpointed values for one log, as last read (undefined: no entry). */
export interface CheckpointedValues {
  readonly recoveryPoint: number | undefined;
  readonly logStartOffset: number | undefined;
  /** The clean point (`cleaner-offset-checkpoint`): below it a compacted log's offsets may have gaps. */
  readonly cleanPoint?: number | undefined;
  /**
   * The durable offset the writer published after its last flush (`pagelog-durable-offset`,
   * durable-mark.ts), if valid. It raises only what a durable read may go up to (`durableOf`):
   * what tells a truncation or a cleaning apart (the checkpoint, which a truncation lowers and
   * only a checkpoint raises) stays `recoveryPoint`, as every flush may raise this one.
   */
  readonly published?: number | undefined;
}

/** How far the writer made its records durable, as far as these values tell: the checkpoint, or the published offset. */
export function durableOf(values: CheckpointedValues): number {
  return Math.max(values.recoveryPoint ?? 0, values.published ?? 0);
}

/**
 * Follows the writer's clean point as checkpointed (`gaps`: the log's `offsetGaps`, which its
 * segments read): the cleaner writes it before it swaps a cleaned segment in, so a reader that
 * reads the checkpoint before the files accepts every gap it finds.
 */
export function followCleanPoint(gaps: { below: number } | undefined, values: CheckpointedValues): void {
  if (gaps !== undefined && values.cleanPoint !== undefined) gaps.below = values.cleanPoint;
}

export interface ReadOnlyState {
  /** Marks of the last walked segments, by base offset (see tail-marks.ts). */
  readonly marks: Map<number, TailMarks>;
  /** Reads this log's entries of the directory's checkpoints again. */
  readonly readCheckpoints: () => Promise<CheckpointedValues>;
  /** How often a waiting follower re-reads the files, in ms. */
  readonly pollMs: number;
  /** The writer had created no segment yet: the active segment is an empty stand-in. */
  phantom: boolean;
  /** The clean point the last refresh (or the open) read: a move means a cleaning ran (refresh-cleaned.ts). */
  cleanPointSeen?: number | undefined;
  /** The checkpointed recovery point the last refresh (or the open) read: only a truncation lowers it. */
  recoveryPointSeen: number;
  /** `log.refresh()`, through the log's queue (set by the Log): what a poll runs. */
  refresh?: () => Promise<unknown>;
  /** When the last refresh finished (`Date.now()`): the next poll is due `pollMs` after it. */
  lastRefreshAt?: number;
  /** The poll armed while someone waits (read-only-poll.ts). */
  pollTimer?: ReturnType<typeof setTimeout> | undefined;
}

export function readOnlyError(name: string, op: string): PagelogError {
  return new PagelogError(`log ${name} was opened read-only (${op})`, ErrorCode.READ_ONLY, { path: name });
}

/** The base offsets of the `.log` files in a partition directory, sorted; [] if it is gone. */
export async function listSegmentBases(storage: Storage, dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await storage.list(dir);
  } catch (err) {
    if (err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND) return [];
    throw err;
  }
  const bases: number[] = [];
  for (const name of names) {
    const base = segmentBaseOf(name, LOG_SUFFIX);
    if (base !== undefined) bases.push(base);
  }
  return bases.sort((a, b) => a - b);
}
