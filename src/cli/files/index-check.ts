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
import { readInt64 } from "../../format/batch-header.js";
import { BATCH_HEADER_SIZE } from "../../format/batch-layout.js";
import { OFFSET_INDEX_ENTRY_SIZE } from "../../segment/offset-index.js";
import { TIME_INDEX_ENTRY_SIZE } from "../../segment/time-index.js";

/** What index checks need to know about each batch of the segment, in file order. */
export interface BatchSummary {
  readonly position: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
}

export interface IndexEntryReport {
  readonly slot: number;
  /** Byte position of the entry in the index file. */
  readonly byte: number;
  readonly offset: number;
  readonly position?: number;
  readonly timestamp?: number;
  /** Undefined when the entry is consistent with the log. */
  readonly problem?: string;
}

export interface IndexReport {
  readonly entries: IndexEntryReport[];
  /** Problems of the file as a whole (a partial trailing entry), with the byte they start at. */
  readonly fileProblems: Array<{ byte: number; problem: string }>;
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
 * `segment.index.bytes` (10 MiB) and pagelog's default `maxIndexBytes` (the same).
 */
export const INDEX_READ_LIMIT_WITHOUT_LOG = 16 * 1024 * 1024;

/**
 * The most bytes an index beside a `.log` of `logSize` bytes can plausibly hold: one entry per
 * batch (each at least a 61-byte header), plus one, as the log's own sanity check allows. Without
 * a `.log`, {@link INDEX_READ_LIMIT_WITHOUT_LOG}. The tools read no more than this.
 */
export function indexReadLimit(entrySize: number, logSize: number | undefined): number {
  if (logSize === undefined) return INDEX_READ_LIMIT_WITHOUT_LOG - (INDEX_READ_LIMIT_WITHOUT_LOG % entrySize);
  return entrySize * (Math.floor(logSize / BATCH_HEADER_SIZE) + 1);
}

/** The problem of an index file larger than {@link indexReadLimit}: where the unread part starts and why. */
export function oversizeProblem(
  size: number,
  readBytes: number,
  entrySize: number,
  logSize: number | undefined,
): { byte: number; problem: string } {
  const entries = Math.floor(size / entrySize);
  const why =
    logSize === undefined
      ? `more than the ${INDEX_READ_LIMIT_WITHOUT_LOG} bytes read of an index without its .log`
      : `${entries} entries, more than a .log of ${logSize} bytes can need (at most ${readBytes / entrySize})`;
  return {
    byte: readBytes,
    problem: `the file is ${size} bytes: ${why}; bytes from ${readBytes} on were not read (the next open rebuilds this index)`,
  };
}

function partial(size: number, entrySize: number): Array<{ byte: number; problem: string }> {
  const rest = size % entrySize;
  return rest === 0
    ? []
    : [{ byte: size - rest, problem: `${rest} trailing bytes do not form a whole ${entrySize}-byte entry` }];
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

export function checkOffsetIndex(bytes: Uint8Array, segment: SegmentFacts): IndexReport {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const byPosition = new Map(segment.batches.map((b) => [b.position, b]));
  const entries: IndexEntryReport[] = [];
  let previous: { offset: number; position: number } | undefined;
  for (let slot = 0; (slot + 1) * OFFSET_INDEX_ENTRY_SIZE <= bytes.length; slot++) {
    const byte = slot * OFFSET_INDEX_ENTRY_SIZE;
    const offset = segment.baseOffset + view.getInt32(byte);
    const position = view.getInt32(byte + 4);
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
    entries.push({ slot, byte, offset, position, ...(problem === undefined ? {} : { problem }) });
    previous = { offset, position };
  }
  return { entries, fileProblems: partial(bytes.length, OFFSET_INDEX_ENTRY_SIZE) };
}

export function checkTimeIndex(bytes: Uint8Array, segment: SegmentFacts): IndexReport {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // runningMax[i]: the largest maxTimestamp of batches 0..i.
  const runningMax: number[] = [];
  for (const b of segment.batches)
    runningMax.push(Math.max(runningMax[runningMax.length - 1] ?? -Infinity, b.maxTimestamp));
  const entries: IndexEntryReport[] = [];
  let previous: { offset: number; timestamp: number } | undefined;
  for (let slot = 0; (slot + 1) * TIME_INDEX_ENTRY_SIZE <= bytes.length; slot++) {
    const byte = slot * TIME_INDEX_ENTRY_SIZE;
    const offset = segment.baseOffset + view.getInt32(byte + 8);
    let timestamp: number;
    try {
      timestamp = readInt64(view, byte, "timestamp");
    } catch {
      entries.push({ slot, byte, offset, timestamp: Number.NaN, problem: "timestamp beyond Number.MAX_SAFE_INTEGER" });
      continue;
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
    entries.push({ slot, byte, offset, timestamp, ...(problem === undefined ? {} : { problem }) });
    previous = { offset, timestamp };
  }
  return { entries, fileProblems: partial(bytes.length, TIME_INDEX_ENTRY_SIZE) };
}
