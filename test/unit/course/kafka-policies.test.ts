/** pagelog's own answers pass every case of `checkPolicies`, and each agrees with what it adapts. */
import { describe, expect, it } from "vitest";
import { checkPolicies, kafkaPolicies, recoverHelpers } from "../../../src/course.js";
import { POLICY_NAMES } from "../../../src/policies/policy-types.js";
import { retentionDeleteCount as retentionRule } from "../../../src/log/policies/retention.js";
import { writeVarint } from "../../../src/format/varint.js";
import { encodeBatch } from "../../../src/format/api.js";
import { concat } from "../../support/bytes.js";

describe("kafkaPolicies", () => {
  it("passes every case of every policy", () => {
    const result = checkPolicies(kafkaPolicies);
    for (const name of POLICY_NAMES) {
      expect(result[name].given).toBe(true);
      expect(result[name].failed).toEqual([]);
      expect(result[name].passed.length).toBeGreaterThanOrEqual(9);
    }
  });

  it("writeVarint is pagelog's reference writer", () => {
    expect(kafkaPolicies.writeVarint).toBe(writeVarint);
  });

  it("segmentsToDelete is src/log/policies/retention.ts's rule in the course's shape", () => {
    const segments = [
      { baseOffset: 0, sizeBytes: 100, largestTimestamp: 10 },
      { baseOffset: 5, sizeBytes: 300, largestTimestamp: 5000 },
      { baseOffset: 9, sizeBytes: 50, largestTimestamp: 9000 },
    ];
    for (const retentionMs of [-1, 0, 100, 6000])
      for (const retentionBytes of [-1, 0, 50, 350, 450]) {
        const summaries = segments.map((s) => ({
          baseOffset: s.baseOffset,
          size: s.sizeBytes,
          maxTimestamp: s.largestTimestamp,
        }));
        expect(kafkaPolicies.segmentsToDelete(segments, 10_000, { retentionMs, retentionBytes })).toBe(
          retentionRule(summaries, { retentionMs, retentionBytes, now: 10_000 }),
        );
      }
  });

  it("lookup returns the floor entry itself, and null below the first", () => {
    const index = [
      { offset: 4, position: 0 },
      { offset: 9, position: 700 },
    ];
    expect(kafkaPolicies.lookup(index, 3)).toBeNull();
    expect(kafkaPolicies.lookup(index, 8)).toBe(index[0]);
    expect(kafkaPolicies.lookup(index, 9)).toBe(index[1]);
  });
});

describe("recoverHelpers", () => {
  it("readInt32 is big-endian and signed, and refuses bytes outside the log", () => {
    const bytes = Uint8Array.of(0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0);
    const { readInt32 } = recoverHelpers(bytes);
    expect(readInt32(bytes, 0)).toBe(-2);
    expect(readInt32(bytes, 4)).toBe(256);
    expect(readInt32(bytes.subarray(4), 0)).toBe(256);
    expect(() => readInt32(bytes, 5)).toThrow(RangeError);
    expect(() => readInt32(bytes, -1)).toThrow(RangeError);
  });

  it("crcMatches refuses only a range past the end of the log, or a position that is not a whole number", () => {
    const { crcMatches } = recoverHelpers(new Uint8Array(100));
    expect(() => crcMatches(0, 101)).toThrow(/crcMatches\(0, 101\): not within the log \(100 bytes\)/);
    expect(() => crcMatches(-1, 61)).toThrow(RangeError);
    expect(() => crcMatches(101, 101)).toThrow(RangeError);
    expect(() => crcMatches(0.5, 61)).toThrow(RangeError);
    expect(() => crcMatches(0, "61" as never)).toThrow(RangeError);
  });

  it("crcMatches answers false, not an exception, for any range inside the log that is not a whole valid batch", () => {
    const batch = encodeBatch([{ value: "v" }], { baseOffset: 0, timestamp: 1 });
    const log = concat([batch, new Uint8Array(200)]);
    const { crcMatches, readInt32 } = recoverHelpers(log);
    const n = batch.length;
    expect(crcMatches(0, n)).toBe(true);
    // Every other range that starts and ends inside the log, as a walk computes them from
    // whatever its length field says: zeros (length 0), a short or negative length, a wrong end.
    for (let start = 0; start <= log.length; start += 7)
      for (const end of [
        start + 12 + readIntOr0(log, start),
        start,
        start - 50,
        -3,
        start + 20,
        start + 60,
        n,
        log.length,
      ])
        if (end <= log.length && !(start === 0 && end === n))
          expect(crcMatches(start, end), `(${start}, ${end})`).toBe(false);
    expect(readInt32(log, n + 8)).toBe(0);

    // The CRC does not cover the magic byte: a batch with magic 1 still matches (the course's rule).
    const magic1 = batch.slice();
    magic1[16] = 1;
    expect(recoverHelpers(magic1).crcMatches(0, n)).toBe(true);
    // A range whose own length field says otherwise is not that batch.
    const longer = concat([batch, Uint8Array.of(0)]);
    expect(recoverHelpers(longer).crcMatches(0, n + 1)).toBe(false);
  });
});

function readIntOr0(log: Uint8Array, start: number): number {
  return start + 12 <= log.length ? new DataView(log.buffer, log.byteOffset).getInt32(start + 8) : 0;
}
