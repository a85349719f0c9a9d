/*
 * A clean open reads the last batch once: the walk of the tail (from the last offset-index
 * entry) already holds the batch the time index's last entry names, so checking that entry
 * reads nothing more. It read that batch a second time before (a 100 MB log's reopen read its
 * 100 KB last batch twice). The check itself still holds: a lying last entry is still caught.
 */
import { describe, expect, it } from "vitest";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../../src/storage/storage.js";
import { NAME, openSim, segPath } from "../log/helpers.js";

/** Counts the bytes read from files whose path ends with `suffix`, opened on `sim` from now on. */
function countReads(sim: SimStorage, suffix: string): { bytes: number } {
  const count = { bytes: 0 };
  const open: Storage["open"] = sim.open.bind(sim);
  sim.open = async (path, options) => {
    const file: StorageFile = await open(path, options);
    if (!path.endsWith(suffix)) return file;
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

describe("a clean open of a segment", () => {
  it("reads its last batch once, not again to check the time index's last entry", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    const value = new Uint8Array(64 * 1024).fill(7);
    for (let i = 0; i < 20; i++) await log.append([{ value, timestamp: 1000 + i }]);
    const batchBytes = log.size / 20;
    await dir.close();

    const count = countReads(sim, ".log");
    const reopened = await openSim(sim);
    const again = await reopened.log(NAME);
    expect(again.recovery.clean).toBe(true);
    const opening = count.bytes;
    // The last batch once (and a read-ahead's worth of slack), not twice.
    expect(opening).toBeGreaterThanOrEqual(batchBytes);
    expect(opening).toBeLessThan(1.5 * batchBytes);
    expect(await again.offsetForTimestamp(1019)).toBe(19); // the last entry was taken as true
    await reopened.close();
  });

  it("still refuses a time index whose last entry names the right batch with the wrong timestamp", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    const value = new Uint8Array(8 * 1024).fill(1);
    for (let i = 0; i < 5; i++) await log.append([{ value, timestamp: 1000 + i }]);
    await dir.close();
    // The last entry: 8 bytes of timestamp, then 4 of relative offset. Lie about the timestamp.
    const path = segPath(0, ".timeindex");
    const file = await sim.open(path);
    const size = await file.size();
    const entry = await file.read(size - 12, 12);
    const view = new DataView(entry.buffer, entry.byteOffset, 12);
    view.setBigInt64(0, view.getBigInt64(0) + 1n);
    await file.write(size - 12, entry);
    await file.sync();
    await file.close();

    const reopened = await openSim(sim);
    const again = await reopened.log(NAME);
    // Refused as an index (rebuilt from the log), never taken as the segment's largest timestamp.
    expect(again.recovery.indexesRebuilt).toBeGreaterThanOrEqual(1);
    expect(await again.offsetForTimestamp(1005)).toBe(null);
    expect(await again.offsetForTimestamp(1004)).toBe(4);
    await reopened.close();
  });
});
