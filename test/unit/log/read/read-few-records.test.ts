/*
 * `Log.read(offset, { maxRecords })` of a few records reads the batch holding the offset, not
 * `maxBytes` of batches: a random lookup (`maxRecords: 1`) must not read, check and decode a MiB
 * to keep one record. What it returns is exactly what the whole read returns.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../../../src/storage/storage.js";
import { fastCheckParams } from "../../../support/seed.js";
import { appendBatches, NAME, openSim, plain } from "../helpers.js";

/** Counts the bytes every file opened on `sim` from now on hands back. */
function countReads(sim: SimStorage): { bytes: number } {
  const count = { bytes: 0 };
  const open: Storage["open"] = sim.open.bind(sim);
  sim.open = async (path, options) => {
    const file: StorageFile = await open(path, options);
    const read = file.read.bind(file);
    const readInto = file.readInto?.bind(file);
    return Object.assign(file, {
      read: async (position: number, length: number) => {
        const bytes = await read(position, length);
        count.bytes += bytes.length;
        return bytes;
      },
      ...(readInto && {
        readInto: async (position: number, target: Uint8Array) => {
          const n = await readInto(position, target);
          count.bytes += n;
          return n;
        },
      }),
    });
  };
  return count;
}

/** A closed log of `batches` batches of `perBatch` records of `valueBytes` bytes. */
async function closedLog(batches: number, perBatch: number, valueBytes: number): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 3 });
  const dir = await openSim(sim);
  await appendBatches(await dir.log(NAME), batches, perBatch, valueBytes);
  await dir.close();
  return sim;
}

describe("Log.read of a few records", () => {
  it("reads about one batch for maxRecords 1, not maxBytes of them", async () => {
    const sim = await closedLog(200, 10, 1000); // about 2 MB, batches of about 10 KB
    const count = countReads(sim);
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    await log.read(0, { maxRecords: 1 }); // the segment's first use: its indexes and tail
    count.bytes = 0;
    const got = await log.read(1005, { maxRecords: 1 });
    expect(got.map((r) => r.offset)).toEqual([1005]);
    // The batch (10 KB) and the chunk it is read in (16 KiB + an index interval); 1 MiB before.
    expect(count.bytes).toBeLessThan(64 * 1024);
    await dir.close();
  });

  it("returns what the whole read returns, for any offset, maxRecords and maxBytes", async () => {
    const sim = await closedLog(60, 7, 300);
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    const all = (await log.read(0, { maxBytes: 1 << 30 })).map(plain);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 20_000 }),
        async (offset, maxRecords, maxBytes) => {
          const few = (await log.read(offset, { maxRecords, maxBytes })).map(plain);
          const whole = (await log.read(offset, { maxBytes })).map(plain).slice(0, maxRecords);
          expect(few).toEqual(whole);
          expect(few[0]?.offset).toBe(offset);
        },
      ),
      { ...fastCheckParams(), numRuns: 200 },
    );
    await dir.close();
  });
});
