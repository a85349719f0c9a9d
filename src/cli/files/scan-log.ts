/**
 * One pass over a segment's `.log` for dump and verify: every framed batch, what is wrong with
 * each (CRC, offsets not continuing the previous batch), and where and why the walk ended.
 * Also groups a partition directory's files into segments by base offset.
 */
import { parseSegmentFileName } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";
import { hex32, walkBatches, type WalkedBatch, type WalkEnd } from "./batch-walk.js";
import type { BatchSummary, SegmentFacts } from "./index-check.js";
import { fileSource } from "./open-dir.js";

export interface BatchFinding {
  readonly batch: WalkedBatch;
  /** What is wrong with the batch, if anything (CRC, offsets). */
  readonly problems: string[];
}

export interface LogScan extends SegmentFacts {
  readonly size: number;
  readonly end: WalkEnd;
  /** Every problem with the byte it is at, in file order. */
  readonly problems: Array<{ byte: number; problem: string }>;
}

/**
 * Walks `path`, calling `onBatch` for each batch (with its problems) before moving on; the batch's
 * bytes are only valid during the call. `baseOffset` is where the first batch must start.
 */
export async function scanLog(storage: Storage, path: string, baseOffset: number, onBatch?: (f: BatchFinding) => void | Promise<void>): Promise<LogScan> {
  const file = await storage.open(path, { readOnly: true });
  try {
    const source = await fileSource(file);
    const batches: BatchSummary[] = [];
    const problems: Array<{ byte: number; problem: string }> = [];
    let expected = baseOffset;
    const end = await walkBatches(source, async (batch) => {
      const found: string[] = [];
      const { header, position } = batch;
      if (!batch.crcValid) found.push(`CRC ${hex32(header.crc)} does not match the computed ${hex32(batch.computedCrc)}`);
      if (header.baseOffset !== expected) {
        found.push(batches.length === 0 ? `first batch starts at offset ${header.baseOffset}, the segment's base offset is ${baseOffset}` : `batch starts at offset ${header.baseOffset}, the previous batch ended at ${expected - 1}`);
      }
      for (const p of found) problems.push({ byte: position, problem: p });
      batches.push({ position, baseOffset: header.baseOffset, lastOffset: header.lastOffset, maxTimestamp: header.maxTimestamp });
      expected = header.lastOffset + 1;
      await onBatch?.({ batch, problems: found });
    });
    if (end.reason !== undefined) problems.push({ byte: end.position, problem: end.detail });
    const last = batches[batches.length - 1];
    return { baseOffset, batches, nextOffset: last === undefined ? baseOffset : last.lastOffset + 1, hasLog: true, size: source.size, end, problems };
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
