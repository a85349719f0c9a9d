/**
 * One pass over a segment's `.log` for dump and verify: every framed batch, what is wrong with
 * each (CRC, offsets not continuing the previous batch or outside the segment's int32 range,
 * records that the library's own decoder refuses), what pagelog cannot read (snappy, lz4, zstd),
 * and where and why the walk ended. Also groups a partition directory's files into segments.
 */
import { ErrorCode, isPagelogError } from "../errors.js";
import type { DecodedBatch } from "../format/record-batch.js";
import { decodeBatch } from "../format/checked/batch-functions.js";
import { gapAllowed, impossibleHeader } from "../segment/batch-scanner.js";
import { parseSegmentFileName } from "../segment/segment-names.js";
import type { Storage } from "../storage/storage.js";
import { hex32, walkBatches, type FileBatch, type WalkEnd } from "./batch-walk.js";
import type { BatchSummary, SegmentFacts } from "./index-check.js";
import { fileSource } from "./file-read.js";

export interface BatchFinding {
  readonly batch: FileBatch;
  /** What is wrong with the batch, if anything (CRC, offsets, records). */
  readonly problems: string[];
  /** Why pagelog cannot read the batch although nothing is known to be wrong with it (snappy…). */
  readonly unsupported: string | undefined;
  /** The batch decoded by the library's decoder, when its CRC matched and decoding succeeded. */
  readonly decoded: DecodedBatch | undefined;
}

export interface LogScan extends SegmentFacts {
  readonly size: number;
  readonly end: WalkEnd;
  /** Every problem with the byte it is at, in file order. */
  readonly problems: Array<{ byte: number; problem: string }>;
  /** Every batch pagelog cannot read (`PAGELOG_UNSUPPORTED_COMPRESSION`, `PAGELOG_RECORD_TOO_LARGE`). */
  readonly unsupported: Array<{ byte: number; problem: string }>;
}

/** Error codes of a read that say "pagelog cannot read this", not "these bytes are damaged". */
const UNSUPPORTED_CODES: readonly ErrorCode[] = [ErrorCode.UNSUPPORTED_COMPRESSION, ErrorCode.RECORD_TOO_LARGE];

/**
 * Decodes a CRC-valid batch with the same decoder and defaults `Log.read` uses, so the tools and
 * reads can never disagree: every record's framing, lengths, counts and deltas, and gzip
 * decompression (capped as reads cap it). Returns the decoded batch or why it cannot be read.
 */
export async function decodeLikeRead(
  bytes: Uint8Array,
): Promise<{ decoded: DecodedBatch } | { corrupt: string } | { unsupported: string }> {
  try {
    // A copy: decoded keys and values are views into the bytes given.
    return { decoded: await decodeBatch(bytes.slice(), { verifyCrc: false }) };
  } catch (err) {
    if (isPagelogError(err) && UNSUPPORTED_CODES.includes(err.code))
      return { unsupported: `${err.message} (reads fail with ${err.code})` };
    if (isPagelogError(err, ErrorCode.CORRUPT)) return { corrupt: `records cannot be read: ${err.message}` };
    throw err;
  }
}

/**
 * Walks `path`, calling `onBatch` for each batch (with its problems) before moving on; the batch's
 * bytes are only valid during the call. `baseOffset` is where the first batch must start.
 * `keepBatches` false leaves `batches` empty (nothing to check an index against): dumping a
 * `.log` alone then holds one batch at a time, however many the file has.
 */
export async function scanLog(
  storage: Storage,
  path: string,
  baseOffset: number,
  onBatch?: (f: BatchFinding) => void | Promise<void>,
  keepBatches = true,
  gapsBelow?: number,
): Promise<LogScan> {
  const file = await storage.open(path, { readOnly: true });
  try {
    const source = await fileSource(file);
    const batches: BatchSummary[] = [];
    const problems: Array<{ byte: number; problem: string }> = [];
    const unsupported: Array<{ byte: number; problem: string }> = [];
    let expected = baseOffset;
    let walked = false;
    const end = await walkBatches(source, async (batch) => {
      const found: string[] = [];
      const { header, position } = batch;
      if (!batch.crcValid)
        found.push(`CRC ${hex32(header.crc)} does not match the computed ${hex32(batch.computedCrc)}`);
      // Below the clean point (cleaner-offset-checkpoint) a batch may skip offsets: the log
      // cleaner dropped the records between, and the loader accepts it (batch-scanner.ts). The
      // first batch too: there the base offset is a lower bound, as Kafka's cleaner leaves it.
      if (header.baseOffset !== expected && !gapAllowed(header, expected, gapsBelow)) {
        found.push(
          !walked
            ? `first batch starts at offset ${header.baseOffset}, the segment's base offset is ${baseOffset}`
            : `batch starts at offset ${header.baseOffset}, the previous batch ended at ${expected - 1}`,
        );
      }
      // The loader's own check, so that verify and opening agree.
      const impossible = impossibleHeader(header, position, baseOffset);
      if (impossible !== undefined) found.push(`batch ${impossible}`);
      let why: string | undefined;
      let decoded: DecodedBatch | undefined;
      if (batch.crcValid && impossible === undefined) {
        const result = await decodeLikeRead(batch.bytes);
        if ("corrupt" in result) found.push(result.corrupt);
        else if ("unsupported" in result) why = result.unsupported;
        else decoded = result.decoded;
      }
      for (const p of found) problems.push({ byte: position, problem: p });
      if (why !== undefined) unsupported.push({ byte: position, problem: why });
      if (keepBatches)
        batches.push({
          position,
          baseOffset: header.baseOffset,
          lastOffset: header.lastOffset,
          maxTimestamp: header.maxTimestamp,
        });
      expected = header.lastOffset + 1;
      walked = true;
      await onBatch?.({ batch, problems: found, unsupported: why, decoded });
    });
    if (end.reason !== undefined) problems.push({ byte: end.position, problem: end.detail });
    return {
      baseOffset,
      batches,
      nextOffset: walked ? expected : baseOffset,
      hasLog: true,
      size: source.size,
      end,
      problems,
      unsupported,
    };
  } finally {
    await file.close();
  }
}

export interface SegmentFiles {
  readonly baseOffset: number;
  /** File names present, by suffix. */
  readonly log?: string;
  readonly index?: string;
  readonly timeindex?: string;
}

/** Groups the segment files of a listing by base offset (ascending); other names are returned apart. */
export function groupSegments(names: readonly string[]): { segments: SegmentFiles[]; others: string[] } {
  const byBase = new Map<number, { baseOffset: number; log?: string; index?: string; timeindex?: string }>();
  const others: string[] = [];
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    if (parsed === undefined) {
      others.push(name);
      continue;
    }
    const entry = byBase.get(parsed.baseOffset) ?? { baseOffset: parsed.baseOffset };
    if (parsed.suffix === ".log") entry.log = name;
    else if (parsed.suffix === ".index") entry.index = name;
    else entry.timeindex = name;
    byBase.set(parsed.baseOffset, entry);
  }
  return { segments: [...byBase.values()].sort((a, b) => a.baseOffset - b.baseOffset), others };
}
