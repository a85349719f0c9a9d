/**
 * Moving the log start offset forward: `deleteRecordsBefore` and retention (`retentionBytes` /
 * `retentionMs`, applied on demand and after every roll). Which segments retention picks is
 * `retention.ts`; this file makes the move durable in the right order.
 */
import type { Segment } from "../segment/segment.js";
import { deleteSegmentFiles } from "./segment-files.js";
import type { LogState } from "./log-state.js";
import { segmentsToDelete } from "./retention.js";
import { countByPolicy } from "./policies/retention-policy.js";

/**
 * How many leading segments retention deletes as of `now`. A reader's rule (a course policy) is
 * asked and checked here, before anything is done: a refusal (PAGELOG_POLICY) changes nothing.
 */
export function retentionCount(s: LogState, now: number): number {
  const { retentionBytes, retentionMs } = s.options;
  if (retentionBytes === -1 && retentionMs === -1) return 0;
  const limits = { retentionBytes, retentionMs, now };
  const policy = s.options.policies?.segmentsToDelete;
  return policy === undefined ? segmentsToDelete(s.segments, limits) : countByPolicy(policy, s.segments, limits);
}

/** Deletes the `count` oldest segments (retention's answer, `retentionCount`). */
export async function applyRetention(s: LogState, count: number): Promise<void> {
  if (count === 0) return;
  const newStart = Math.max(s.startOffset, s.segments[count]!.baseOffset);
  await moveStart(s, newStart, (_segment, i) => i < count);
}

/**
 * Moves the start offset forward (checkpointed durably first, so a crash never shows records
 * below it again), then deletes the leading segments `doomed` picks, oldest first, and syncs
 * the directory. Never deletes the active segment.
 */
export async function moveStart(
  s: LogState,
  newStart: number,
  doomed: (segment: Segment, index: number) => boolean,
): Promise<void> {
  s.startOffset = newStart;
  await s.host.checkpoint();
  let count = 0;
  while (count < s.segments.length - 1 && doomed(s.segments[count]!, count)) count++;
  if (count === 0) return;
  for (const segment of s.segments.splice(0, count)) {
    s.dirtySegments.delete(segment);
    await deleteSegmentFiles(s.host.storage, segment);
  }
  await s.host.storage.syncDir(s.name);
}
