/**
 * What the demo reads from a segment's bytes for its picture: the file as the log sees it, the
 * base offset its name gives, and the batches recovery would keep.
 */
import { bytesSource, walkBatches } from "../inspect/batch-walk.js";
import { parseSegmentFileName } from "../segment/segment-names.js";
import type { SimStorage } from "../storage/sim-storage.js";

export interface BatchMark {
  readonly position: number;
  readonly baseOffset: number;
  /** False for the first batch recovery will not keep (torn, bad CRC, out of sequence). */
  readonly valid: boolean;
}

/** Reads a whole file through the storage (the cached view, as the log reads it). */
export async function readFile(storage: SimStorage, path: string): Promise<Uint8Array> {
  const file = await storage.open(path);
  try {
    return await file.read(0, await file.size());
  } finally {
    await file.close();
  }
}

export function baseOffsetOf(path: string): number {
  return parseSegmentFileName(path.slice(path.lastIndexOf("/") + 1))?.baseOffset ?? 0;
}

/**
 * The batches recovery would keep (whole, CRC valid, offsets continuing from the base offset)
 * and the first one it would not, as marks; `bytes` is where the valid prefix ends.
 */
export async function validPrefix(
  bytes: Uint8Array,
  baseOffset: number,
): Promise<{ bytes: number; marks: BatchMark[] }> {
  const marks: BatchMark[] = [];
  let expected = baseOffset;
  let validEnd: number | undefined;
  const end = await walkBatches(bytesSource(bytes), (b) => {
    if (validEnd !== undefined) return; // recovery keeps nothing after the first bad batch
    const ok = b.crcValid && b.header.baseOffset === expected;
    if (!ok) validEnd = b.position;
    marks.push({ position: b.position, baseOffset: b.header.baseOffset, valid: ok });
    expected = b.header.lastOffset + 1;
  });
  if (validEnd === undefined && end.reason !== undefined) {
    validEnd = end.position;
    marks.push({ position: end.position, baseOffset: expected, valid: false });
  }
  return { bytes: validEnd ?? bytes.length, marks };
}
