/**
 * The append path: group commit (one encode, one write, and at most one fsync, for every append
 * that arrived while the previous write was in flight: consecutive appends share a batch),
 * rolling to a new segment, and the flush policy (`flushMessages` / `flushMs`) checked after
 * each group.
 */
import type { BatchHeader } from "../format/index.js";
import type { BytesInput, RecordSnapshot } from "../format/record-codec.js";
import { readBatchHeader } from "../format/index.js";
import { ErrorCode, isPagelogError, type PagelogError } from "../errors.js";
import { encodeSnapshots } from "../format/record-batch.js";
import { checkVarints } from "./policies/varint-policy.js";
import { Segment } from "../segment/segment.js";
import { SegmentSlot } from "./segment-slot.js";
import { applyRetention, retentionCount } from "./log-retention.js";
import {
  activeSegment,
  checkWritable,
  endOffsetOf,
  flushLog,
  guard,
  type LogState,
  type PendingAppend,
} from "./log-state.js";

/**
 * Writes one group of appends: consecutive appends share one batch (one encode, one CRC) up to
 * half of `maxBatchBytes`, and every batch of the group goes out in one write. An append that
 * cannot be encoded fails alone, before any I/O: a shared batch that fails to encode is encoded
 * again append by append.
 */
export async function writeGroup(s: LogState, group: PendingAppend[]): Promise<void> {
  if (s.openGroup === group) s.openGroup = undefined; // later appends form the next group
  let now: number;
  let elapsed: number;
  try {
    now = s.options.clock.now();
    elapsed = s.stopwatch.at(now);
  } catch (err) {
    // An injected clock that throws (a TypeError naming it): these appends fail, the log does not.
    for (const item of group) item.reject(err);
    return;
  }
  let pending: Array<{ bytes: Uint8Array; header: BatchHeader }> = [];
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
  const varintPolicy = s.options.policies?.writeVarint;
  const encode = (records: readonly RecordSnapshot[]): Uint8Array => {
    const bytes = encodeSnapshots(records, {
      baseOffset: next,
      timestamp: now,
      maxBatchBytes: s.options.maxBatchBytes,
      ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }),
    });
    if (varintPolicy !== undefined) checkVarints(varintPolicy, bytes); // a reader's writeVarint (chapter 1)
    return bytes;
  };
  const settled: Array<() => void> = [];
  /** Encodes the appends of `unit` as one batch, or each alone if that fails; queues what encoded. */
  const add = async (unit: readonly PendingAppend[]): Promise<void> => {
    let bytes: Uint8Array;
    try {
      bytes = encode(unit.length === 1 ? unit[0]!.records : unit.flatMap((item) => item.records));
    } catch (err) {
      if (unit.length > 1) {
        for (const item of unit) await add([item]);
        return;
      }
      settled.push(() => unit[0]!.reject(err)); // a bad append fails alone, before any I/O
      return;
    }
    const header = readBatchHeader(bytes);
    let refused: PagelogError | undefined;
    await guard(s, async () => {
      if (needsRoll(s, pendingBytes, bytes.length, header, elapsed)) {
        await writePending();
        refused = await roll(s, now, elapsed);
      }
    });
    if (refused !== undefined) {
      // A reader's retention rule was refused after the roll, before anything was deleted: the
      // log is whole and open, and this unit's batch was not written. It fails alone.
      for (const item of unit) settled.push(() => item.reject(refused));
      return;
    }
    pending.push({ bytes, header });
    pendingBytes += bytes.length;
    next = header.lastOffset + 1;
    let base = header.baseOffset;
    for (const item of unit) {
      const offsets = { baseOffset: base, lastOffset: base + item.records.length - 1 };
      settled.push(() => item.resolve(offsets));
      base += item.records.length;
    }
  };
  try {
    const writable = group.filter((item) => {
      try {
        checkWritable(s, "append");
        return true;
      } catch (err) {
        settled.push(() => item.reject(err));
        return false;
      }
    });
    for (const unit of sharedBatches(writable, s.options.maxBatchBytes / 2)) await add(unit);
    await guard(s, async () => {
      await writePending();
      const { flushMessages, flushMs } = s.options;
      if (
        (flushMessages !== -1 && s.unflushedRecords >= flushMessages) ||
        (flushMs !== -1 && elapsed - s.lastFlushAt >= flushMs)
      ) {
        await flushLog(s, { at: elapsed });
      }
    });
  } catch (err) {
    // The group's write (or its flush) failed: none of it is acknowledged.
    for (const item of group) item.reject(err);
    return;
  }
  for (const settle of settled) settle();
}

/** Consecutive appends whose records are estimated at most `limit` bytes together (one each if larger). */
function sharedBatches(group: readonly PendingAppend[], limit: number): PendingAppend[][] {
  const units: PendingAppend[][] = [];
  let unit: PendingAppend[] = [];
  let bytes = 0;
  for (const item of group) {
    const size = estimatedBytes(item.records);
    if (unit.length > 0 && bytes + size > limit) {
      units.push(unit);
      unit = [];
      bytes = 0;
    }
    unit.push(item);
    bytes += size;
  }
  if (unit.length > 0) units.push(unit);
  return units;
}

/** An upper bound of what records take in a batch (a string may take 3 bytes a character). */
function estimatedBytes(records: readonly RecordSnapshot[]): number {
  const size = (b: BytesInput): number => (b === null ? 0 : typeof b === "string" ? 3 * b.length : b.length);
  let total = 0;
  for (const r of records) {
    total += 32 + size(r.key) + size(r.value);
    for (const h of r.headers) total += 10 + 3 * h.key.length + size(h.value);
  }
  return total;
}

/**
 * Whether a batch of `bytes` (ending at `header.lastOffset`), after `pendingBytes` not yet
 * written, must go into a new segment. `elapsed` is the stopwatch's reading.
 */
function needsRoll(
  s: LogState,
  pendingBytes: number,
  batchBytes: number,
  header: BatchHeader,
  elapsed: number,
): boolean {
  const active = activeSegment(s);
  // A new segment takes any batch that fits its int32 fields.
  if (active.size === 0 && pendingBytes === 0) return false;
  const bytes = pendingBytes + batchBytes;
  const full = active.size + bytes > s.options.segmentBytes;
  const old = elapsed - s.activeCreatedAt >= s.options.segmentMs;
  return full || old || active.indexFull || !active.canHold(header.lastOffset, bytes);
}

/**
 * Seals the active segment and starts a new one at the end offset; then applies retention as of
 * wall time `now`. Returns a reader's retention rule's refusal (PAGELOG_POLICY), if any: nothing
 * was deleted then.
 */
async function roll(s: LogState, now: number, elapsed: number): Promise<PagelogError | undefined> {
  const sealed = activeSegment(s);
  s.dirtySegments.add(sealed);
  await sealed.seal();
  sealed.releaseIndexes(); // its entries are in the file; reads load them back
  const segment = await Segment.open(s.host.storage, s.name, endOffsetOf(s), s.segmentOptions);
  // Nothing can legitimately be there (loading and truncation delete every segment past the
  // end, durably), but a stale file must never be read as part of this log.
  if (segment.size > 0) await segment.log.truncate(0);
  s.segments.push(SegmentSlot.of(s.slotContext, segment));
  s.dirDirty = true;
  s.activeCreatedAt = elapsed;
  let count: number;
  try {
    count = await retentionCount(s, now);
  } catch (err) {
    // Refused, or an old segment that retention had to load first failed its check (its first
    // use): nothing was deleted and the log is whole.
    if (isPagelogError(err, ErrorCode.POLICY) || isPagelogError(err, ErrorCode.CORRUPT)) return err;
    throw err;
  }
  await applyRetention(s, count);
  return undefined;
}
