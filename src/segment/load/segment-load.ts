/**
 * Opening a segment's contents. Opening decides before it writes: `planRecovery()` and
 * `planLoadClean()` only read, and leave the segment's state in memory as it will be (next
 * offset, size, rebuilt indexes); `commit()` then writes that state and makes it durable. A
 * loader can plan every segment, reject the log with every file as it found it, and commit only
 * a plan it accepts. `scanTail` is also how a truncation learns the new end. With them, the
 * read-only walks (`planFollow`, `catchUp`: segment-follow.ts), which only a read-only open runs,
 * and it loads this part with its own; and the stand-ins an existing segment's open uses for
 * missing files (absent-file.ts, created-on-write.ts). Loaded on first need through its door
 * (lazy-segment-load.ts): a new segment never runs any of it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { BatchScanner, gapAllowed, type ScanStop } from "../batch-scanner.js";
import { flushSegment } from "../segment-flush.js";
import {
  beginWalk,
  corruptAt,
  findBatch,
  indexBatch,
  loadIndexes,
  namesBase,
  noteTimestamp,
  scanOptions,
  type SegmentState,
  timeEntryLies,
} from "../segment-state.js";
import { keptByPolicy } from "../policies/recover-policy.js";
import type { RecoverOptions, SegmentRecovery } from "../segment-types.js";
import { NO_TIMESTAMP } from "../time-index.js";
import { checkIndex } from "./index-checks.js";
import { ReusingScanner } from "./reusing-scanner.js";
import { absentFile } from "../absent-file.js";
import { createdOnWrite } from "../created-on-write.js";
import type { Storage, StorageFile } from "../../storage/storage.js";

export { catchUp, planFollow } from "../segment-follow.js";

/**
 * A file of an existing segment, opened to be loaded (`Segment.openExisting`, `openReadOnly`),
 * and whether it was missing. One open, not a stat and an open (a lazy segment's first use pays
 * each path call's root check and syscalls). A missing index is rebuilt: read-only in memory
 * (an empty file that refuses writes stands in), else created on its first write; read-only, a
 * missing `.log` (not created yet by the writer, or deleted since the listing) is empty for now.
 */
export async function openExistingFile(
  storage: Storage,
  path: string,
  readOnly: boolean,
): Promise<{ file: StorageFile; missing: boolean }> {
  try {
    return { file: await storage.open(path, readOnly ? { readOnly: true } : {}), missing: false };
  } catch (err) {
    if (!(err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND)) throw err;
    return { file: readOnly ? absentFile(path) : createdOnWrite(storage, path), missing: true };
  }
}

/**
 * The reading half of `recover()`: walks the batches, rebuilds the indexes in memory and sets
 * the size to the end of the valid batches, writing nothing. See `Segment.planRecovery`.
 */
export async function planRecovery(
  s: SegmentState,
  { minNextOffset, endOffset }: RecoverOptions,
  rewriteFrom?: number,
): Promise<SegmentRecovery> {
  const sizeBefore = s.size;
  // A reader's recover (chapter 4) decides the cut of a crash recovery (not of an interrupted
  // truncation's, which ends at `endOffset`, a case the course does not have).
  const recover = endOffset === undefined ? s.options.policies?.recover : undefined;
  const batches = recover === undefined ? undefined : new Map<number, number>();
  const stop = await rebuildFromWalk(s, endOffset, batches, rewriteFrom);
  if (recover !== undefined) {
    batches!.set(stop.position, s.nextOffset);
    // Its answer is used only when it is pagelog's own cut (or the same cut, reached by the
    // course's rule through batches pagelog's stricter walk refuses): anything else throws.
    await keptByPolicy(recover, s.log, sizeBefore, stop, batches!, minNextOffset);
  }
  if (minNextOffset !== undefined && s.nextOffset < minNextOffset) {
    throw new PagelogError(
      `segment ${s.log.path} is corrupt below the recovery point ${minNextOffset}: valid batches end at offset ${s.nextOffset - 1} (byte ${stop.position}: ${stop.detail})`,
      ErrorCode.CORRUPT,
      { path: s.log.path },
    );
  }
  if (stop.position < s.size) {
    s.size = stop.position;
    s.pendingTruncate = stop.position;
  }
  s.pendingCommit = "recovery";
  return {
    validBytes: stop.position,
    truncatedBytes: sizeBefore - stop.position,
    lastOffset: s.nextOffset - 1,
    maxTimestamp: s.maxTimestamp,
    stop,
  };
}

/** The reading half of `loadClean()`: any rebuild stays in memory until `commit()`. */
export async function planLoadClean(s: SegmentState): Promise<{ indexesRebuilt: boolean }> {
  await loadIndexes(s);
  let rebuild = s.indexFilesWereMissing && s.size > 0;
  if (!rebuild) {
    try {
      checkIndex(s.offsetIndex, s.size, Number.MAX_SAFE_INTEGER);
      await scanTail(s);
      checkIndex(s.offsetIndex, s.size, s.nextOffset);
      checkIndex(s.timeIndex, s.size, s.nextOffset);
      checkTimeIndexNotLost(s);
      await checkLastTimeEntry(s);
    } catch (err) {
      if (!(err instanceof PagelogError && err.code === ErrorCode.CORRUPT && err.path !== s.log.path)) throw err;
      rebuild = true;
    }
  }
  if (rebuild) {
    const stop = await rebuildFromWalk(s);
    if (stop.position !== s.size) throw corruptAt(s, stop);
  }
  s.pendingCommit ??= "indexes";
  return { indexesRebuilt: rebuild };
}

/**
 * An offset-index entry is never written without a time-index entry beside it (the first
 * time-index entry is written whatever its timestamp, as Kafka's `maybeAppend` does), so an
 * empty time index beside a non-empty offset index lost its entries: a rebuild whose write a
 * crash undid, or one deferred by a full disk. Trusted, it would hide every timestamp before the
 * offset index's last entry (the tail scan starts there), and timestamp lookups would skip the
 * segment. (Both empty is harmless: the tail scan then reads the whole segment.)
 */
function checkTimeIndexNotLost(s: SegmentState): void {
  if (s.timeIndex.entries === 0 && s.offsetIndex.entries > 0)
    throw new PagelogError(
      `index ${s.timeIndex.file.path} is corrupt: it is empty beside ${s.offsetIndex.entries} offset-index entries`,
      ErrorCode.CORRUPT,
      { path: s.timeIndex.file.path },
    );
}

/**
 * The time index's last entry must be a real one: the largest timestamp so far and the last
 * offset of the batch that holds it. The segment's largest timestamp is taken from it, and the
 * structural checks cannot tell a real entry from zeros that a crash left in a rebuilt index
 * (the file's new size survived, its page did not). One batch read.
 */
async function checkLastTimeEntry(s: SegmentState): Promise<void> {
  const last = s.timeIndex.lastEntry;
  if (last === undefined || namesBase(s, last)) return;
  const found = await findBatch(s, last.offset);
  if (found === undefined || found.header.lastOffset !== last.offset || found.header.maxTimestamp !== last.timestamp)
    throw timeEntryLies(s, last);
}

/**
 * Writes what the last plan decided: the cut, then the rebuilt indexes, then fsyncs (a
 * recovery syncs all three files: it cannot know what an earlier process left in the page
 * cache). Durable before anything is appended: a truncation only in the page cache could be
 * undone by a crash, and the cut bytes (which may hold CRC-valid old batches) would come back.
 */
export async function commit(s: SegmentState): Promise<void> {
  const mode = s.pendingCommit;
  if (mode === undefined) return;
  s.readAhead = undefined;
  if (s.pendingTruncate !== undefined) {
    s.logUnsynced = true;
    await s.log.truncate(s.pendingTruncate);
    s.pendingTruncate = undefined;
  }
  // Below the recovery point the next open trusts these files: see commitRebuild's emptyFirst.
  const emptyFirst = mode !== "recovery";
  await s.offsetIndex.commitRebuild({ emptyFirst });
  await s.timeIndex.commitRebuild({ emptyFirst });
  if (s.indexFilesWereMissing) {
    // Create a lost index file even when it stays empty (a truncation to its own size is
    // otherwise a no-op), so the segment has its three files, as Kafka's always do.
    await s.offsetIndex.file.truncate(s.offsetIndex.sizeInBytes);
    await s.timeIndex.file.truncate(s.timeIndex.sizeInBytes);
  }
  if (mode === "recovery") {
    await flushSegment(s, { force: true });
  } else {
    await Promise.all([s.offsetIndex.sync(), s.timeIndex.sync()]);
  }
  s.pendingCommit = undefined;
  s.indexFilesWereMissing = false;
}

/**
 * Rebuilds both indexes in memory from a walk over the whole log (ending before the first batch
 * that reaches `endOffset`, if given), re-adding entries by the sparse rule. Writes nothing but,
 * with `rewriteFrom`, the valid batches holding offsets from there back over themselves, unchanged
 * (the walk's own bytes: each is read and CRC-checked once). `batches` collects every batch's
 * start position and base offset (for a reader's recover: see recover-policy.ts).
 */
async function rebuildFromWalk(
  s: SegmentState,
  endOffset?: number,
  batches?: Map<number, number>,
  rewriteFrom?: number,
): Promise<ScanStop> {
  beginWalk(s);
  const scanner = new ReusingScanner(
    s.log,
    s.size,
    0,
    scanOptions(s, {
      expectedOffset: s.baseOffset,
      readAhead: true,
      ...(endOffset === undefined ? {} : { endOffset }),
    }),
    rewriteFrom,
  );
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    batches?.set(batch.position, batch.header.baseOffset);
    await indexBatch(s, batch.header, batch.position);
  }
  if (rewriteFrom !== undefined) {
    await scanner.finishWriteBack();
    s.logUnsynced = true;
  }
  // As Kafka's recover does: one last time-index entry for the segment's largest timestamp.
  if (s.maxTimestamp !== NO_TIMESTAMP) await s.timeIndex.maybeAppend(s.maxTimestamp, s.offsetOfMaxTimestamp);
  return scanner.stop;
}

/** From the last offset-index entry to the end: the next offset and the largest timestamp. */
export async function scanTail(s: SegmentState): Promise<void> {
  await loadIndexes(s);
  const lastEntry = s.offsetIndex.entries === 0 ? undefined : s.offsetIndex.entry(s.offsetIndex.entries - 1);
  const start = lastEntry?.position ?? 0;
  const last = s.timeIndex.lastEntry;
  s.maxTimestamp = last?.timestamp ?? NO_TIMESTAMP;
  s.offsetOfMaxTimestamp = last?.offset ?? s.baseOffset;
  const scanner = new BatchScanner(s.log, s.size, start, scanOptions(s, {}));
  let first = true;
  for (let batch = await scanner.next(); batch !== null; batch = await scanner.next()) {
    // Each later batch continues the one before (or skips offsets, in the cleaned part only):
    // a batch going backwards is damage the segment's end alone may not show.
    if (
      !first &&
      batch.header.baseOffset !== s.nextOffset &&
      !gapAllowed(batch.header, s.nextOffset, s.options.offsetGaps?.below)
    )
      throw corruptAt(s, {
        position: batch.position,
        reason: "offset-gap",
        detail: `batch at ${batch.position} starts at offset ${batch.header.baseOffset}, expected ${s.nextOffset}`,
      });
    // The index's last entry must point at the start of the batch ending at its offset.
    if (first && lastEntry !== undefined && batch.header.lastOffset !== lastEntry.offset) {
      throw new PagelogError(
        `index ${s.offsetIndex.file.path} is corrupt: its last entry says offset ${lastEntry.offset} ends the batch at ${start}, which ends at ${batch.header.lastOffset}`,
        ErrorCode.CORRUPT,
        { path: s.offsetIndex.file.path },
      );
    }
    // A segment's base offset is a lower bound of its first offset, as in Kafka: a cleaner that
    // dropped the records at the base leaves the first batch past it, which is sound only where
    // gaps are (below the clean point). Anywhere else it is damage, as is a batch below the base.
    if (
      first &&
      lastEntry === undefined &&
      batch.header.baseOffset !== s.baseOffset &&
      !gapAllowed(batch.header, s.baseOffset, s.options.offsetGaps?.below)
    )
      throw corruptAt(s, {
        position: 0,
        reason: "offset-gap",
        detail: `first batch starts at ${batch.header.baseOffset}`,
      });
    first = false;
    s.nextOffset = batch.header.lastOffset + 1;
    noteTimestamp(s, batch.header);
    s.bytesSinceIndexEntry = batch.position + batch.header.sizeInBytes - start;
  }
  if (first && lastEntry !== undefined)
    throw new PagelogError(
      `index ${s.offsetIndex.file.path} is corrupt: its last entry points past the last batch`,
      ErrorCode.CORRUPT,
      { path: s.offsetIndex.file.path },
    );
  if (scanner.stop.reason !== undefined) throw corruptAt(s, scanner.stop);
}

/**
 * Drops the batch holding `offset` and every later one; returns the new next offset. See
 * `Segment.truncateTo`: truncation's door (log/write/lazy-truncate.ts) loads this part with its own.
 */
export async function truncateSegment(s: SegmentState, offset: number): Promise<number> {
  await loadIndexes(s);
  if (offset >= s.nextOffset) return s.nextOffset;
  const found = await findBatch(s, Math.max(offset, s.baseOffset));
  const position = found?.position ?? s.size;
  const newNext = found?.header.baseOffset ?? s.nextOffset;
  s.readAhead = undefined;
  s.logUnsynced = true;
  await s.log.truncate(position);
  s.size = position;
  await s.offsetIndex.truncateTo(newNext);
  await s.timeIndex.truncateTo(newNext);
  s.nextOffset = s.baseOffset;
  s.bytesSinceIndexEntry = 0;
  await scanTail(s);
  return s.nextOffset;
}
