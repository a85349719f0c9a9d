/**
 * An index whose size alone says it cannot belong to its segment (not a whole number of entries,
 * more than `maxIndexBytes`, more entries than the `.log` has batches) is never read: it loads as
 * no entries, fails its sanity check (so opening rebuilds it), and the first write empties it.
 * Reads are counted through a wrapper, so "never read" is checked, not assumed.
 */
import { checkIndex } from "../../../src/segment/load/index-checks.js";
import { describe, expect, it } from "vitest";
import { ErrorCode, isPagelogError } from "../../../src/errors.js";
import { OffsetIndex } from "../../../src/segment/offset-index.js";
import { TimeIndex } from "../../../src/segment/time-index.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { StorageFile } from "../../../src/storage/storage.js";

/** A StorageFile that records the length of every read. */
function counting(file: StorageFile): StorageFile & { reads: number[] } {
  const reads: number[] = [];
  return Object.assign(Object.create(file) as StorageFile, {
    reads,
    path: file.path,
    size: () => file.size(),
    read: (position: number, length: number) => {
      reads.push(length);
      return file.read(position, length);
    },
    write: (position: number, bytes: Uint8Array) => file.write(position, bytes),
    truncate: (length: number) => file.truncate(length),
    sync: () => file.sync(),
    close: () => file.close(),
  });
}

async function indexFile(size: number): Promise<StorageFile & { reads: number[] }> {
  const storage = new SimStorage();
  const file = await storage.open("x.index", { create: true });
  await file.truncate(size);
  return counting(file);
}

function expectCorrupt(fn: () => void, pattern: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(isPagelogError(thrown, ErrorCode.CORRUPT), String(thrown)).toBe(true);
  expect((thrown as Error).message).toMatch(pattern);
}

const MAX_INDEX_BYTES = 10 * 1024 * 1024;

describe("index files of implausible size are never read", () => {
  const cases: Array<[string, number, number, RegExp]> = [
    // [what, file size, .log size, message]
    ["3 GiB, more than maxIndexBytes", 3 * 2 ** 30, 1 << 20, /more than the maximum/],
    ["4 GiB + 1, not whole entries", 4 * 2 ** 30 + 1, 1 << 20, /not a multiple of the entry size/],
    [
      "800 entries beside a 6100-byte .log (at most 101 batches)",
      800 * 8,
      6100,
      /more than a \.log of 6100 bytes can need \(at most 101\)/,
    ],
    ["1 entry beside an empty .log is fine, 2 are not", 16, 0, /at most 1\)/],
  ];
  for (const [what, size, logSize, message] of cases) {
    it(`.index ${what}`, async () => {
      const file = await indexFile(size);
      const index = await OffsetIndex.open(file, 0, MAX_INDEX_BYTES);
      await index.load(logSize);
      expect(file.reads).toEqual([]);
      expect(index.entries).toBe(0);
      expect(index.lookup(5)).toEqual({ offset: 0, position: 0 }); // a lookup scans from the start: still right
      expectCorrupt(() => checkIndex(index, logSize, 100), message);
      // The first write empties the file, then appends.
      await index.append(3, 0);
      expect(await file.size()).toBe(8);
      expect(index.entries).toBe(1);
      checkIndex(index, Math.max(logSize, 100), 100);
    });
  }

  it(".timeindex of 10 GiB beside a small .log: not read, corrupt, rebuilt from empty", async () => {
    const storage = new SimStorage();
    const raw = await storage.open("x.timeindex", { create: true });
    await raw.truncate(10 * 2 ** 30);
    const file = counting(raw);
    const index = await TimeIndex.open(file, 0, MAX_INDEX_BYTES);
    await index.load(4096);
    expect(file.reads).toEqual([]);
    expect(index.lastEntry).toBeUndefined();
    expectCorrupt(() => checkIndex(index, 4096, 10), /not a multiple of the entry size 12/);
    await index.maybeAppend(1000, 2);
    expect(await file.size()).toBe(12);
  });

  it("a plausible index is read whole, once", async () => {
    const storage = new SimStorage();
    const raw = await storage.open("x.index", { create: true });
    const entries = new Uint8Array(16);
    new DataView(entries.buffer).setInt32(0, 1);
    new DataView(entries.buffer).setInt32(4, 0);
    new DataView(entries.buffer).setInt32(8, 3);
    new DataView(entries.buffer).setInt32(12, 200);
    await raw.write(0, entries);
    const file = counting(raw);
    const index = await OffsetIndex.open(file, 0, MAX_INDEX_BYTES);
    await index.load(400);
    expect(file.reads).toEqual([16]);
    expect(index.entries).toBe(2);
    checkIndex(index, 400, 10);
  });
});
