/**
 * Batches whose bytes were derived by hand from the format table (docs/format.md, batch-layout.ts),
 * field by field. Only the CRC is computed, by the CRC-32C function, which is itself checked
 * against the standard check value first.
 */
import { describe, expect, test } from "vitest";
import { crc32c, decodeBatchSync, encodeBatch, readBatchHeader, validateBatch } from "../../../src/format/api.js";
import { hex, toHex, utf8 } from "./helpers.js";

/** Fills the CRC field (bytes 17-20) of a hand-written batch whose CRC is written as 00000000. */
function sealed(bytes: Uint8Array): Uint8Array {
  expect(crc32c(utf8("123456789"))).toBe(0xe3069283);
  const crc = crc32c(bytes.subarray(21));
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(17, crc);
  return bytes;
}

describe("golden batches derived by hand", () => {
  test("one record: null key, value 'a', timestamp 1000, all defaults", () => {
    const expected = sealed(
      hex(`
        0000000000000000  # baseOffset 0
        00000039          # length 57 = 69 - 12
        ffffffff          # partitionLeaderEpoch -1
        02                # magic
        00000000          # crc (filled in)
        0000              # attributes: none, CreateTime
        00000000          # lastOffsetDelta 0
        00000000000003e8  # baseTimestamp 1000
        00000000000003e8  # maxTimestamp 1000
        ffffffffffffffff  # producerId -1
        ffff              # producerEpoch -1
        ffffffff          # baseSequence -1
        00000001          # recordsCount 1
        0e                # record length 7 (zigzag 14)
        00                #   attributes
        00                #   timestampDelta 0
        00                #   offsetDelta 0
        01                #   keyLength -1 (null)
        02 61             #   valueLength 1, "a"
        00                #   headerCount 0
      `),
    );
    expect(expected.length).toBe(69);
    const actual = encodeBatch([{ value: "a", timestamp: 1000 }], { baseOffset: 0 });
    expect(toHex(actual)).toBe(toHex(expected));
    expect(validateBatch(expected, 0, expected.length, { maxBatchBytes: 1000 })).toEqual({ ok: true, size: 69 });
    const decoded = decodeBatchSync(expected);
    expect(decoded.records).toEqual([{ offset: 0, timestamp: 1000, key: null, value: utf8("a"), headers: [] }]);
  });

  test("three records: negative timestamp delta, duplicate and null headers, unicode key, empty value", () => {
    const expected = sealed(
      hex(`
        0000000000000005  # baseOffset 5
        00000053          # length 83 = 95 - 12
        00000007          # partitionLeaderEpoch 7
        02                # magic
        00000000          # crc (filled in)
        0000              # attributes
        00000002          # lastOffsetDelta 2
        00000000000007d0  # baseTimestamp 2000 (the first record's)
        00000000000008fc  # maxTimestamp 2300
        000000000000002a  # producerId 42
        0001              # producerEpoch 1
        0000000a          # baseSequence 10
        00000003          # recordsCount 3
        # record 0: key "k", value "v1", timestamp 2000
        12                # length 9
        00 00 00          #   attributes, timestampDelta 0, offsetDelta 0
        02 6b             #   key length 1, "k"
        04 7631           #   value length 2, "v1"
        00                #   headerCount 0
        # record 1: null key, null value, timestamp 1990, headers h=x, h=null
        1a                # length 13
        00                #   attributes
        13                #   timestampDelta -10 (zigzag 19)
        02                #   offsetDelta 1
        01 01             #   key null, value null
        04                #   headerCount 2
        02 68 02 78       #   "h" = "x"
        02 68 01          #   "h" = null
        # record 2: key "é" (c3 a9), empty value, timestamp 2300
        12                # length 9
        00                #   attributes
        d804              #   timestampDelta 300 (zigzag 600 = 0x258)
        04                #   offsetDelta 2
        04 c3a9           #   key length 2, "é"
        00                #   value length 0
        00                #   headerCount 0
      `),
    );
    expect(expected.length).toBe(95);
    const actual = encodeBatch(
      [
        { key: "k", value: "v1", timestamp: 2000 },
        {
          key: null,
          value: null,
          timestamp: 1990,
          headers: [
            { key: "h", value: "x" },
            { key: "h", value: null },
          ],
        },
        { key: "é", value: new Uint8Array(0), timestamp: 2300, headers: {} },
      ],
      { baseOffset: 5, partitionLeaderEpoch: 7, producerId: 42, producerEpoch: 1, baseSequence: 10 },
    );
    expect(toHex(actual)).toBe(toHex(expected));

    const decoded = decodeBatchSync(expected);
    expect(decoded.lastOffset).toBe(7);
    expect(decoded.records).toEqual([
      { offset: 5, timestamp: 2000, key: utf8("k"), value: utf8("v1"), headers: [] },
      {
        offset: 6,
        timestamp: 1990,
        key: null,
        value: null,
        headers: [
          { key: "h", value: utf8("x") },
          { key: "h", value: null },
        ],
      },
      { offset: 7, timestamp: 2300, key: utf8("é"), value: new Uint8Array(0), headers: [] },
    ]);
  });

  test("the worked example in docs/format.md (annotated and checked by hand there)", () => {
    const expected = hex(`
      000000000000002a 00000052 00000000 02 16a1630e 0000 00000001
      0000018bcfe56800 0000018bcfe56805 ffffffffffffffff ffff ffffffff 00000002
      28 00 00 00 026b 0a68656c6c6f 02 0a7472616365 0231
      16 00 0a 02 01 0a776f726c64 00
    `);
    expect(toHex(sealed(expected.slice()))).toBe(toHex(expected)); // the CRC in the doc is right
    const actual = encodeBatch(
      [
        { key: "k", value: "hello", timestamp: 1700000000000, headers: { trace: "1" } },
        { key: null, value: "world", timestamp: 1700000000005 },
      ],
      { baseOffset: 42, partitionLeaderEpoch: 0 },
    );
    expect(toHex(actual)).toBe(toHex(expected));
  });

  test("LogAppendTime + transactional + control set attribute bits 3, 4, 5 and maxTimestamp", () => {
    const actual = encodeBatch([{ value: "a", timestamp: 1000 }], {
      baseOffset: 0,
      logAppendTime: 5000,
      isTransactional: true,
      isControl: true,
    });
    expect(toHex(actual.subarray(21, 23))).toBe("0038"); // 0x08 | 0x10 | 0x20
    expect(toHex(actual.subarray(27, 35))).toBe("00000000000003e8"); // baseTimestamp stays 1000
    expect(toHex(actual.subarray(35, 43))).toBe("0000000000001388"); // maxTimestamp 5000
    const header = readBatchHeader(actual, 0);
    expect([header.isLogAppendTime, header.isTransactional, header.isControl]).toEqual([true, true, true]);
    expect(decodeBatchSync(actual).records[0]!.timestamp).toBe(5000);
  });

  test("timestamp option fills in records without a timestamp", () => {
    const bytes = encodeBatch([{ value: "a" }, { value: "b", timestamp: 10 }], { baseOffset: 0, timestamp: 20 });
    const header = readBatchHeader(bytes);
    expect([header.baseTimestamp, header.maxTimestamp]).toEqual([20, 20]);
    expect(decodeBatchSync(bytes).records.map((r) => r.timestamp)).toEqual([20, 10]);
  });
});
