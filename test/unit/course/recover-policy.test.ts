/**
 * pagelog's `recover` policy never throws, whatever the bytes, and on logs of whole batches
 * with a torn tail it keeps exactly what `Segment.recover` (the walk pagelog's Log runs) keeps.
 */
import { describe, expect, it } from "vitest";
import { kafkaPolicies, recoverHelpers } from "../../../src/course.js";
import { seededRandom } from "../../../src/course/cases/case.js";
import { encodeBatch } from "../../../src/format/api.js";
import { Segment } from "../../../src/segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../../src/segment/segment-names.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { concat } from "../segment/helpers.js";

const recover = (log: Uint8Array) => kafkaPolicies.recover(log, recoverHelpers(log));

/** 1–4 batches with consecutive offsets from 0, and where each ends. */
function batches(random: () => number): { parts: Uint8Array[]; ends: number[] } {
  const parts: Uint8Array[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
    const count = 1 + Math.floor(random() * 3);
    const records = Array.from({ length: count }, (_, r) => ({ value: "x".repeat(Math.floor(random() * 40)) + r }));
    parts.push(encodeBatch(records, { baseOffset: offset, timestamp: 1_700_000_000_000 }));
    ends.push((ends[ends.length - 1] ?? 0) + parts[parts.length - 1]!.length);
    offset += count;
  }
  return { parts, ends };
}

describe("kafkaPolicies.recover", () => {
  it("never throws and returns a position in range, on 4,000 random inputs", () => {
    const random = seededRandom(2026);
    for (let i = 0; i < 4000; i++) {
      const noise = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256));
      const shape = i % 4;
      let log: Uint8Array = noise;
      if (shape === 1) log = concat([...batches(random).parts, noise]);
      if (shape === 2 || shape === 3) {
        // Noise that looks like a header: a plausible length and, half the time, magic 2.
        const view = new DataView(noise.buffer);
        if (noise.length >= 17) {
          view.setInt32(8, Math.floor(random() * 300) - 20, false);
          if (shape === 3) noise[16] = 2;
        }
      }
      const got = recover(log);
      expect(Number.isInteger(got) && got >= 0 && got <= log.length).toBe(true);
    }
  });

  it("agrees with Segment.recover on whole batches with a torn tail", async () => {
    const random = seededRandom(7);
    for (let i = 0; i < 150; i++) {
      const { parts, ends } = batches(random);
      let log: Uint8Array = concat(parts);
      const damage = i % 4;
      if (damage === 1) log = log.slice(0, Math.floor(random() * log.length)); // a cut anywhere
      if (damage === 2) {
        // A flipped bit in the CRC-covered part of one batch.
        const b = Math.floor(random() * parts.length);
        const start = (ends[b] ?? 0) - parts[b]!.length;
        const at = start + 21 + Math.floor(random() * (parts[b]!.length - 21));
        log[at] = log[at]! ^ (1 << Math.floor(random() * 8));
      }
      if (damage === 3) log = concat([log, new Uint8Array(Math.floor(random() * 5000))]); // zeroed pages
      const storage = new SimStorage();
      await storage.mkdir("t-0");
      const file = await storage.open(segmentFilePath("t-0", 0, LOG_SUFFIX), { create: true });
      await file.write(0, log);
      await file.close();
      const segment = await Segment.openExisting(storage, "t-0", 0, {
        indexIntervalBytes: 4096,
        maxIndexBytes: 1 << 20,
        maxBatchBytes: 1048588,
      });
      const { validBytes } = await segment.recover();
      await segment.close();
      expect(recover(log), `case ${i} (damage ${damage})`).toBe(validBytes);
    }
  });
});
