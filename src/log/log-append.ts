/**
 * The append path: group commit (one write, and at most one fsync, for every append that
 * arrived while the previous write was in flight), encoding each append as its own batch,
 * rolling to a new segment, and the flush policy (`flushMessages` / `flushMs`) checked after
 * each group.
 */
import type { BatchHeader } from "../format/index.js";
import { readBatchHeader } from "../format/index.js";
import { encodeSnapshots } from "../format/record-batch.js";
import { Segment } from "../segment/segment.js";
import { applyRetention } from "./log-retention.js";
import {
  activeSegment,
  checkWritable,
  endOffsetOf,
  flushLog,
  guard,
  type LogState,
  type PendingAppend,
} from "./log-state.js";

/** Writes one group of appends: each its own batch, consecutive batches in one write. */
export async function writeGroup(s: LogState, group: PendingAppend[]): Promise<void> {
  if (s.openGroup === group) s.openGroup = undefined; // later appends form the next group
  const now = s.options.clock.now();
  let pending: Array<{ bytes: Uint8Array; header: BatchHeader; item: PendingAppend }> = [];
  let pendingBytes = 0;
  let next = endOffsetOf(s);
  const writePending = async () => {
    if (pending.length === 0) return;
    const out = pending;
    pending = [];
    pendingBytes = 0;
    s.dirtySegments.add(activeSegment(s));
    await activeSegment(s).appendBatches(out);
    for (const p of out) s.unflushedRecords += p.header.recordsCount;
  };
  const settled: Array<() => void> = [];
  try {
    for (const item of group) {
      try {
        checkWritable(s, "append");
      } catch (err) {
        settled.push(() => item.reject(err));
        continue;
      }
      let bytes: Uint8Array;
      try {
        bytes = encodeSnapshots(item.records, {
          baseOffset: next,
          timestamp: now,
          maxBatchBytes: s.options.maxBatchBytes,
          ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }),
        });
      } catch (err) {
        settled.push(() => item.reject(err)); // a bad append fails alone, before any I/O
        continue;
      }
      const header = readBatchHeader(bytes);
      await guard(s, async () => {
        if (needsRoll(s, pendingBytes, bytes.length, header, now)) {
          await writePending();
          await roll(s, now);
        }
      });
      pending.push({ bytes, header, item });
      pendingBytes += bytes.length;
      next = header.lastOffset + 1;
      settled.push(() => item.resolve({ baseOffset: header.baseOffset, lastOffset: header.lastOffset }));
    }
    await guard(s, async () => {
      await writePending();
      const { flushMessages, flushMs } = s.options;
      if (
        (flushMessages !== -1 && s.unflushedRecords >= flushMessages) ||
        (flushMs !== -1 && now - s.lastFlushAt >= flushMs)
      ) {
        await flushLog(s);
      }
    });
  } catch (err) {
    // The group's write (or its flush) failed: none of it is acknowledged.
    for (const item of group) item.reject(err);
    return;
  }
  for (const settle of settled) settle();
}

/**
 * Whether a batch of `bytes` (ending at `header.lastOffset`), after `pendingBytes` not yet
 * written, must go into a new segment.
 */
function needsRoll(s: LogState, pendingBytes: number, batchBytes: number, header: BatchHeader, now: number): boolean {
  const active = activeSegment(s);
  // A new segment takes any batch that fits its int32 fields.
  if (active.size === 0 && pendingBytes === 0) return false;
  const bytes = pendingBytes + batchBytes;
  const full = active.size + bytes > s.options.segmentBytes;
  const old = now - s.activeCreatedAt >= s.options.segmentMs;
  return full || old || active.indexFull || !active.canHold(header.lastOffset, bytes);
}

/** Seals the active segment and starts a new one at the end offset; then applies retention. */
async function roll(s: LogState, now: number): Promise<void> {
  const sealed = activeSegment(s);
  s.dirtySegments.add(sealed);
  await sealed.seal();
  sealed.releaseIndexes(); // its entries are in the file; reads load them back
  const segment = await Segment.open(s.host.storage, s.name, endOffsetOf(s), s.segmentOptions);
  // Nothing can legitimately be there (loading and truncation delete every segment past the
  // end, durably), but a stale file must never be read as part of this log.
  if (segment.size > 0) await segment.log.truncate(0);
  s.segments.push(segment);
  s.dirDirty = true;
  s.activeCreatedAt = now;
  await applyRetention(s, now);
}
