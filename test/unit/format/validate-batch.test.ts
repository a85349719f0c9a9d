/** validateBatch: every reason recovery's walk can meet, and never a throw or allocation for bad bytes. */
import { describe, expect, test } from "vitest";
import { encodeBatch, validateBatch } from "../../../src/format/api.js";
import { checkedCrcSpy } from "./helpers.js";

const batch = encodeBatch(
  [
    { key: "k1", value: "v1", timestamp: 100, headers: { a: "b" } },
    { key: null, value: "v2", timestamp: 90 },
  ],
  { baseOffset: 10 },
);
const SIZE = batch.length;
const MAX = 1 << 20;

function setLength(bytes: Uint8Array, length: number): Uint8Array {
  const copy = bytes.slice();
  new DataView(copy.buffer).setInt32(8, length);
  return copy;
}

describe("validateBatch", () => {
  test("ok: a whole batch, alone or at a position inside a larger buffer", () => {
    expect(validateBatch(batch, 0, SIZE, { maxBatchBytes: MAX })).toEqual({ ok: true, size: SIZE });
    const three = new Uint8Array(3 * SIZE);
    three.set(batch, 0);
    three.set(batch, SIZE);
    three.set(batch, 2 * SIZE);
    expect(validateBatch(three, SIZE, 2 * SIZE, { maxBatchBytes: MAX })).toEqual({ ok: true, size: SIZE });
    expect(validateBatch(three, 2 * SIZE, SIZE, { maxBatchBytes: SIZE })).toEqual({ ok: true, size: SIZE });
  });

  test("short-header: fewer than 17 bytes (through magic) available", () => {
    for (const available of [0, 1, 12, 16]) {
      expect(validateBatch(batch, 0, available, { maxBatchBytes: MAX })).toMatchObject({
        ok: false,
        reason: "short-header",
      });
      expect(validateBatch(batch.subarray(0, available), 0, SIZE, { maxBatchBytes: MAX })).toMatchObject({
        ok: false,
        reason: "short-header",
      });
    }
    expect(validateBatch(batch, SIZE, 100, { maxBatchBytes: MAX })).toMatchObject({
      ok: false,
      reason: "short-header",
    });
  });

  test("short: truncated by any number of bytes, via `available` or by the buffer's end", () => {
    for (let cut = 1; cut <= SIZE; cut++) {
      const available = SIZE - cut;
      const reason = available < 17 ? "short-header" : "short";
      expect(validateBatch(batch, 0, available, { maxBatchBytes: MAX })).toMatchObject({ ok: false, reason });
      expect(validateBatch(batch.subarray(0, available), 0, SIZE, { maxBatchBytes: MAX })).toMatchObject({
        ok: false,
        reason,
      });
    }
  });

  test("too-small: Length below a header's 49, zero, or negative", () => {
    for (const length of [48, 1, 0, -1, -0x80000000]) {
      expect(validateBatch(setLength(batch, length), 0, SIZE, { maxBatchBytes: MAX })).toMatchObject({
        ok: false,
        reason: "too-small",
      });
    }
  });

  test("too-large: beyond maxBatchBytes (whole batch, 12-byte overhead included)", () => {
    expect(validateBatch(batch, 0, SIZE, { maxBatchBytes: SIZE - 1 })).toMatchObject({
      ok: false,
      reason: "too-large",
    });
    expect(validateBatch(batch, 0, SIZE, { maxBatchBytes: SIZE })).toMatchObject({ ok: true });
  });

  test("a huge Length is rejected by arithmetic: no CRC pass, no allocation", () => {
    const spy = checkedCrcSpy();
    const huge = setLength(batch, 0x7fffffff);
    expect(validateBatch(huge, 0, SIZE, { maxBatchBytes: MAX, crc32c: spy })).toMatchObject({
      ok: false,
      reason: "too-large",
    });
    expect(validateBatch(huge, 0, SIZE, { maxBatchBytes: Number.POSITIVE_INFINITY, crc32c: spy })).toMatchObject({
      ok: false,
      reason: "short",
    });
    expect(
      validateBatch(huge, 0, Number.MAX_SAFE_INTEGER, { maxBatchBytes: Number.POSITIVE_INFINITY, crc32c: spy }),
    ).toMatchObject({ ok: false, reason: "short" });
    expect(spy).not.toHaveBeenCalled();
  });

  test("bad-magic: magic 0, 1 or 3", () => {
    for (const magic of [0, 1, 3]) {
      const copy = batch.slice();
      copy[16] = magic;
      expect(validateBatch(copy, 0, SIZE, { maxBatchBytes: MAX })).toMatchObject({ ok: false, reason: "bad-magic" });
    }
  });

  test("bad-crc: any flipped bit in the CRC field or the CRC-covered range [21, size)", () => {
    for (let i = 17; i < SIZE; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const copy = batch.slice();
        copy[i]! ^= mask;
        expect(validateBatch(copy, 0, SIZE, { maxBatchBytes: MAX }), `byte ${i} ^ ${mask}`).toMatchObject({
          ok: false,
          reason: "bad-crc",
        });
      }
    }
  });

  test("baseOffset and partitionLeaderEpoch are outside the CRC, as in Kafka (the broker rewrites them)", () => {
    const copy = batch.slice();
    copy[7]! ^= 0xff;
    copy[15]! ^= 0xff;
    expect(validateBatch(copy, 0, SIZE, { maxBatchBytes: MAX })).toEqual({ ok: true, size: SIZE });
  });

  test("a zero-filled tail (a power cut's unwritten pages) is too-small, not ok", () => {
    expect(validateBatch(new Uint8Array(4096), 0, 4096, { maxBatchBytes: MAX })).toMatchObject({
      ok: false,
      reason: "too-small",
    });
  });

  test("uses the crc32c override", () => {
    const spy = checkedCrcSpy();
    expect(validateBatch(batch, 0, SIZE, { maxBatchBytes: MAX, crc32c: spy }).ok).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    // One that is not CRC-32C is refused, rather than calling every good batch bad-crc.
    expect(() => validateBatch(batch, 0, SIZE, { maxBatchBytes: MAX, crc32c: () => 0 })).toThrow(
      /options\.crc32c is not CRC-32C/,
    );
  });

  test("programmer mistakes throw: negative position, missing maxBatchBytes", () => {
    expect(() => validateBatch(batch, -1, SIZE, { maxBatchBytes: MAX })).toThrow(RangeError);
    expect(() => validateBatch(batch, 0, SIZE, {} as { maxBatchBytes: number })).toThrow(TypeError);
  });
});
