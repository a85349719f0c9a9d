/**
 * The helpers the course's engine hands to `recover`: reading an int32 and checking a batch's
 * CRC are not what chapter 4 is about, so the reader gets them and writes only the walk.
 *
 * They answer as the course's own helpers do: `crcMatches` is a question about the bytes, so any
 * range a walk can compute from them (a zeroed tail's length 0, a garbage length, negative or
 * huge but still inside the log) gets `false`, never an exception; only a call no walk over this
 * log should make (a range past its end, a position that is not a whole number: a RangeError)
 * throws, because that is a bug in the walk, not a torn tail.
 */
import {
  BATCH_HEADER_SIZE,
  CRC_COVERED_START,
  CRC_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  crc32c,
} from "../../format/index.js";
import type { RecoverHelpers } from "../../policies/policy-types.js";

function readInt32(log: Uint8Array, pos: number): number {
  if (!Number.isInteger(pos) || pos < 0 || pos + 4 > log.length)
    throw new RangeError(`readInt32(log, ${pos}): bytes ${pos}..${pos + 4} are not in the log (${log.length} bytes)`);
  return new DataView(log.buffer, log.byteOffset, log.byteLength).getInt32(pos, false);
}

/** The helpers for `log`: `readInt32` (any log, big-endian) and `crcMatches` (over this log). */
export function recoverHelpers(log: Uint8Array): RecoverHelpers {
  const view = new DataView(log.buffer, log.byteOffset, log.byteLength);
  return {
    readInt32,
    crcMatches(start: number, end: number): boolean {
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > log.length || end > log.length)
        throw new RangeError(
          `crcMatches(${start}, ${end}): not within the log (${log.length} bytes): check that it fits first`,
        );
      // Shorter than a header (zeros read as length 0; a negative length ends before it starts):
      // not a batch, whatever the bytes say.
      if (end - start < BATCH_HEADER_SIZE) return false;
      // A range that is not the batch its own length field describes is not a whole batch either.
      if (view.getInt32(start + LENGTH_OFFSET, false) !== end - start - LOG_OVERHEAD) return false;
      return view.getUint32(start + CRC_OFFSET, false) === crc32c(log.subarray(start + CRC_COVERED_START, end));
    },
  };
}
