/**
 * Decoding is strict: any inconsistency inside a batch whose CRC matches (a buggy writer, not a
 * torn write) is PAGELOG_CORRUPT, never garbage records. Each case edits the records section of a
 * known batch by hand, fixes up Length and CRC, and decodes.
 */
import { describe, expect, test } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import {
  crc32c,
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  encodeBatchAsync,
  readBatchHeader,
} from "../../../src/format/api.js";
import { checkedCrcSpy, expectCode, expectCodeAsync, hex } from "./helpers.js";

/** A 61-byte header (baseOffset 0, count and lastOffsetDelta given) + `records`, Length and CRC fixed. */
function batchWith(records: Uint8Array, count: number): Uint8Array {
  const header = encodeBatch([{ value: null, timestamp: 0 }], { baseOffset: 0 }).subarray(0, 61);
  const bytes = new Uint8Array(61 + records.length);
  bytes.set(header);
  bytes.set(records, 61);
  const view = new DataView(bytes.buffer);
  view.setInt32(8, bytes.length - 12);
  view.setInt32(23, Math.max(0, count - 1));
  view.setInt32(57, count);
  view.setUint32(17, crc32c(bytes.subarray(21)));
  return bytes;
}

// A valid record: length 7, attrs 0, tsDelta 0, offsetDelta 0, key null, value "a", no headers.
const GOOD = "0e 00 00 00 01 02 61 00";

describe("decode strictness", () => {
  test("the hand-built good record decodes (the baseline for the cases below)", () => {
    expect(decodeBatchSync(batchWith(hex(GOOD), 1)).records).toHaveLength(1);
    expect(
      decodeBatchSync(batchWith(hex(GOOD + GOOD.replace("00 00 01", "00 02 01")), 2)).records.map((r) => r.offset),
    ).toEqual([0, 1]);
  });

  test.each([
    ["record length longer than its fields", "10 00 00 00 01 02 61 00 00", 1],
    ["record length shorter than its fields", "0c 00 00 00 01 02 61 00", 1],
    ["record length past the batch end", "7e 00 00 00 01 02 61 00", 1],
    ["record length below the minimum body", "0a 00 00 00 01 02", 1],
    ["negative record length", "01 00 00 00 01 02 61 00", 1],
    ["records count larger than the records", GOOD, 2],
    ["records count smaller than the records (bytes left over)", GOOD + GOOD, 1],
    ["negative records count", GOOD, -1],
    ["trailing byte after the last record", GOOD + "00", 1],
    ["truncated varint: value length continues past the record", "0e 00 00 00 01 82 61 00", 1],
    ["overlong timestampDelta varlong", "1e 00 ffffffffffffffffff81 00 01 02 61 00", 1],
    ["key length -2", "0e 00 00 00 03 02 61 00", 1],
    ["value length past the record", "0e 00 00 00 01 06 61 00", 1],
    ["negative header count", "0e 00 00 00 01 02 61 01", 1],
    ["header with a null key", "14 00 00 00 01 02 61 02 01 02 78", 1],
    ["header value past the record", "16 00 00 00 01 02 61 02 02 68 04 78", 1],
    ["empty records section with count 1", "", 1],
  ] as const)("%s → PAGELOG_CORRUPT", async (_name, records, count) => {
    const bytes = batchWith(hex(records), count);
    expectCode(() => decodeBatchSync(bytes), ErrorCode.CORRUPT);
    await expectCodeAsync(decodeBatch(bytes), ErrorCode.CORRUPT);
  });

  test("an empty batch (count 0, as compaction can leave) decodes to no records", () => {
    expect(decodeBatchSync(batchWith(new Uint8Array(0), 0)).records).toEqual([]);
  });

  const good = encodeBatch([{ key: "k", value: "v", timestamp: 1 }], { baseOffset: 3 });

  test("bad CRC, short batch, wrong magic → PAGELOG_CORRUPT", () => {
    const flipped = good.slice();
    flipped[good.length - 1]! ^= 1;
    expectCode(() => decodeBatchSync(flipped), ErrorCode.CORRUPT);
    expectCode(() => decodeBatchSync(good.subarray(0, good.length - 1)), ErrorCode.CORRUPT);
    expectCode(() => decodeBatchSync(good.subarray(0, 30)), ErrorCode.CORRUPT);
    const magic = good.slice();
    magic[16] = 1;
    expectCode(() => decodeBatchSync(magic), ErrorCode.CORRUPT);
  });

  test("verifyCrc: false skips the CRC (the caller validated already)", () => {
    const spy = checkedCrcSpy();
    expect(decodeBatchSync(good, { verifyCrc: false, crc32c: spy }).records).toHaveLength(1);
    expect(spy).not.toHaveBeenCalled();
  });

  test("bytes after the batch are ignored", () => {
    const two = new Uint8Array(good.length * 2);
    two.set(good);
    two.set(good, good.length);
    expect(decodeBatchSync(two).sizeInBytes).toBe(good.length);
  });

  test("readBatchHeader: baseOffset beyond Number.MAX_SAFE_INTEGER is PAGELOG_CORRUPT", () => {
    const copy = good.slice();
    new DataView(copy.buffer).setBigInt64(0, 2n ** 53n);
    expectCode(() => readBatchHeader(copy), ErrorCode.CORRUPT);
    new DataView(copy.buffer).setBigInt64(0, 2n ** 53n - 1n);
    expect(readBatchHeader(copy).baseOffset).toBe(2 ** 53 - 1);
  });

  test("gzip: a zip bomb stops at maxDecompressedBytes with PAGELOG_RECORD_TOO_LARGE", async () => {
    const bytes = await encodeBatchAsync([{ value: new Uint8Array(4 << 20), timestamp: 0 }], {
      baseOffset: 0,
      compression: "gzip",
    });
    expect(bytes.length).toBeLessThan(10_000);
    await expectCodeAsync(decodeBatch(bytes, { maxDecompressedBytes: 1 << 20 }), ErrorCode.RECORD_TOO_LARGE);
    expect((await decodeBatch(bytes)).records[0]!.value!.length).toBe(4 << 20);
  });

  test("gzip: damaged compressed bytes under a valid CRC are PAGELOG_CORRUPT", async () => {
    const bytes = await encodeBatchAsync([{ value: "hello hello hello", timestamp: 0 }], {
      baseOffset: 0,
      compression: "gzip",
    });
    const copy = bytes.slice();
    copy[61 + 12]! ^= 0xff; // inside the deflate stream
    new DataView(copy.buffer).setUint32(17, crc32c(copy.subarray(21)));
    await expectCodeAsync(decodeBatch(copy), ErrorCode.CORRUPT);
  });
});

describe("encode arguments", () => {
  test("programmer mistakes are TypeError/RangeError naming the argument", () => {
    expect(() => encodeBatch([], { baseOffset: 0 })).toThrow(RangeError);
    expect(() => encodeBatch([{ value: "a" }], { baseOffset: -1 })).toThrow(/baseOffset/);
    expect(() => encodeBatch([{ value: "a" }], { baseOffset: 1.5 })).toThrow(/baseOffset/);
    expect(() => encodeBatch([{ value: 5 as unknown as string }], { baseOffset: 0 })).toThrow(/records\[0\]\.value/);
    expect(() => encodeBatch([{ value: undefined as unknown as string }], { baseOffset: 0 })).toThrow(
      /records\[0\]\.value/,
    );
    expect(() =>
      encodeBatch([{ value: "a", headers: [{ key: 1 as unknown as string, value: null }] }], { baseOffset: 0 }),
    ).toThrow(/headers\[0\]\.key/);
    expect(() => encodeBatch([{ value: "a", timestamp: 0.5 }], { baseOffset: 0 })).toThrow(/timestamp/);
    expect(() =>
      encodeBatch(
        [
          { value: "a", timestamp: 2 ** 53 - 1 },
          { value: "b", timestamp: -(2 ** 53 - 1) },
        ],
        { baseOffset: 0 },
      ),
    ).toThrow(RangeError);
    expect(() => encodeBatch([{ value: "a" }], { baseOffset: 0, producerEpoch: 0x8000 })).toThrow(/producerEpoch/);
  });

  test("maxBatchBytes: PAGELOG_RECORD_TOO_LARGE before allocating", () => {
    expectCode(
      () => encodeBatch([{ value: new Uint8Array(100) }], { baseOffset: 0, maxBatchBytes: 100 }),
      ErrorCode.RECORD_TOO_LARGE,
    );
    expect(
      encodeBatch([{ value: new Uint8Array(100) }], { baseOffset: 0, maxBatchBytes: 200 }).length,
    ).toBeLessThanOrEqual(200);
  });

  test("uses the crc32c override, once it passed the CRC-32C check", () => {
    const spy = checkedCrcSpy();
    const bytes = encodeBatch([{ value: "a" }], { baseOffset: 0, crc32c: spy });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(readBatchHeader(bytes).crc).toBe(spy.mock.results[0]!.value);
    // One that is not CRC-32C (it would plant a checksum no reader accepts) is refused.
    expect(() => encodeBatch([{ value: "a" }], { baseOffset: 0, crc32c: () => 0xdeadbeef })).toThrow(
      /options\.crc32c is not CRC-32C/,
    );
  });
});

describe("header keys and offset deltas", () => {
  test("a header key that is not UTF-8 is PAGELOG_CORRUPT, never U+FFFD", () => {
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80]]) {
      const good = encodeBatch(
        [{ value: null, timestamp: 0, headers: [{ key: "k".repeat(bad.length), value: null }] }],
        { baseOffset: 0 },
      );
      const at = good.lastIndexOf(0x6b) - bad.length + 1; // the key's bytes
      const bytes = good.slice();
      bytes.set(bad, at);
      new DataView(bytes.buffer).setUint32(17, crc32c(bytes.subarray(21)));
      expectCode(() => decodeBatchSync(bytes), ErrorCode.CORRUPT);
    }
  });

  test("offset deltas must increase within 0..lastOffsetDelta", () => {
    // Two records with null key and value: length 6, attributes 0, timestampDelta 0, then the delta.
    const record = (delta: number) => [0x0c, 0, 0, delta * 2, 1, 1, 0];
    for (const [deltas, ok] of [
      [[0, 1], true],
      [[1, 0], false],
      [[0, 0], false],
      [[0, 2], false],
    ] as const) {
      const bytes = batchWith(new Uint8Array(deltas.flatMap(record)), 2);
      if (ok) expect(decodeBatchSync(bytes).records.map((r) => r.offset)).toEqual([0, 1]);
      else expectCode(() => decodeBatchSync(bytes), ErrorCode.CORRUPT);
    }
  });
});
