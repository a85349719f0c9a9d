/**
 * Chapter 4's cases: `recover(log, helpers)` over segments built with pagelog's `encodeBatch`,
 * whole and damaged the ways a power cut (or a disk) damages them.
 */
import { BATCH_HEADER_SIZE, LENGTH_OFFSET, MAGIC_OFFSET, encodeBatch } from "../../format/api.js";
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

/** What a walk asked the helpers: where it read int32s, and the CRC answers it got. */
interface Trace {
  readonly reads: number[];
  readonly crcs: Array<{ readonly start: number; readonly end: number; readonly matches: boolean }>;
}

/**
 * The helpers, counting calls (a walk that never moves forward ends with an error, not a hang)
 * and recording them in `trace`, so a hint can say what the walk did rather than guess.
 */
function guardedHelpers(log: Uint8Array, trace: Trace): RecoverHelpers {
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
    readInt32: (bytes, pos) => (count(), trace.reads.push(pos), helpers.readInt32(bytes, pos)),
    crcMatches(start, end) {
      count();
      const matches = helpers.crcMatches(start, end);
      trace.crcs.push({ start, end, matches });
      return matches;
    },
  };
}

/**
 * Why an answer below the expected one stopped early, from what the walk asked: it read the
 * length somewhere other than byte 8 of a batch; it found the batch at its answer valid and cut
 * it anyway; or it stopped before a last batch that ends exactly at the end of the log.
 */
function tooEarlyHint(got: number, starts: readonly number[], size: number, trace: Trace): string {
  for (const pos of trace.reads) {
    const start = Math.max(...starts.filter((b) => b <= pos));
    if (pos - start < LENGTH_OFFSET || (pos - start > LENGTH_OFFSET && pos - start < BATCH_HEADER_SIZE))
      return `read the length at byte ${pos - start} of the batch at ${start} (readInt32(log, ${pos})): a v2 batch starts with its int64 baseOffset; its length is the int32 at byte ${LENGTH_OFFSET} (readInt32(log, pos + ${LENGTH_OFFSET})), and the batch takes 12 + length bytes`;
  }
  const next = starts.find((b) => b > got);
  if (trace.crcs.some((c) => c.start === got && c.matches))
    return `crcMatches(${got}, ${next}) said the batch at ${got} is whole and valid, and recover cut it anyway: return where the last valid batch ends, not where it starts`;
  if (next === size)
    return `stops before the batch at ${got}, which ends exactly at the end of the log (${size}): it fits; a batch runs past the end only when pos + 12 + length > log.length`;
  return "stops too early: that batch was whole and valid";
}

/** Why an answer past the expected one kept too much: the walk stepped over a batch crcMatches refused, or the case's hint. */
function tooFarHint(got: number, trace: Trace, hint: string): string {
  const bad = trace.crcs.find((c) => !c.matches && c.start < got && c.end <= got);
  if (bad === undefined) return hint;
  return `goes on past a batch whose crcMatches(${bad.start}, ${bad.end}) is false: the walk ends at the first bad batch, since where the next one starts comes from the bad one's length`;
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
      const trace: Trace = { reads: [], crcs: [] };
      const got = recover(bytes, guardedHelpers(bytes, trace));
      if (accepted.includes(got)) return undefined;
      if (!Number.isInteger(got) || got < 0 || got > log.length)
        return `expected ${want}, got ${String(got)}: out of range (the log has ${log.length} bytes)`;
      if (!boundaries.includes(got))
        return `expected ${want}, got ${got}: not a batch boundary (batches end at ${boundaries.join(", ")})`;
      return `expected ${want}, got ${got}: ${got > Math.max(...accepted) ? tooFarHint(got, trace, hint) : tooEarlyHint(got, boundaries, log.length, trace)}`;
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
