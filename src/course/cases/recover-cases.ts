/**
 * Chapter 4's cases: `recover(log, helpers)` over segments built with pagelog's `encodeBatch`,
 * whole and damaged the ways a power cut (or a disk) damages them.
 */
import { LENGTH_OFFSET, MAGIC_OFFSET, encodeBatch } from "../../format/index.js";
import type { CoursePolicies, RecoverHelpers } from "../../policies/policy-types.js";
import { recoverHelpers } from "../../segment/policies/recover-helpers.js";
import { loopCaught } from "../loop-guard.js";
import type { PolicyCase } from "./case.js";

type Recover = CoursePolicies["recover"];

/** More helper calls than this on a small log: the walk is not moving forward. */
const MAX_HELPER_CALLS = 100_000;

const TIMESTAMP = 1_700_000_000_000;
const text = (n: number, what: string) => Array.from({ length: n }, (_, i) => ({ value: `${what} ${i}` }));
/** Three batches of 3, 1 and 2 records: offsets 0-2, 3, 4-5. */
const A = encodeBatch(text(3, "order"), { baseOffset: 0, timestamp: TIMESTAMP });
const B = encodeBatch(text(1, "payment"), { baseOffset: 3, timestamp: TIMESTAMP });
const C = encodeBatch(text(2, "refund"), { baseOffset: 4, timestamp: TIMESTAMP });

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A copy of `batch` changed by `edit`. */
function edited(batch: Uint8Array, edit: (bytes: Uint8Array, view: DataView) => void): Uint8Array {
  const copy = batch.slice();
  edit(copy, new DataView(copy.buffer));
  return copy;
}

/** The helpers, counting calls: a walk that never moves forward ends with an error, not a hang. */
function guardedHelpers(log: Uint8Array): RecoverHelpers {
  const helpers = recoverHelpers(log);
  let calls = 0;
  const count = () => {
    if (++calls > MAX_HELPER_CALLS)
      throw loopCaught(
        new Error(
          `called the helpers ${MAX_HELPER_CALLS} times on ${log.length} bytes: does the position move forward after each batch?`,
        ),
      );
  };
  return {
    readInt32: (bytes, pos) => (count(), helpers.readInt32(bytes, pos)),
    crcMatches: (start, end) => (count(), helpers.crcMatches(start, end)),
  };
}

/**
 * `parts` laid end to end; `expected` is the bytes recovery keeps (or, for a case where the
 * course's rule and Kafka's stricter one part ways, each answer either may give). `boundaries`
 * are the ends of whole batches: a result elsewhere is not a batch boundary. `hint` explains an
 * answer past `expected` that is still in range, the usual mistake the case is built for.
 */
function recoverCase(
  name: string,
  parts: Uint8Array[],
  expected: number | readonly number[],
  hint: string,
): PolicyCase<Recover> {
  const log = concat(...parts);
  const boundaries = [0];
  for (const p of parts) boundaries.push(boundaries[boundaries.length - 1]! + p.length);
  const accepted = typeof expected === "number" ? [expected] : expected;
  const want = accepted.join(" or ");
  return {
    name,
    check(recover) {
      const bytes = log.slice(); // a policy that writes into its input cannot spoil the next case
      const got = recover(bytes, guardedHelpers(bytes));
      if (accepted.includes(got)) return undefined;
      if (!Number.isInteger(got) || got < 0 || got > log.length)
        return `expected ${want}, got ${String(got)}: out of range (the log has ${log.length} bytes)`;
      if (!boundaries.includes(got))
        return `expected ${want}, got ${got}: not a batch boundary (batches end at ${boundaries.join(", ")})`;
      return `expected ${want}, got ${got}: ${got > Math.max(...accepted) ? hint : "stops too early: that batch was whole and valid"}`;
    },
  };
}

const a = A.length;
const ab = A.length + B.length;
const cut = C.subarray(0, C.length >> 1);
const flipped = edited(B, (bytes) => {
  bytes[B.length - 4] = bytes[B.length - 4]! ^ 0x40; // inside the record: only the CRC can tell
});
const tooLong = edited(B, (_, view) => view.setInt32(LENGTH_OFFSET, 1_000_000, false));
const magic1 = edited(B, (bytes) => {
  bytes[MAGIC_OFFSET] = 1; // the CRC does not cover the magic byte: only a magic check can tell
});
const stray = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7);
/** What is left of an overwritten batch: a header whose length field is negative. */
const negativeLength = edited(B, (_, view) => view.setInt32(LENGTH_OFFSET, -1_000, false));

export const recoverCases: readonly PolicyCase<Recover>[] = [
  recoverCase("an empty file", [], 0, ""),
  recoverCase("one whole batch", [A], a, ""),
  recoverCase("three whole batches", [A, B, C], ab + C.length, ""),
  recoverCase(
    "the last batch cut in half",
    [A, B, cut],
    ab,
    "keeps a batch that runs past the end of the log: check 12 + length fits first",
  ),
  recoverCase("stray bytes after the last batch", [A, B, stray], ab, "keeps bytes that are not a whole batch"),
  recoverCase(
    "a flipped byte in the second batch's record",
    [A, flipped, C],
    a,
    "trusts the length without checking the CRC: a batch whose crcMatches is false ends the walk",
  ),
  recoverCase(
    "a length field pointing past the end",
    [A, tooLong],
    a,
    "keeps a batch that runs past the end of the log: check 12 + length fits first",
  ),
  recoverCase(
    "a zeroed tail (a page of zeros)",
    [A, B, new Uint8Array(4096)],
    ab,
    "keeps zeros: a length below 49 (a header with no records) is not a batch",
  ),
  recoverCase(
    "a negative length field after the last batch",
    [A, B, negativeLength],
    ab,
    "keeps a batch whose length is negative: a batch takes 12 + length bytes, and length is at least 49",
  ),
  // The course's rule is length and CRC; Kafka's LogSegment.recover also stops at a magic other
  // than 2. Either answer passes, and the Log cuts a kept one where its own walk does.
  recoverCase(
    "a CRC-valid batch with magic 1 (the course's rule keeps it; Kafka's magic check stops at it: either passes)",
    [A, magic1, C],
    [a, ab + C.length],
    "",
  ),
];
