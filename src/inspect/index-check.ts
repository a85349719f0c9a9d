/**
 * Reads `.index` and `.timeindex` files entry by entry and checks each entry against the batches
 * of the segment's `.log`, for dump and verify. The rules are what a lookup needs to be right,
 * and hold for indexes written by Kafka as well as by pagelog:
 *
 * - offset index entry (offset, position): a batch starts at `position`; `offset` is at or after
 *   that batch's last offset and inside the segment; offsets and positions strictly increase.
 * - time index entry (timestamp, offset): `offset` is inside the segment; `timestamp` is the
 *   largest batch maxTimestamp up to and including the batch holding `offset` (Kafka's running
 *   maximum); timestamps and offsets never decrease.
 */
import { readInt64 } from "../format/batch-header.js";
import { BATCH_HEADER_SIZE } from "../format/batch-layout.js";
import { OFFSET_INDEX_ENTRY_SIZE } from "../segment/offset-index.js";
import { TIME_INDEX_ENTRY_SIZE } from "../segment/time-index.js";
import { plural } from "../text/plural.js";

/** What index checks need to know about each batch of the segment, in file order. */
export interface BatchSummary {
  readonly position: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
}

interface IndexEntryReport {
  readonly slot: number;
  /** Byte position of the entry in the index file. */
  readonly byte: number;
  readonly offset: number;
  readonly position?: number;
  readonly timestamp?: number;
  /** Undefined when the entry is consistent with the log. */
  readonly problem?: string;
}

/** The segment as the checks see it: its base offset, its batches, and whether its `.log` exists. */
export interface SegmentFacts {
  readonly baseOffset: number;
  readonly batches: readonly BatchSummary[];
  /** One past the last offset of the last batch (the base offset if there is none). */
  readonly nextOffset: number;
  readonly hasLog: boolean;
}

/**
 * Bytes of an index read when there is no `.log` to bound it: 16 MiB, more than Kafka's default
 * `segment.index.bytes` (10 MiB) and pagelog's default `maxIndexBytes` (the same). Beside a
 * `.log`, this much is always read too (a Kafka index preallocated to 10 MiB is read whole).
 */
const INDEX_READ_LIMIT_WITHOUT_LOG = 16 * 1024 * 1024;

const aligned = (bytes: number, entrySize: number) => bytes - (bytes % entrySize);

/**
 * The most bytes of an index the log's own sanity check accepts beside a `.log` of `logSize`
 * bytes: one entry per batch (each at least a 61-byte header), plus one. A larger file the next
 * open does not read at all: it rebuilds the index.
 */
function loaderIndexLimit(entrySize: number, logSize: number): number {
  return entrySize * (Math.floor(logSize / BATCH_HEADER_SIZE) + 1);
}

/**
 * Bytes of an index the tools read: no more than the loader accepts, and no more than the
 * `.log`'s batches can have indexed (no writer adds more than one entry per batch) unless that
 * is under {@link INDEX_READ_LIMIT_WITHOUT_LOG}. A sparse 10 GiB index beside a sparse 10 GiB
 * `.log` costs 16 MiB of reading, not the 2 GiB the loader would allow.
 */
function indexReadLimit(entrySize: number, segment: SegmentFacts, logSize: number | undefined): number {
  const floor = aligned(INDEX_READ_LIMIT_WITHOUT_LOG, entrySize);
  if (logSize === undefined || !segment.hasLog) return floor;
  return Math.min(loaderIndexLimit(entrySize, logSize), Math.max(floor, entrySize * (segment.batches.length + 1)));
}

/** The problem of an index file larger than {@link indexReadLimit}: where the unread part starts and why. */
function oversizeProblem(
  size: number,
  readBytes: number,
  entrySize: number,
  segment: SegmentFacts,
  logSize: number | undefined,
): { byte: number; problem: string } {
  const entries = Math.floor(size / entrySize);
  const unread = `bytes from ${readBytes} on were not read`;
  let why: string;
  if (logSize === undefined || !segment.hasLog)
    why = `more than the ${INDEX_READ_LIMIT_WITHOUT_LOG} bytes read of an index without its .log; ${unread}`;
  else if (size > loaderIndexLimit(entrySize, logSize))
    why = `${plural(entries, "entry", "entries")}, more than a .log of ${plural(logSize, "byte")} can need (at most ${loaderIndexLimit(entrySize, logSize) / entrySize}); ${unread} (the next open rebuilds this index)`;
  else
    why = `${plural(entries, "entry", "entries")}, more than the ${plural(segment.batches.length, "batch", "batches")} of its .log can have indexed (one entry per batch); ${unread}`;
  return { byte: readBytes, problem: `the file is ${plural(size, "byte")}: ${why}` };
}

function batchHolding(batches: readonly BatchSummary[], offset: number): number {
  let lo = 0;
  let hi = batches.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const b = batches[mid]!;
    if (offset < b.baseOffset) hi = mid - 1;
    else if (offset > b.lastOffset) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Checks one entry at `byte` of `view` (the file's entry at slot `slot`, file byte `fileByte`). */
type EntryCheck = (view: DataView, byte: number, slot: number, fileByte: number) => IndexEntryReport;

function offsetIndexCheck(segment: SegmentFacts): EntryCheck {
  const byPosition = new Map(segment.batches.map((b) => [b.position, b]));
  let previous: { offset: number; position: number } | undefined;
  return (view, at, slot, byte) => {
    const offset = segment.baseOffset + view.getInt32(at);
    const position = view.getInt32(at + 4);
    let problem: string | undefined;
    const batch = byPosition.get(position);
    if (!segment.hasLog) problem = "no .log to check it against";
    else if (offset < segment.baseOffset || offset >= segment.nextOffset)
      problem = `offset ${offset} is outside the segment's offsets [${segment.baseOffset}, ${segment.nextOffset})`;
    else if (batch === undefined) problem = `no batch starts at position ${position} of the .log`;
    else if (offset < batch.lastOffset)
      problem = `the batch at position ${position} ends at offset ${batch.lastOffset}, after the entry's offset ${offset}`;
    else if (previous !== undefined && offset <= previous.offset)
      problem = `offset ${offset} does not increase (previous entry ${previous.offset})`;
    else if (previous !== undefined && position <= previous.position)
      problem = `position ${position} does not increase (previous entry ${previous.position})`;
    previous = { offset, position };
    return { slot, byte, offset, position, ...(problem === undefined ? {} : { problem }) };
  };
}

function timeIndexCheck(segment: SegmentFacts): EntryCheck {
  // runningMax[i]: the largest maxTimestamp of batches 0..i.
  const runningMax: number[] = [];
  for (const b of segment.batches)
    runningMax.push(Math.max(runningMax[runningMax.length - 1] ?? -Infinity, b.maxTimestamp));
  let previous: { offset: number; timestamp: number } | undefined;
  return (view, at, slot, byte) => {
    const offset = segment.baseOffset + view.getInt32(at + 8);
    let timestamp: number;
    try {
      timestamp = readInt64(view, at, "timestamp");
    } catch {
      return { slot, byte, offset, timestamp: Number.NaN, problem: "timestamp beyond Number.MAX_SAFE_INTEGER" };
    }
    let problem: string | undefined;
    const holding = batchHolding(segment.batches, offset);
    if (!segment.hasLog) problem = "no .log to check it against";
    else if (holding < 0)
      problem = `offset ${offset} is not in any batch of the segment [${segment.baseOffset}, ${segment.nextOffset})`;
    else if (runningMax[holding] !== timestamp)
      problem = `the largest timestamp up to offset ${offset} is ${runningMax[holding]}, the entry says ${timestamp}`;
    else if (previous !== undefined && timestamp < previous.timestamp)
      problem = `timestamp ${timestamp} is earlier than the previous entry's ${previous.timestamp}`;
    else if (previous !== undefined && offset < previous.offset)
      problem = `offset ${offset} decreases (previous entry ${previous.offset})`;
    previous = { offset, timestamp };
    return { slot, byte, offset, timestamp, ...(problem === undefined ? {} : { problem }) };
  };
}

/**
 * An entry and the identical entries right after it: `repeats` more slots with the same bytes and
 * the same finding. A preallocated or sparse index is mostly zeros; this is how it stays a few
 * lines of output and a few objects in memory.
 */
export interface IndexRun extends IndexEntryReport {
  /** How many more slots, right after this one, hold the same bytes with the same finding. */
  readonly repeats: number;
}

export interface IndexWalk {
  /** The file's size in bytes. */
  readonly size: number;
  /** Entries read (every slot, repeats included). */
  readonly entries: number;
  /** Entries with a problem (repeats included); 0 without a .log, where nothing is checked. */
  readonly mismatches: number;
  /** Problems of the file as a whole: a partial last entry, or more bytes than were read. */
  readonly fileProblems: Array<{ byte: number; problem: string }>;
}

/** Bytes read at a time: a whole number of entries of either kind (8 and 12 bytes). */
const CHUNK_BYTES = 24 * 43_690;
/** Repeats are matched this many bytes at a time (a byte compare, not an entry check, per slot). */
const RUN_BLOCK_ENTRIES = 512;

/**
 * Reads an index file of `kind` in chunks, checks every entry against `segment`, and calls
 * `onRun` for each run of identical entries, in file order. Reads at most
 * {@link indexReadLimit} bytes (the rest is a file problem) and holds one chunk at a time.
 */
export async function walkIndex(
  file: { size(): Promise<number>; read(position: number, length: number): Promise<Uint8Array> },
  kind: "index" | "timeindex",
  segment: SegmentFacts,
  logSize: number | undefined,
  onRun: (run: IndexRun) => void | Promise<void>,
): Promise<IndexWalk> {
  const entrySize = kind === "index" ? OFFSET_INDEX_ENTRY_SIZE : TIME_INDEX_ENTRY_SIZE;
  const size = await file.size();
  const limit = indexReadLimit(entrySize, segment, logSize);
  const readable = aligned(Math.min(size, limit), entrySize);
  const check = kind === "index" ? offsetIndexCheck(segment) : timeIndexCheck(segment);
  let entries = 0;
  let mismatches = 0;
  // The open run: its entry, its bytes, and (once it repeats) those bytes repeated for a block compare.
  let run: { entry: IndexEntryReport; bytes: Uint8Array; repeats: number; block?: Uint8Array } | undefined;
  const close = async () => {
    if (run === undefined) return;
    const { entry, repeats } = run;
    run = undefined;
    await onRun({ ...entry, repeats });
  };
  for (let position = 0; position < readable;) {
    const chunk = await file.read(position, Math.min(CHUNK_BYTES, readable - position));
    const usable = chunk.length - (chunk.length % entrySize);
    if (usable === 0) break; // the file shrank under us
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = 0; at < usable;) {
      // A run that already repeats: a repeat meets the same state, so it has the same finding.
      if (run !== undefined && run.repeats > 0) {
        const n = Math.min(RUN_BLOCK_ENTRIES, (usable - at) / entrySize);
        run.block ??= repeated(run.bytes, RUN_BLOCK_ENTRIES);
        if (sameBytes(chunk, at, run.block, n * entrySize)) {
          run.repeats += n;
          entries += n;
          if (run.entry.problem !== undefined && segment.hasLog) mismatches += n;
          at += n * entrySize;
          continue;
        }
      }
      const slot = (position + at) / entrySize;
      const entry = check(view, at, slot, position + at);
      entries++;
      if (entry.problem !== undefined && segment.hasLog) mismatches++;
      if (run !== undefined && entry.problem === run.entry.problem && sameBytes(chunk, at, run.bytes, entrySize)) {
        run.repeats++;
      } else {
        await close();
        run = { entry, bytes: chunk.slice(at, at + entrySize), repeats: 0 };
      }
      at += entrySize;
    }
    position += usable;
  }
  await close();
  const fileProblems: Array<{ byte: number; problem: string }> = [];
  if (size > limit) fileProblems.push(oversizeProblem(size, readable, entrySize, segment, logSize));
  else if (size % entrySize !== 0)
    fileProblems.push({
      byte: size - (size % entrySize),
      problem: `${size % entrySize} trailing bytes do not form a whole ${entrySize}-byte entry`,
    });
  return { size, entries, mismatches, fileProblems };
}

function repeated(bytes: Uint8Array, times: number): Uint8Array {
  const out = new Uint8Array(bytes.length * times);
  for (let i = 0; i < times; i++) out.set(bytes, i * bytes.length);
  return out;
}

/** Whether `a[at, at + n)` equals `b[0, n)`. */
function sameBytes(a: Uint8Array, at: number, b: Uint8Array, n: number): boolean {
  return Buffer.compare(a.subarray(at, at + n), b.subarray(0, n)) === 0;
}
