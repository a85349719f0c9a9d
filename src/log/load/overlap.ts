/**
 * The one legitimate overlap of two segments: a `truncateTo` inside a batch was interrupted
 * after it durably wrote the kept records of that batch, re-encoded, as a new segment `next`,
 * and before it cut the old segment `previous` there. The loader finishes that cut, which throws
 * away the old copy of those records. First it checks that the two copies agree wherever both
 * can still be read (the old one may be torn by the half-done cut): a segment that disagrees is
 * not that copy but a stray file, and finishing the cut would replace acknowledged records.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { decodeBatch, type DecodedRecord } from "../../format/api.js";
import { BatchScanner } from "../../segment/batch-scanner.js";
import type { Segment } from "../../segment/segment.js";

export async function checkOverlapAgrees(previous: Segment, next: Segment): Promise<void> {
  const copies = new BatchScanner(next.log, next.size, 0, {
    expectedOffset: next.baseOffset,
    segmentBaseOffset: next.baseOffset,
  });
  let originals: DecodedRecord[] = [];
  let originalsEnd = next.baseOffset; // previous's records below this were read into `originals`
  for (
    let batch = await copies.next();
    batch !== null && batch.header.baseOffset < previous.nextOffset;
    batch = await copies.next()
  ) {
    const copy = await decodeOrUndefined(batch.bytes.slice());
    if (copy === undefined) return; // not decodable: recovery of `next` will deal with it
    for (const record of copy) {
      if (record.offset >= originalsEnd) {
        const read = await readOrUndefined(previous, record.offset);
        if (read === undefined) return; // the old copy is torn from here on: nothing left to compare
        originals = read.records;
        originalsEnd = read.end;
      }
      const original = originals.find((r) => r.offset === record.offset);
      if (original !== undefined && !sameRecord(original, record)) {
        throw new PagelogError(
          `segment ${next.log.path} overlaps ${previous.log.path} and disagrees with it at offset ${record.offset}: it is not the remains of an interrupted truncation`,
          ErrorCode.CORRUPT,
          { path: next.log.path },
        );
      }
    }
  }
}

/** The records of the batch of `segment` holding `offset`, or undefined where it cannot be read. */
async function readOrUndefined(
  segment: Segment,
  offset: number,
): Promise<{ records: DecodedRecord[]; end: number } | undefined> {
  if (offset >= segment.nextOffset) return undefined;
  try {
    const read = await segment.read(offset, 1); // maxBytes 1: exactly one batch
    if (read === null) return undefined;
    const records = await decodeOrUndefined(read.bytes);
    return records === undefined ? undefined : { records, end: read.lastOffset + 1 };
  } catch (err) {
    if (err instanceof PagelogError && err.code === ErrorCode.CORRUPT) return undefined;
    throw err;
  }
}

async function decodeOrUndefined(bytes: Uint8Array): Promise<DecodedRecord[] | undefined> {
  try {
    return (await decodeBatch(bytes, { verifyCrc: false })).records; // the scan checked the CRC
  } catch (err) {
    if (err instanceof PagelogError) return undefined;
    throw err;
  }
}

/** What a mid-batch truncation keeps of a record: key, value, headers, timestamp. */
function sameRecord(a: DecodedRecord, b: DecodedRecord): boolean {
  return (
    a.timestamp === b.timestamp &&
    sameBytes(a.key, b.key) &&
    sameBytes(a.value, b.value) &&
    a.headers.length === b.headers.length &&
    a.headers.every((h, i) => h.key === b.headers[i]!.key && sameBytes(h.value, b.headers[i]!.value))
  );
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
