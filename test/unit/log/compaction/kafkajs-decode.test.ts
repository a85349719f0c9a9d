/**
 * kafkajs still decodes a compacted log's batches (issue 22, Deliver 5): every batch of every
 * cleaned segment's `.log` file, and what `readBatches` returns, goes through kafkajs's own
 * record-batch decoder (its Fetch path: src/protocol/recordBatch/v0/decoder.js), and the offsets,
 * timestamps, keys, values and headers it finds are exactly what pagelog reads; the batch CRC,
 * which kafkajs does not check, is checked with kafkajs's CRC-32C. A cleaned batch keeps its
 * base offset and last offset delta, so kafkajs sees records with gaps between their offsets.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { readBatchHeader } from "../../../../src/format/index.js";
import type { Log } from "../../../../src/log/log.js";
import { LOG_SUFFIX, segmentFilePath } from "../../../../src/segment/segment-names.js";
import { NAME, freshLog, readAll, readFile, type PlainRecord } from "../helpers.js";

const require = createRequire(import.meta.url);

interface KafkajsRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null>;
}
interface KafkajsBatch {
  firstOffset: string;
  lastOffsetDelta: number;
  records: KafkajsRecord[];
}
type KafkajsDecoder = new (buffer: Buffer) => { offset: number };
const Decoder = require("kafkajs/src/protocol/decoder") as KafkajsDecoder;
const decodeRecordBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder") as (
  d: unknown,
) => Promise<KafkajsBatch>;
const crc32C = require("kafkajs/src/protocol/recordBatch/crc32C") as (buffer: Buffer) => number;

/** Every batch of `bytes` through kafkajs; each batch's CRC checked with kafkajs's CRC-32C. */
async function kafkajsDecode(bytes: Uint8Array): Promise<{ batches: KafkajsBatch[]; records: PlainRecord[] }> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new Decoder(buffer);
  const batches: KafkajsBatch[] = [];
  while (decoder.offset < buffer.length) {
    const at = decoder.offset;
    const size = 12 + buffer.readInt32BE(at + 8);
    expect(crc32C(buffer.subarray(at + 21, at + size))).toBe(buffer.readUInt32BE(at + 17));
    batches.push(await decodeRecordBatch(decoder));
    expect(decoder.offset).toBe(at + size);
  }
  const str = (b: Buffer | null): string | null => (b === null ? null : b.toString("utf8"));
  const records = batches.flatMap((b) =>
    b.records.map((r) => ({
      offset: Number(r.offset),
      timestamp: Number(r.timestamp),
      key: str(r.key),
      value: str(r.value),
      headers: Object.entries(r.headers).map(([key, value]) => ({ key, value: str(value) })),
    })),
  );
  return { batches, records };
}

/** Batches of four records over a few keys, with headers and some tombstones, flushed. */
async function fill(log: Log, batches: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const base = log.endOffset;
    await log.append(
      Array.from({ length: 4 }, (_, i) => {
        const o = base + i;
        return {
          key: o % 11 === 5 ? `own${o}` : `k${o % 5}`,
          value: o % 13 === 4 ? null : `v${o}`,
          headers: [
            { key: "h", value: `h${o}` },
            { key: "n", value: null },
          ],
          timestamp: 5000 + o * 3,
        };
      }),
    );
  }
  await log.flush();
}

describe("kafkajs decodes a compacted log's batches", () => {
  it("every cleaned segment's .log bytes, and readBatches, decode to what pagelog reads", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 1200 });
    await fill(log, 40);
    const result = await log.compact();
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    const pagelog = await readAll(log);
    const bases = log.segmentBaseOffsets;
    const fromFiles: PlainRecord[] = [];
    let gapsInsideBatches = 0;
    for (const base of bases) {
      const bytes = await readFile(sim, segmentFilePath(NAME, base, LOG_SUFFIX));
      const { batches, records } = await kafkajsDecode(bytes);
      // Kafka's rule for a cleaned batch: its base offset and last offset delta are the original's.
      let p = 0;
      for (const batch of batches) {
        const header = readBatchHeader(bytes, p);
        expect(Number(batch.firstOffset)).toBe(header.baseOffset);
        expect(Number(batch.firstOffset) + batch.lastOffsetDelta).toBe(header.lastOffset);
        if (batch.records.length > 0 && batch.records.length < batch.lastOffsetDelta + 1) gapsInsideBatches++;
        p += header.sizeInBytes;
      }
      if (batches.length > 0) expect(Number(batches[0]!.firstOffset)).toBe(base);
      fromFiles.push(...records);
    }
    expect(gapsInsideBatches).toBeGreaterThan(0);
    expect(fromFiles).toEqual(pagelog);
    // readBatches, a fetch's bytes, from every record's offset: the same records from there on.
    for (const from of [log.startOffset, ...pagelog.filter((_, i) => i % 7 === 3).map((r) => r.offset)]) {
      const { records } = await kafkajsDecode(await log.readBatches(from, { maxBytes: 1 << 20 }));
      const atOrAfter = records.filter((r) => r.offset >= from);
      expect(atOrAfter).toEqual(pagelog.filter((r) => r.offset >= from).slice(0, atOrAfter.length));
      expect(atOrAfter.length).toBeGreaterThan(0);
    }
    await dir.close();
  });
});
