/**
 * Deleting segments' files in the order that keeps a crash harmless: segments newest first (a
 * crash leaves a prefix of the log), and in each the `.log` before its indexes (a crash leaves
 * orphaned index files, which the next load removes). Used by loading, truncation and retention.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { INDEX_SUFFIX, LOG_SUFFIX, segmentFilePath, TIME_INDEX_SUFFIX } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";

/**
 * What retention on a full disk renames the oldest doomed `.log` to, before it deletes anything:
 * the name proves to the next load that the gap below the first segment is a deletion.
 */
export const RETIRED_SUFFIX = ".deleted";

/** A segment to delete: a loaded `Segment` or a log's slot of one (idle or not). */
interface DoomedSegment {
  readonly baseOffset: number;
  /** Index files with no `.log` inside its span that a clean open left for its first use (a slot's). */
  readonly orphans?: readonly string[];
  close(): Promise<void>;
}

/**
 * Closes and deletes these consecutive segments (the tail of a list), newest first: directory
 * changes survive a crash as a prefix in the order they were made, so deleting from the end
 * never leaves a hole. The caller syncs the directory.
 */
export async function deleteSegments(storage: Storage, dir: string, doomed: readonly DoomedSegment[]): Promise<void> {
  for (const segment of [...doomed].reverse()) await deleteSegmentFiles(storage, dir, segment);
}

/**
 * Closes a segment and removes its files, the `.log` first: a crash in between leaves orphaned
 * index files, which the next load removes, never a log without the offsets it claims.
 */
export async function deleteSegmentFiles(storage: Storage, dir: string, segment: DoomedSegment): Promise<void> {
  await segment.close(); // an idle one has nothing open: its files go by name
  for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
    await removeIfThere(storage, segmentFilePath(dir, segment.baseOffset, suffix));
  for (const orphan of segment.orphans ?? []) await removeIfThere(storage, orphan);
}

/** Removes a file; one that is already gone (a crash between two deletions) is fine. */
export async function removeIfThere(storage: Storage, path: string): Promise<void> {
  try {
    await storage.remove(path);
  } catch (err) {
    if (!(err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND)) throw err;
  }
}
