/**
 * Bytes a real Kafka broker wrote (test/fixtures/kafka) as a segment: opened with no index
 * files, they must rebuild the indexes and read back exactly the README's records. Run on
 * SimStorage and on FsStorage in a temp directory.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { decodeBatch } from "../../../src/format/api.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage } from "../../../src/storage/storage.js";
import { readVector } from "../format/helpers.js";
import {
  DIR,
  decodeAll,
  indexPath,
  logPath,
  newSegment,
  offsetEntries,
  openSegment,
  readFile,
  timeEntries,
  timeIndexPath,
  writeFile,
} from "./helpers.js";

const SIX_TIMESTAMPS = [1539644731680, 1539644732194, 1539644732699, 1539644733203, 1539644733708, 1539644734213];
const text = (bytes: Uint8Array | null): string | null => (bytes === null ? null : new TextDecoder().decode(bytes));

const temps: string[] = [];
const storages: Storage[] = [];
afterAll(async () => {
  for (const s of storages) await s.close();
  for (const t of temps) await fs.rm(t, { recursive: true, force: true });
});

const backends: Array<[string, () => Promise<Storage>]> = [
  ["SimStorage", async () => new SimStorage()],
  [
    "FsStorage",
    async () => {
      const tmp = await fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-segment-"));
      temps.push(tmp);
      const storage = await FsStorage.open(nodePath.join(tmp, "root"));
      storages.push(storage);
      return storage;
    },
  ],
];

/** A partition directory holding only the six-batch vector as `00000000000000000000.log`. */
async function sixBatchLog(makeStorage: () => Promise<Storage>): Promise<Storage> {
  const storage = await makeStorage();
  await storage.mkdir(DIR);
  await writeFile(storage, logPath(), 0, readVector("kafka-broker-6-batches.bin"));
  expect(await storage.list(DIR)).toEqual(["00000000000000000000.log"]);
  return storage;
}

async function expectSixRecords(storage: Storage, segment: Awaited<ReturnType<typeof openSegment>>): Promise<void> {
  expect(segment.size).toBe(642);
  expect(segment.nextOffset).toBe(6);
  expect(segment.maxTimestamp).toBe(SIX_TIMESTAMPS[5]);
  const read = await segment.read(0, 1 << 20);
  expect(read?.bytes).toEqual(readVector("kafka-broker-6-batches.bin"));
  const records = (await decodeAll(read!.bytes)).flatMap((b) => b.records);
  expect(records.map((r) => [r.offset, r.timestamp, text(r.key), text(r.value), r.headers.length])).toEqual(
    SIX_TIMESTAMPS.map((ts, i) => [i, ts, `KEY-${i + 1}`, `VALUE-Lorem ipsum dolor sit amet-${i + 1}`, 0]),
  );
  for (let i = 0; i < 6; i++) {
    const one = await segment.read(i, 1);
    expect(one?.position).toBe(107 * i);
    expect(one?.bytes.length).toBe(107);
    expect(await segment.offsetForTimestamp(SIX_TIMESTAMPS[i]!)).toBe(i);
    expect(await segment.offsetForTimestamp(SIX_TIMESTAMPS[i]! - 1)).toBe(i);
  }
  expect(await segment.offsetForTimestamp(SIX_TIMESTAMPS[5]! + 1)).toBeNull();
  expect(await segment.read(6, 1 << 20)).toBeNull();
  // Interval 100 < 107: every batch but the first gets an offset entry and a time entry.
  expect(offsetEntries(await readFile(storage, indexPath()))).toEqual([1, 2, 3, 4, 5].map((i) => [i, 107 * i]));
  expect(timeEntries(await readFile(storage, timeIndexPath()))).toEqual(
    [1, 2, 3, 4, 5].map((i) => [SIX_TIMESTAMPS[i], i]),
  );
}

for (const [name, makeStorage] of backends) {
  describe(`Kafka vectors on ${name}`, () => {
    test("vector: six broker batches with no index files: loadClean rebuilds the indexes and reads the six records", async () => {
      const storage = await sixBatchLog(makeStorage);
      const segment = await openSegment(storage, 0, { indexIntervalBytes: 100 });
      expect(await segment.loadClean()).toEqual({ indexesRebuilt: true });
      expect(await storage.list(DIR)).toEqual([
        "00000000000000000000.index",
        "00000000000000000000.log",
        "00000000000000000000.timeindex",
      ]);
      await expectSixRecords(storage, segment);
      await segment.close();
      // The rebuilt indexes pass a clean load as they are.
      const again = await openSegment(storage, 0, { indexIntervalBytes: 100 });
      expect(await again.loadClean()).toEqual({ indexesRebuilt: false });
      await expectSixRecords(storage, again);
      await again.close();
    });

    test("vector: six broker batches with no index files: recover() keeps all 642 bytes and reads the six records", async () => {
      const storage = await sixBatchLog(makeStorage);
      const segment = await openSegment(storage, 0, { indexIntervalBytes: 100 });
      const report = await segment.recover();
      expect(report).toMatchObject({
        validBytes: 642,
        truncatedBytes: 0,
        lastOffset: 5,
        maxTimestamp: SIX_TIMESTAMPS[5],
      });
      expect(report.stop.reason).toBeUndefined();
      await expectSixRecords(storage, segment);
      await segment.close();
    });

    test("vector: the gzip LogAppendTime batch as a segment's only batch reads back with the broker's timestamp", async () => {
      const { storage, segment } = await newSegment(0, {}, await makeStorage());
      const gzip = readVector("kafka-gzip-logappendtime-batch.bin");
      await segment.append(gzip);
      const check = async (s: typeof segment): Promise<void> => {
        expect(s.nextOffset).toBe(1);
        expect(s.maxTimestamp).toBe(1597425188809);
        const read = await s.read(0, 1);
        expect(read?.bytes).toEqual(gzip);
        const batch = await decodeBatch(read!.bytes);
        expect(batch.isLogAppendTime).toBe(true);
        expect(batch.records.map((r) => [r.offset, r.timestamp, text(r.key), text(r.value)])).toEqual([
          [0, 1597425188809, "key-0", "value-0-2020-08-14T17:13:08.682Z"],
        ]);
        // Under LogAppendTime the record's timestamp is maxTimestamp, not baseTimestamp.
        expect(await s.offsetForTimestamp(1597425188775)).toBe(0);
        expect(await s.offsetForTimestamp(1597425188809)).toBe(0);
        expect(await s.offsetForTimestamp(1597425188810)).toBeNull();
      };
      await check(segment);
      await segment.close();
      const clean = await openSegment(storage, 0);
      expect(await clean.loadClean()).toEqual({ indexesRebuilt: false });
      await check(clean);
      await clean.close();
      const recovered = await openSegment(storage, 0);
      expect((await recovered.recover()).truncatedBytes).toBe(0);
      await check(recovered);
      await recovered.close();
    });
  });
}
