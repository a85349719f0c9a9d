import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fastCheckParams } from "../../support/seed.js";
import { ErrorCode } from "../../../src/errors.js";
import {
  decodeVarint,
  decodeVarlong,
  decodeVarlongBigInt,
  encodeVarint,
  encodeVarlong,
  varintSize,
  varlongSize,
  varlongSizeBigInt,
  writeVarint,
  writeVarlongBigInt,
} from "../../../src/format/index.js";
import { expectCode, hex, toHex } from "./helpers.js";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** [value, zigzag varint bytes], derived by hand: zigzag then 7-bit groups, low group first. */
const VARINTS: Array<[number, string]> = [
  [0, "00"],
  [-1, "01"], // zigzag 1
  [1, "02"], // zigzag 2
  [-2, "03"],
  [63, "7e"], // zigzag 126
  [-64, "7f"], // zigzag 127: the largest one-byte value
  [64, "8001"], // zigzag 128 = 0b1_0000000
  [300, "d804"], // zigzag 600 = 0x258: low 7 bits 0x58 | 0x80, then 4
  [INT32_MAX, "feffffff0f"], // zigzag 2^32 - 2
  [INT32_MIN, "ffffffff0f"], // zigzag 2^32 - 1
];

describe("varint (int32)", () => {
  test.each(VARINTS)("encodes %d as %s and back", (value, bytes) => {
    expect(toHex(encodeVarint(value))).toBe(bytes);
    expect(varintSize(value)).toBe(bytes.length / 2);
    expect(decodeVarint(hex(bytes), 0)).toEqual({ value, position: bytes.length / 2 });
    expect(writeVarint(value)).toEqual(Array.from(hex(bytes)));
  });

  test("decodes at a position and reports the position after", () => {
    expect(decodeVarint(hex("aa bb d804 cc"), 2)).toEqual({ value: 300, position: 4 });
  });

  test("rejects an empty or truncated varint", () => {
    expectCode(() => decodeVarint(new Uint8Array(0), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarint(hex("80"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarint(hex("ffffffff"), 0), ErrorCode.CORRUPT);
    // truncated by `end`, though the array holds more
    expectCode(() => decodeVarint(hex("d804"), 0, 1), ErrorCode.CORRUPT);
  });

  test("rejects overlong varints: a 6th byte, or bits beyond 32 in the 5th", () => {
    expectCode(() => decodeVarint(hex("ffffffff8f01"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarint(hex("8080808080 00"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarint(hex("ffffffff1f"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarint(hex("8080808010"), 0), ErrorCode.CORRUPT);
  });

  test("accepts a padded (non-minimal) encoding within 5 bytes, as Kafka does", () => {
    expect(decodeVarint(hex("8000"), 0)).toEqual({ value: 0, position: 2 });
    expect(decodeVarint(hex("8180808000"), 0)).toEqual({ value: -1, position: 5 });
  });

  test("round-trips every int32 and agrees with the course's writeVarint", () => {
    fc.assert(
      fc.property(fc.integer({ min: INT32_MIN, max: INT32_MAX }), (value) => {
        const bytes = encodeVarint(value);
        expect(Array.from(bytes)).toEqual(writeVarint(value));
        expect(bytes.length).toBe(varintSize(value));
        expect(decodeVarint(bytes, 0)).toEqual({ value, position: bytes.length });
      }),
      { ...fastCheckParams(), numRuns: 2000 },
    );
  });

  test("encodeVarint refuses non-int32 arguments", () => {
    expect(() => encodeVarint(INT32_MAX + 1)).toThrow(RangeError);
    expect(() => encodeVarint(1.5)).toThrow(RangeError);
  });
});

describe("varlong (int64)", () => {
  const VARLONGS: Array<[bigint, string]> = [
    [0n, "00"],
    [-1n, "01"],
    [2n ** 31n, "8080808010"], // zigzag 2^32: just past the int32 range
    [-(2n ** 31n) - 1n, "8180808010"], // zigzag 2^32 + 1
    [2n ** 53n - 1n, "feffffffffffff1f"], // zigzag 2^54 - 2: 54 bits = 7 full groups + 5 bits (0x1f)
    [-(2n ** 53n) + 1n, "fdffffffffffff1f"], // zigzag 2^54 - 3
    [INT64_MAX, "feffffffffffffffff01"], // zigzag 2^64 - 2: 10 bytes
    [INT64_MIN, "ffffffffffffffffff01"], // zigzag 2^64 - 1
  ];

  test.each(VARLONGS)("encodes %d as %s and back (bigint)", (value, bytes) => {
    const out = new Uint8Array(10);
    const end = writeVarlongBigInt(out, 0, value);
    expect(toHex(out.subarray(0, end))).toBe(bytes);
    expect(varlongSizeBigInt(value)).toBe(bytes.length / 2);
    expect(decodeVarlongBigInt(hex(bytes), 0)).toEqual({ value, position: bytes.length / 2 });
  });

  test.each(VARLONGS.filter(([v]) => v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)))(
    "encodes safe integer %d as %s and back (number)",
    (value, bytes) => {
      const n = Number(value);
      expect(toHex(encodeVarlong(n))).toBe(bytes);
      expect(varlongSize(n)).toBe(bytes.length / 2);
      expect(decodeVarlong(hex(bytes), 0)).toEqual({ value: n, position: bytes.length / 2 });
      expect(writeVarint(n)).toEqual(Array.from(hex(bytes)));
    },
  );

  test("the number reader refuses values beyond ±(2^53 - 1) rather than rounding them", () => {
    for (const value of [2n ** 53n, -(2n ** 53n), INT64_MAX, INT64_MIN]) {
      const out = new Uint8Array(10);
      const end = writeVarlongBigInt(out, 0, value);
      expectCode(() => decodeVarlong(out.subarray(0, end), 0), ErrorCode.CORRUPT);
      expect(decodeVarlongBigInt(out.subarray(0, end), 0).value).toBe(value);
    }
  });

  test("rejects overlong varlongs: an 11th byte, or bits beyond 64 in the 10th", () => {
    expectCode(() => decodeVarlong(hex("ffffffffffffffffff81 01"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarlongBigInt(hex("ffffffffffffffffff02"), 0), ErrorCode.CORRUPT);
    expectCode(() => decodeVarlong(hex("ffffffffff"), 0), ErrorCode.CORRUPT);
  });

  test("round-trips every safe integer; agrees with the bigint writer and with writeVarint", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: INT32_MIN, max: INT32_MAX }),
          fc.maxSafeInteger(),
          fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 32, -(2 ** 32)),
        ),
        (value) => {
          const bytes = encodeVarlong(value);
          const big = new Uint8Array(10);
          expect(toHex(bytes)).toBe(toHex(big.subarray(0, writeVarlongBigInt(big, 0, BigInt(value)))));
          expect(Array.from(bytes)).toEqual(writeVarint(value));
          expect(bytes.length).toBe(varlongSize(value));
          expect(decodeVarlong(bytes, 0)).toEqual({ value, position: bytes.length });
        },
      ),
      { ...fastCheckParams(), numRuns: 2000 },
    );
  });

  test("round-trips every int64 through the bigint path", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (value) => {
        const out = new Uint8Array(10);
        const end = writeVarlongBigInt(out, 0, value);
        expect(end).toBe(varlongSizeBigInt(value));
        expect(decodeVarlongBigInt(out, 0)).toEqual({ value, position: end });
      }),
      { ...fastCheckParams(), numRuns: 2000 },
    );
  });

  test("writeVarint (the course's shape) refuses non-safe integers", () => {
    expect(() => writeVarint(2 ** 53)).toThrow(RangeError);
    expect(() => writeVarint(0.5)).toThrow(RangeError);
    expect(() => writeVarlongBigInt(new Uint8Array(10), 0, 2n ** 63n)).toThrow(RangeError);
  });
});
