/**
 * Moving the log start offset forward: `deleteRecordsBefore` and retention (`retentionBytes` /
 * `retentionMs`, applied on demand, after every roll and every `retentionCheckIntervalMs`). Which segments retention picks is
 * `retention.ts`; this file makes the move durable in the right order.
 */
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import { deleteSegmentFiles, removeIfThere, RETIRED_SUFFIX } from "../state/segment-files.js";
import { keepsLogOpen, type LogState } from "../state/log-state.js";
import { wake } from "../state/log-waiters.js";
import { isNoRoom } from "../checkpoints/checkpoint-files.js";
import { retentionDeleteCount, type SegmentSummary } from "../policies/retention.js";
import { inOrder, OPENING_AT_ONCE } from "../util/in-order.js";
import { spliceSegments } from "../state/segment-list.js";
import type { SegmentSlot } from "../state/segment-slot.js";
import { countByPolicy } from "../policies/retention-policy.js";
import { retains } from "../options/cleanup-policy.js";

/**
 * How many leading segments retention deletes as of `now`. A reader's rule (a course policy) is
 * asked and checked here, before anything is done: a refusal (PAGELOG_POLICY) changes nothing.
 *
 * Retention is a first use of the segments it must know (segment-slot.ts): `retentionBytes`
 * needs every segment's size (one stat of each idle one), `retentionMs` the largest timestamp of
 * each segment it looks at, oldest first, up to the first it keeps (those are loaded and checked),
 * and a reader's rule sees them all (all loaded). The answer is `retentionDeleteCount`'s on them.
 */
export async function retentionCount(s: LogState, now: number): Promise<number> {
  if (!retains(s.options)) return 0; // no limit set, or the cleanup policy does not delete (as Kafka's)
  const { retentionBytes, retentionMs } = s.options;
  const limits = { retentionBytes, retentionMs, now };
  const policy = s.options.policies?.segmentsToDelete;
  const slots = s.segments;
  if (policy !== undefined) return countByPolicy(policy, await summaries(slots, slots.length), limits);
  if (retentionBytes !== -1) await inOrder(slots, OPENING_AT_ONCE, (slot) => slot.size());
  if (retentionMs === -1) return retentionDeleteCount(await summaries(slots, 0), limits);
  // Load a growing prefix until the answer stops inside it: every segment the rule looked at
  // (those it deletes, and the one it stops at) then has its real largest timestamp.
  for (let loaded = 1; ; loaded = Math.min(slots.length, loaded * 2)) {
    const count = retentionDeleteCount(await summaries(slots, loaded), limits);
    if (count < loaded || loaded >= slots.length) return count;
  }
}

/**
 * What the rule needs of each slot: the first `loaded` loaded (their real largest timestamp), the
 * rest as they are: a size if known (else 0: only read when `retentionBytes` sized them all) and
 * a largest timestamp that keeps them (never read before a loaded one stops the rule).
 */
async function summaries(slots: readonly SegmentSlot[], loaded: number): Promise<SegmentSummary[]> {
  const segments = await inOrder(slots.slice(0, loaded), OPENING_AT_ONCE, (slot) => slot.load());
  return slots.map((slot, i) => {
    const segment = segments[i] ?? slot.segment;
    return {
      baseOffset: slot.baseOffset,
      size: slot.knownSize ?? 0,
      maxTimestamp: segment?.maxTimestamp ?? Number.MAX_SAFE_INTEGER,
    };
  });
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
  doomed: (segment: SegmentSlot, index: number) => boolean,
): Promise<void> {
  try {
    await moveStartDurably(s, newStart, doomed);
  } finally {
    wake(s.waiters); // a follower the start passed learns of it now, not at the next append
  }
}

async function moveStartDurably(
  s: LogState,
  newStart: number,
  doomed: (segment: SegmentSlot, index: number) => boolean,
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
    const retired = await deleteOnFullDisk(s, spliceSegments(s, 0, count));
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
  for (const slot of spliceSegments(s, 0, count)) {
    if (slot.segment !== undefined) s.dirtySegments.delete(slot.segment);
    await deleteSegmentFiles(s.host.storage, s.name, slot);
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
async function deleteOnFullDisk(s: LogState, segments: readonly SegmentSlot[]): Promise<string> {
  const storage = s.host.storage;
  for (const slot of segments) if (slot.segment !== undefined) s.dirtySegments.delete(slot.segment);
  const [oldest, ...rest] = segments as [SegmentSlot, ...SegmentSlot[]];
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
  for (const slot of rest) await deleteSegmentFiles(storage, s.name, slot);
  await storage.syncDir(s.name);
  return retired;
}

/** After the checkpoint names the new start, the proof is garbage. */
async function removeRetired(s: LogState, retired: string): Promise<void> {
  await removeIfThere(s.host.storage, retired);
  await s.host.storage.syncDir(s.name);
}
