/** The bytes a real Kafka broker wrote (test/fixtures/kafka, see its README) must read exactly. */
import { describe, expect, test } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import {
  crc32c,
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  readBatchHeader,
  validateBatch,
} from "../../../src/format/api.js";
import { expectCode, expectCodeAsync, readVector, toHex, utf8 } from "./helpers.js";

const SIX = [
  [0, 1539644731680],
  [1, 1539644732194],
  [2, 1539644732699],
  [3, 1539644733203],
  [4, 1539644733708],
  [5, 1539644734213],
] as const;

describe("kafka-broker-6-batches.bin", () => {
  const bytes = readVector("kafka-broker-6-batches.bin");

  test("walks as six valid 107-byte batches with the README's records", () => {
    expect(bytes.length).toBe(642);
    let position = 0;
    for (const [offset, timestamp] of SIX) {
      const check = validateBatch(bytes, position, bytes.length - position, { maxBatchBytes: 1048588 });
      expect(check).toEqual({ ok: true, size: 107 });
      const batch = decodeBatchSync(bytes.subarray(position));
      expect(batch).toMatchObject({
        baseOffset: offset,
        lastOffset: offset,
        sizeInBytes: 107,
        magic: 2,
        attributes: 0,
        partitionLeaderEpoch: 0,
        producerId: -1,
        producerEpoch: -1,
        baseSequence: -1,
        recordsCount: 1,
        baseTimestamp: timestamp,
        maxTimestamp: timestamp,
      });
      expect(batch.records).toEqual([
        {
          offset,
          timestamp,
          key: utf8(`KEY-${offset + 1}`),
          value: utf8(`VALUE-Lorem ipsum dolor sit amet-${offset + 1}`),
          headers: [],
        },
      ]);
      position += 107;
    }
    expect(validateBatch(bytes, position, bytes.length - position, { maxBatchBytes: 1048588 })).toMatchObject({
      ok: false,
      reason: "short-header",
    });
  });

  test("re-encoding the six records with the same header fields gives identical bytes", () => {
    for (const [offset, timestamp] of SIX) {
      const encoded = encodeBatch(
        [{ key: `KEY-${offset + 1}`, value: `VALUE-Lorem ipsum dolor sit amet-${offset + 1}`, timestamp }],
        { baseOffset: offset, partitionLeaderEpoch: 0 },
      );
      expect(toHex(encoded)).toBe(toHex(bytes.subarray(offset * 107, offset * 107 + 107)));
    }
  });

  test("async decodeBatch reads them the same", async () => {
    expect(await decodeBatch(bytes.subarray(107))).toEqual(decodeBatchSync(bytes.subarray(107)));
  });
});

describe("kafka-gzip-logappendtime-batch.bin", () => {
  const bytes = readVector("kafka-gzip-logappendtime-batch.bin");

  test("decodes to the README's record, timestamped with the batch's maxTimestamp", async () => {
    expect(validateBatch(bytes, 0, bytes.length, { maxBatchBytes: 1048588 })).toEqual({ ok: true, size: 125 });
    const batch = await decodeBatch(bytes);
    expect(batch).toMatchObject({
      baseOffset: 0,
      attributes: 0x09,
      compression: 1,
      isLogAppendTime: true,
      baseTimestamp: 1597425188775,
      maxTimestamp: 1597425188809,
      recordsCount: 1,
    });
    expect(batch.records).toEqual([
      {
        offset: 0,
        timestamp: 1597425188809,
        key: utf8("key-0"),
        value: utf8("value-0-2020-08-14T17:13:08.682Z"),
        headers: [],
      },
    ]);
  });

  test("decodeBatchSync refuses it with PAGELOG_UNSUPPORTED_COMPRESSION", () => {
    expectCode(() => decodeBatchSync(bytes), ErrorCode.UNSUPPORTED_COMPRESSION);
  });

  /** The same batch relabelled with another codec id, CRC recomputed so only the codec differs. */
  function withCodec(codec: number): Uint8Array {
    const copy = bytes.slice();
    copy[22] = (copy[22]! & ~0x07) | codec;
    new DataView(copy.buffer).setUint32(17, crc32c(copy.subarray(21)));
    return copy;
  }

  test.each([2, 3, 4])(
    "codec %d (snappy, lz4, zstd) is PAGELOG_UNSUPPORTED_COMPRESSION, never garbage",
    async (codec) => {
      const relabelled = withCodec(codec);
      expect(readBatchHeader(relabelled).compression).toBe(codec);
      await expectCodeAsync(decodeBatch(relabelled), ErrorCode.UNSUPPORTED_COMPRESSION);
      expectCode(() => decodeBatchSync(relabelled), ErrorCode.UNSUPPORTED_COMPRESSION);
    },
  );

  test.each([5, 6, 7])("undefined codec id %d is PAGELOG_CORRUPT", async (codec) => {
    await expectCodeAsync(decodeBatch(withCodec(codec)), ErrorCode.CORRUPT);
  });

  test("uncompressed attributes on gzip bytes fail as PAGELOG_CORRUPT, not garbage records", () => {
    expectCode(() => decodeBatchSync(withCodec(0)), ErrorCode.CORRUPT);
  });
});
