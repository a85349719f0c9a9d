/**
 * The append path: group commit (one encode, one write, and at most one fsync, for every append
 * that arrived while the previous write was in flight: consecutive appends share a batch),
 * rolling to a new segment, and the flush policy (`flushMessages` / `flushMs`) checked after
 * each group.
 */
import type { BatchHeader } from "../../format/index.js";
import type { BytesInput, RecordSnapshot } from "../../format/record-codec.js";
import { assertInvariant, ErrorCode, isPagelogError, PagelogError } from "../../errors.js";
import { type EncodedBatch, encodeAppendBatch } from "../../format/record-batch.js";
import { WriteMemory } from "./write-memory.js";
import { Segment } from "../../segment/segment.js";
import { pushSegment } from "../state/segment-list.js";
import { SegmentSlot } from "../state/segment-slot.js";
import { loadRetention } from "./door-retention.js";
import { retains } from "../options/cleanup-policy.js";
import { requestRollFlush } from "./roll-flush.js";

type Retention = typeof import("./log-retention.js");
import { wake } from "../state/log-waiters.js";
import {
  activeSegment,
  checkWritable,
  endOffsetOf,
  flushLog,
  guard,
  type LogState,
  type PendingAppend,
} from "../state/log-state.js";

/**
 * Writes one group of appends: consecutive appends share one batch (one encode, one CRC) up to
 * half of `maxBatchBytes`, and every batch of the group goes out in one write. An append that
 * cannot be encoded fails alone, before any I/O: a shared batch that fails to encode is encoded
 * again append by append.
 */
export async function writeGroup(s: LogState, group: PendingAppend[]): Promise<void> {
  if (s.openGroup === group) s.openGroup = undefined; // later appends form the next group
  const g = startGroup(s, group);
  let written = g !== undefined;
  if (g !== undefined) {
    try {
      const writable = writableAppends(g, group);
      for (const unit of sharedBatches(writable, s.options.maxBatchBytes / 2)) await addUnit(g, unit);
      await guard(s, () => writeAndFlushIfDue(g));
    } catch (err) {
      // The group's write (or its flush) failed: none of it is acknowledged.
      for (const item of group) item.reject(err);
      written = false;
    } finally {
      g.memory.release(); // every write of the group has settled: its bytes are no one's now
    }
  }
  // Answered: in the same job as the wake below, so a woken follower sees whether another group
  // is coming (read/follow-coalesce.ts).
  s.appendGroups--;
  if (!written) return;
  for (const settle of g!.settled) settle();
  // Followers wake on the append itself, after its callers were told (a failure woke them in fail()).
  wake(s.waiters);
}

/** One group's write in progress: what is encoded but not yet written, and how each append ends. */
interface GroupWrite {
  readonly s: LogState;
  /** Wall time stamped on the group's batches, and the stopwatch's reading taken with it. */
  readonly now: number;
  readonly elapsed: number;
  /** Where the group's batches are encoded: memory reused from earlier groups when there is some. */
  readonly memory: WriteMemory;
  /** Encoded batches not yet written, and their bytes in all. */
  pending: Array<{ bytes: Uint8Array; header: BatchHeader }>;
  pendingBytes: number;
  /** The offset the next batch starts at. */
  next: number;
  /** Each append's resolve or reject, run only once the whole group is written (and flushed if due). */
  readonly settled: Array<() => void>;
}

/** Reads the clock for the group; an injected clock that throws fails the group's appends, not the log. */
function startGroup(s: LogState, group: readonly PendingAppend[]): GroupWrite | undefined {
  let now: number;
  let elapsed: number;
  try {
    now = s.options.clock.now();
    elapsed = s.stopwatch.at(now);
  } catch (err) {
    // An injected clock that throws (a TypeError naming it): these appends fail, the log does not.
    for (const item of group) item.reject(err);
    return undefined;
  }
  // A follower of the end will be handed these batches (state/written-tail.ts): memory of their own.
  const memory = WriteMemory.take(s.writtenTail?.wanted === true);
  return { s, now, elapsed, memory, pending: [], pendingBytes: 0, next: endOffsetOf(s), settled: [] };
}

/** The appends the log can take now; each of the others fails with the reason, after the group. */
function writableAppends(g: GroupWrite, group: readonly PendingAppend[]): PendingAppend[] {
  return group.filter((item) => {
    try {
      checkWritable(g.s, "append");
      return true;
    } catch (err) {
      g.settled.push(() => item.reject(err));
      return false;
    }
  });
}

/** Encodes the appends of `unit` as one batch, or each alone if that fails; queues what encoded. */
async function addUnit(g: GroupWrite, unit: readonly PendingAppend[]): Promise<void> {
  let encoded: EncodedBatch;
  try {
    encoded = encodeBatch(g, unit.length === 1 ? unit[0]!.records : unit.flatMap((item) => item.records));
  } catch (err) {
    if (unit.length > 1) {
      for (const item of unit) await addUnit(g, [item]);
      return;
    }
    g.settled.push(() => unit[0]!.reject(err)); // a bad append fails alone, before any I/O
    return;
  }
  const { bytes, header } = encoded;
  const refused = await rollIfDue(g, bytes.length, header);
  if (refused !== undefined) {
    // A reader's retention rule was refused after the roll, before anything was deleted (or
    // retention's part failed to load, before the roll): the log is whole and open, and this
    // unit's batch was not written. It fails alone.
    for (const item of unit) g.settled.push(() => item.reject(refused));
    return;
  }
  g.pending.push({ bytes, header });
  g.pendingBytes += bytes.length;
  g.next = header.lastOffset + 1;
  let base = header.baseOffset;
  for (const item of unit) {
    const offsets = { baseOffset: base, lastOffset: base + item.records.length - 1 };
    g.settled.push(() => item.resolve(offsets));
    base += item.records.length;
  }
}

/**
 * One batch at the group's next offset and time, checked by a reader's writeVarint (chapter 1).
 * Encoded once: its header comes from the encoder, and the log's options were checked at open.
 */
function encodeBatch(g: GroupWrite, records: readonly RecordSnapshot[]): EncodedBatch {
  // The end after this batch must stay an exact number: a log whose start a checkpoint put at
  // 2^53 - 1 takes no record there (its end would be 2^53, which a JS number cannot tell from 2^53 + 1).
  if (g.next + records.length > Number.MAX_SAFE_INTEGER)
    throw new PagelogError(
      `append of ${records.length} records at offset ${g.next}: the log's end would pass ${Number.MAX_SAFE_INTEGER}, the largest offset pagelog counts exactly`,
      ErrorCode.OFFSET_OUT_OF_RANGE,
      { path: g.s.name },
    );
  const encoded = encodeAppendBatch(records, g.next, g.now, g.s.options, g.memory.allocate);
  // The pair of the encoder's own checks (PAGELOG_CHECKS=all: the bytes read back as the header)
  // and a reader's writeVarint, when the log runs them.
  g.s.checkBatch?.(encoded, records.length);
  return encoded;
}

/**
 * Writes what is pending and rolls to a new segment if a batch of `batchBytes` must go into one.
 * Returns a reader's retention rule's refusal (PAGELOG_POLICY), if any.
 */
async function rollIfDue(g: GroupWrite, batchBytes: number, header: BatchHeader): Promise<unknown> {
  let refused: PagelogError | undefined;
  const due = needsRoll(g.s, g.pendingBytes, batchBytes, header, g.elapsed);
  // A roll of a log that retains applies retention, a part loaded on first use (door-retention.ts):
  // loaded before the guard and before anything is written, so a chunk that fails to load fails
  // this unit alone, as a refusal does, and never the log.
  let retention: Retention | undefined;
  if (due && retains(g.s.options)) {
    try {
      retention = await loadRetention();
    } catch (err) {
      return err;
    }
  }
  await guard(g.s, async () => {
    if (due) {
      await writePending(g);
      refused = await roll(g.s, g.now, g.elapsed, retention);
    }
  });
  return refused;
}

/** Every pending batch in one write to the active segment. */
async function writePending(g: GroupWrite): Promise<void> {
  if (g.pending.length === 0) return;
  const { s } = g;
  const out = g.pending;
  g.pending = [];
  g.pendingBytes = 0;
  const active = activeSegment(s);
  s.dirtySegments.add(active);
  await active.appendBatches(out);
  // The pair of the encoder's offsets: the segment now ends where the last batch written does.
  const last = out[out.length - 1]!.header;
  assertInvariant(
    active.nextOffset === last.lastOffset + 1,
    () => `append wrote up to ${last.lastOffset} but segment ${active.baseOffset} ends at ${active.nextOffset}`,
    s.name,
  );
  // On the file now: a follower of the end may be handed these bytes instead of reading them back.
  s.writtenTail?.written(out, g.memory.owned);
  for (const p of out) s.unflushedRecords += p.header.recordsCount;
}

/** The group's last write, then the flush policy: `flushMessages` records or `flushMs` since the last flush. */
async function writeAndFlushIfDue(g: GroupWrite): Promise<void> {
  const { s } = g;
  await writePending(g);
  const { flushMessages, flushMs } = s.options;
  if (
    (flushMessages !== -1 && s.unflushedRecords >= flushMessages) ||
    (flushMs !== -1 && g.elapsed - s.lastFlushAt >= flushMs)
  ) {
    await flushLog(s, { at: g.elapsed });
  }
}

/** Consecutive appends whose records are estimated at most `limit` bytes together (one each if larger). */
function sharedBatches(group: readonly PendingAppend[], limit: number): PendingAppend[][] {
  if (group.length <= 1) return group.length === 0 ? [] : [[group[0]!]]; // one append: nothing to estimate
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
 * Seals the active segment and starts a new one at the end offset, starts the roll flush of the
 * sealed one (roll-flush.ts); then applies retention as of
 * wall time `now`. Returns a reader's retention rule's refusal (PAGELOG_POLICY), if any: nothing
 * was deleted then.
 */
async function roll(
  s: LogState,
  now: number,
  elapsed: number,
  retention: Retention | undefined,
): Promise<PagelogError | undefined> {
  const sealed = activeSegment(s);
  s.dirtySegments.add(sealed);
  await sealed.seal();
  sealed.releaseIndexes(); // its entries are in the file; reads load them back
  // A recovery point at a segment's base vouches for every segment below it, indexes included
  // (recovery starts at the segment holding the recovery point, as Kafka's does). A flush()
  // that reached the end of the then-active segment synced only its `.log` (flushLog): before
  // the next segment exists, so before any checkpoint can name its base, sync the indexes too.
  // Once per roll, and only when a flush landed exactly on the segment's end.
  if (s.recoveryPoint >= sealed.nextOffset) await sealed.flush({ indexes: true });
  const segment = await Segment.open(s.host.storage, s.name, endOffsetOf(s), s.segmentOptions);
  // Nothing can legitimately be there (loading and truncation delete every segment past the
  // end, durably), but a stale file must never be read as part of this log.
  if (segment.size > 0) await segment.log.truncate(0);
  pushSegment(s, SegmentSlot.of(s.slotContext, segment));
  s.dirDirty = true;
  s.activeCreatedAt = elapsed;
  // As Kafka's roll: the sealed segment is made durable in the background, then the recovery
  // point moves to the new base (roll-flush.ts). This append does not wait for it.
  requestRollFlush(s, segment.baseOffset);
  if (retention === undefined) return undefined; // retention off: nothing to delete (door-retention.ts)
  const { applyRetention, retentionCount } = retention;
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
