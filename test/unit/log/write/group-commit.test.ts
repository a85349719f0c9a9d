/**
 * Group commit shares the encode: appends that arrive while a write is in flight go out as one
 * batch (one encode, one CRC, one write), each append still resolving with its own offsets; an
 * append that cannot be encoded fails alone, and a group larger than half of maxBatchBytes is
 * split into several batches.
 */
import { describe, expect, it } from "vitest";
import { readBatchHeader } from "../../../../src/format/index.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";

async function batchesOf(log: Awaited<ReturnType<LogDir["log"]>>): Promise<number[]> {
  const counts: number[] = [];
  let offset = log.startOffset;
  while (offset < log.endOffset) {
    const bytes = await log.readBatches(offset, { maxBytes: 1 << 20 });
    for (let at = 0; at < bytes.length;) {
      const h = readBatchHeader(bytes, at);
      counts.push(h.recordsCount);
      offset = h.lastOffset + 1;
      at += h.sizeInBytes;
    }
  }
  return counts;
}

describe("group commit", () => {
  it("concurrent appends share one batch and each gets its own offsets, in call order", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const log = await dir.log("t-0");
    await log.append([{ value: "first" }]); // the write in flight while the others queue
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => log.append([{ value: `v${i}` }, { value: `w${i}` }])),
    );
    expect(results.map((r) => r.baseOffset)).toEqual(Array.from({ length: 64 }, (_, i) => 1 + 2 * i));
    expect(results.every((r) => r.lastOffset === r.baseOffset + 1)).toBe(true);
    const counts = await batchesOf(log);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(129);
    expect(counts.length).toBeLessThanOrEqual(3); // not 65 batches
    const values: string[] = [];
    for await (const r of log.records()) values.push(new TextDecoder().decode(r.value!));
    expect(values.slice(0, 5)).toEqual(["first", "v0", "w0", "v1", "w1"]);
    await dir.close();
  });

  it("an append that cannot be encoded fails alone; the rest of its group is written", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }), { log: { maxBatchBytes: 4096 } });
    const log = await dir.log("t-0");
    const calls = [
      log.append([{ value: "a" }]),
      log.append([{ value: new Uint8Array(10_000) }]), // larger than maxBatchBytes
      log.append([{ value: "b" }]),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: "PAGELOG_RECORD_TOO_LARGE" });
    expect(log.endOffset).toBe(2);
    const values: string[] = [];
    for await (const r of log.records()) values.push(new TextDecoder().decode(r.value!));
    expect(values).toEqual(["a", "b"]);
    await dir.close();
  });

  it("a group larger than half of maxBatchBytes goes out as several batches, none over the limit", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }), { log: { maxBatchBytes: 8192 } });
    const log = await dir.log("t-0");
    await Promise.all(Array.from({ length: 40 }, () => log.append([{ value: new Uint8Array(500) }])));
    const counts = await batchesOf(log);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(40);
    expect(counts.length).toBeGreaterThan(1);
    let offset = 0;
    while (offset < log.endOffset) {
      const bytes = await log.readBatches(offset, { maxBytes: 1 });
      const h = readBatchHeader(bytes, 0);
      expect(h.sizeInBytes).toBeLessThanOrEqual(8192);
      offset = h.lastOffset + 1;
    }
    await dir.close();
  });
});
