/**
 * Chapter 1's `writeVarint` in the real write path. pagelog encodes the batch with its fast
 * writer, then asks the reader's function for every varint the records hold (lengths, deltas,
 * counts) and requires the very bytes that are in the batch: the varint form is unique (zigzag,
 * 7 bits per byte, low first, shortest), so any other answer is one a Kafka reader would misread,
 * and the append fails with PAGELOG_POLICY before a byte is written. What reaches the disk is
 * byte for byte what the reader's function produced. Part of the course's hooks (policy-hooks.ts),
 * which a log with a reader's writeVarint loads at open.
 */
import { type CoursePolicies } from "../../policies/policy-types.js";
import { callPolicy, policyError, shown } from "./policy-error.js";
import {
  ATTRIBUTES_OFFSET,
  COMPRESSION_CODEC_MASK,
  decodeVarlong,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
} from "../../format/index.js";

type VarintPolicy = CoursePolicies["writeVarint"];

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

/** Checks one varint of the batch against the policy's bytes for its value. */
function checkOne(policy: VarintPolicy, batch: Uint8Array, at: number, value: number, end: number): void {
  // The course's writeVarint takes an int32; a varlong beyond it (a timestamp delta of 25 days
  // within one batch) is pagelog's to write.
  if (value < INT32_MIN || value > INT32_MAX) return;
  const answer: unknown = callPolicy("writeVarint", () => policy(value));
  const expected = [...batch.subarray(at, end)];
  // number[] as the course has it; a Uint8Array is taken too, as `pagelog check` takes it.
  const got: unknown[] | undefined =
    answer instanceof Uint8Array ? [...answer] : Array.isArray(answer) ? answer : undefined;
  if (got?.length === expected.length && got.every((b, i) => b === expected[i])) return;
  let readBack = "";
  try {
    // What a Kafka reader makes of the bytes: the usual mistake (no zigzag) shows at once.
    if (got?.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) < 256))
      readBack = `, which reads back as ${decodeVarlong(Uint8Array.from(got as number[]), 0).value}`;
  } catch {
    readBack = ", which is not a whole varint";
  }
  throw policyError({
    policy: "writeVarint",
    why: `is wrong: writeVarint(${value}) returned ${shown(got ?? answer)}${readBack}; Kafka's bytes are ${shown(expected)} (zigzag, then 7 bits per byte, low first)`,
    returned: answer,
  });
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
