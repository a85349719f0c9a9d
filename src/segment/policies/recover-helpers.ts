/**
 * The helpers the course's engine hands to `recover`: reading an int32 and checking a batch's
 * CRC are not what chapter 4 is about, so the reader gets them and writes only the walk.
 */
import { CRC_COVERED_START, CRC_OFFSET, crc32c } from "../../format/index.js";
import type { RecoverHelpers } from "./policy-types.js";

function readInt32(log: Uint8Array, pos: number): number {
  if (!Number.isInteger(pos) || pos < 0 || pos + 4 > log.length)
    throw new RangeError(
      `readInt32(log, ${pos}): bytes ${pos}..${pos + 4} are not all in the log (${log.length} bytes)`,
    );
  return new DataView(log.buffer, log.byteOffset, log.byteLength).getInt32(pos, false);
}

/** The helpers for `log`: `readInt32` (any log, big-endian) and `crcMatches` (over this log). */
export function recoverHelpers(log: Uint8Array): RecoverHelpers {
  const view = new DataView(log.buffer, log.byteOffset, log.byteLength);
  return {
    readInt32,
    crcMatches(start: number, end: number): boolean {
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > log.length)
        throw new RangeError(
          `crcMatches(${start}, ${end}): the batch is not within the log (${log.length} bytes): check that it fits first`,
        );
      if (end < start + CRC_COVERED_START)
        throw new RangeError(
          `crcMatches(${start}, ${end}): ${end - start} bytes cannot hold a batch header (a batch is 12 + length bytes, length >= 49)`,
        );
      return view.getUint32(start + CRC_OFFSET, false) === crc32c(log.subarray(start + CRC_COVERED_START, end));
    },
  };
}
