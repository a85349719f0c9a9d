/** pagelog's own answers pass every case of `checkPolicies`, and each agrees with what it adapts. */
import { describe, expect, it } from "vitest";
import { checkPolicies, kafkaPolicies, recoverHelpers } from "../../../src/course.js";
import { POLICY_NAMES } from "../../../src/segment/policies/policy-types.js";
import { segmentsToDelete as retentionRule } from "../../../src/log/retention.js";
import { writeVarint } from "../../../src/format/varint.js";

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

  it("segmentsToDelete is src/log/retention.ts's rule in the course's shape", () => {
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

  it("crcMatches refuses a range outside the log or too short for a header", () => {
    const { crcMatches } = recoverHelpers(new Uint8Array(100));
    expect(() => crcMatches(0, 101)).toThrow(/not within the log/);
    expect(() => crcMatches(0, 20)).toThrow(/cannot hold a batch header/);
    expect(crcMatches(0, 61)).toBe(false); // stored CRC 0, CRC-32C of 40 zeros is not 0
  });
});
