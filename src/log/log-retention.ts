/**
 * Moving the log start offset forward: `deleteRecordsBefore` and retention (`retentionBytes` /
 * `retentionMs`, applied on demand and after every roll). Which segments retention picks is
 * `retention.ts`; this file makes the move durable in the right order.
 */
import type { Segment } from "../segment/segment.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../segment/segment-names.js";
import { deleteSegmentFiles, removeIfThere, RETIRED_SUFFIX } from "./segment-files.js";
import { keepsLogOpen, type LogState } from "./log-state.js";
import { isNoRoom } from "./checkpoint-files.js";
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
 *
 * On a full disk the checkpoint cannot be written (its temp file needs a block) until space is
 * freed, and freeing it is what the caller asked for: then the segments go first
 * (`deleteOnFullDisk`) and the checkpoint after. A checkpoint that still fails leaves the log
 * open (its data is intact) with the start at the first segment left, and rejects.
 */
export async function moveStart(
  s: LogState,
  newStart: number,
  doomed: (segment: Segment, index: number) => boolean,
): Promise<void> {
  const oldStart = s.startOffset;
  let count = 0;
  while (count < s.segments.length - 1 && doomed(s.segments[count]!, count)) count++;
  s.startOffset = newStart;
  try {
    await s.host.checkpoint();
  } catch (err) {
    if (!isNoRoom(err)) throw err;
    s.startOffset = oldStart;
    if (count === 0) throw keepsLogOpen(err); // nothing to free: the log is as it was
    const retired = await deleteOnFullDisk(s, s.segments.splice(0, count));
    s.startOffset = newStart;
    try {
      await s.host.checkpoint();
    } catch (again) {
      s.startOffset = Math.max(oldStart, s.segments[0]!.baseOffset); // what the deletions made true
      throw isNoRoom(again) ? keepsLogOpen(again) : again;
    }
    await removeRetired(s, retired);
    return;
  }
  if (count === 0) return;
  for (const segment of s.segments.splice(0, count)) {
    s.dirtySegments.delete(segment);
    await deleteSegmentFiles(s.host.storage, segment);
  }
  await s.host.storage.syncDir(s.name);
}

/**
 * Deletes segments before the start offset they free is checkpointed. The oldest `.log` is first
 * renamed `<base>.log.deleted` and the rename made durable: until a checkpoint names the new
 * start, that name tells the next load the gap below the first segment is this deletion (a
 * rename needs no data block). Then its bytes are freed and the younger segments deleted as
 * usual. Returns the retired file's path.
 */
async function deleteOnFullDisk(s: LogState, segments: readonly Segment[]): Promise<string> {
  const storage = s.host.storage;
  for (const segment of segments) s.dirtySegments.delete(segment);
  const [oldest, ...rest] = segments as [Segment, ...Segment[]];
  await oldest.close();
  const logPath = segmentFilePath(s.name, oldest.baseOffset, LOG_SUFFIX);
  const retired = logPath + RETIRED_SUFFIX;
  await storage.rename(logPath, retired);
  await storage.syncDir(s.name);
  for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX])
    await removeIfThere(storage, segmentFilePath(s.name, oldest.baseOffset, suffix));
  const file = await storage.open(retired);
  try {
    await file.truncate(0); // frees its blocks now; the name is all the proof needs
  } finally {
    await file.close();
  }
  for (const segment of rest) await deleteSegmentFiles(storage, segment);
  await storage.syncDir(s.name);
  return retired;
}

/** After the checkpoint names the new start, the proof is garbage. */
async function removeRetired(s: LogState, retired: string): Promise<void> {
  await removeIfThere(s.host.storage, retired);
  await s.host.storage.syncDir(s.name);
}
