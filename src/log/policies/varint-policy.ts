/**
 * Chapter 1's `writeVarint` in the real write path. pagelog encodes the batch with its fast
 * writer, then asks the reader's function for every varint the records hold (lengths, deltas,
 * counts) and requires the very bytes that are in the batch: the varint form is unique (zigzag,
 * 7 bits per byte, low first, shortest), so any other answer is one a Kafka reader would misread,
 * and the append fails with PAGELOG_POLICY before a byte is written. What reaches the disk is
 * byte for byte what the reader's function produced.
 */
import { type CoursePolicies } from "../../segment/policies/policy-types.js";
import { callPolicy, policyError, shown } from "../../segment/policies/policy-error.js";
import {
  ATTRIBUTES_OFFSET,
  COMPRESSION_CODEC_MASK,
  decodeVarlong,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
} from "../../format/index.js";

export type VarintPolicy = CoursePolicies["writeVarint"];

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

function hex(bytes: ArrayLike<number>): string {
  return `[${Array.from(bytes, (b) => `0x${b.toString(16).padStart(2, "0")}`).join(", ")}]`;
}

/** What Kafka's reader makes of `bytes`, for the error message. */
function readBack(bytes: readonly number[]): string {
  try {
    const { value, position } = decodeVarlong(Uint8Array.from(bytes), 0);
    return position === bytes.length ? `reads back as ${value}` : `reads back as ${value} followed by stray bytes`;
  } catch {
    return "is not a complete varint";
  }
}

/** Checks one varint of the batch against the policy's bytes for its value. */
function checkOne(policy: VarintPolicy, batch: Uint8Array, at: number, value: number, end: number): void {
  // The course's writeVarint takes an int32; a varlong beyond it (a timestamp delta of 25 days
  // within one batch) is pagelog's to write.
  if (value < INT32_MIN || value > INT32_MAX) return;
  const answer: unknown = callPolicy("writeVarint", () => policy(value));
  const expected = batch.subarray(at, end);
  const valid =
    Array.isArray(answer) &&
    answer.length === expected.length &&
    answer.every((b, i) => Number.isInteger(b) && b === expected[i]);
  if (valid) return;
  const bytesOk =
    Array.isArray(answer) && answer.length > 0 && answer.every((b) => Number.isInteger(b) && b >= 0 && b <= 255);
  const why = bytesOk
    ? `writeVarint(${value}) returned ${hex(answer as number[])}, which ${readBack(answer as number[])}; Kafka's varint of ${value} is ${hex(expected)} (zigzag, then 7 bits per byte, low bits first, the high bit set on every byte but the last)`
    : `writeVarint(${value}) returned ${shown(answer)}: expected an array of bytes (integers 0-255), ${hex(expected)} for ${value}`;
  throw policyError({ policy: "writeVarint", why: `is wrong: ${why}`, returned: answer });
}

/**
 * Walks every varint of the records of `batch` (uncompressed: pagelog's appends never compress)
 * and checks the policy's bytes for each. Throws PAGELOG_POLICY at the first difference.
 */
export function checkVarints(policy: VarintPolicy, batch: Uint8Array): void {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  if ((view.getInt16(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK) !== 0) return;
  const count = view.getInt32(RECORDS_COUNT_OFFSET);
  let p = RECORDS_OFFSET;
  const next = (): number => {
    const { value, position } = decodeVarlong(batch, p);
    checkOne(policy, batch, p, value, position);
    p = position;
    return value;
  };
  const skip = (length: number) => {
    if (length > 0) p += length;
  };
  for (let i = 0; i < count; i++) {
    next(); // record length
    p++; // attributes
    next(); // timestamp delta
    next(); // offset delta
    skip(next()); // key
    skip(next()); // value
    const headers = next();
    for (let h = 0; h < headers; h++) {
      skip(next()); // header key
      skip(next()); // header value
    }
  }
}
