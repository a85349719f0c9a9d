/**
 * Guarantee 10 for lazy segments: a writer's first use of an old segment whose `.log` is damaged
 * or gone rejects with PAGELOG_CORRUPT and changes nothing: every file of the partition, the
 * damaged segment's index files included, is still there with the same bytes, on SimStorage and
 * on real files. (An index file with no `.log` between two segments is what a lost `.log` leaves,
 * and also what a compaction cut short leaves: only a first use that finds the span whole may
 * remove it.)
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { offsetName } from "../../../../src/segment/segment-names.js";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { appendBatches, expectCode, makeTempDir, NAME, readFile, segPath, writeFile } from "../helpers.js";

const OPTIONS = { segmentBytes: 400, indexIntervalBytes: 60 };

/** Every file of the partition, byte for byte (hex), by name. */
async function partitionFiles(storage: Storage): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await storage.list(NAME))
    out[name] = Buffer.from(await readFile(storage, `${NAME}/${name}`)).toString("hex");
  return out;
}

const damages: Array<[string, (storage: Storage, path: string) => Promise<void>]> = [
  ["its .log deleted", (storage, path) => storage.remove(path)],
  ["its .log emptied", (storage, path) => writeFile(storage, path, 0, new Uint8Array(0), { truncate: 0 })],
  [
    "a byte of its last batch flipped",
    async (storage, path) => {
      const bytes = await readFile(storage, path);
      await writeFile(storage, path, bytes.length - 3, new Uint8Array([bytes[bytes.length - 3]! ^ 0x10]));
    },
  ],
];

const storages: Array<[string, () => Promise<() => Promise<Storage>>]> = [
  [
    "SimStorage",
    async () => {
      const sim = new SimStorage({ seed: 31 });
      return async () => sim;
    },
  ],
  [
    "FsStorage",
    async () => {
      const root = await makeTempDir();
      return () => FsStorage.open(root);
    },
  ],
];

describe("a writer's first use of a damaged idle segment changes nothing", () => {
  for (const [storageName, makeStorage] of storages) {
    for (const [what, damage] of damages) {
      it(`${storageName}: ${what}: a read of it rejects PAGELOG_CORRUPT, twice, and every file stays`, async () => {
        const storageFor = await makeStorage();
        const first = await LogDir.open(await storageFor(), { log: OPTIONS });
        const log = await first.log(NAME);
        await appendBatches(log, 24, 2, 10);
        const bases = log.segmentBaseOffsets;
        await first.close();
        expect(bases.length).toBeGreaterThan(3);
        // Not the first segment (a lost first .log is a log that starts later): one in the
        // middle and the one below the active segment.
        for (const victim of [bases[1]!, bases[bases.length - 2]!]) {
          const inspect = await storageFor();
          const pristine = await partitionFiles(inspect);
          await damage(inspect, segPath(victim, ".log"));
          const before = await partitionFiles(inspect);
          expect(Object.keys(before)).toContain(`${offsetName(victim)}.index`);
          const dir = await LogDir.open(await storageFor(), { log: OPTIONS });
          const reopened = await dir.log(NAME);
          await expectCode(() => reopened.read(victim), ErrorCode.CORRUPT);
          await expectCode(() => reopened.read(victim), ErrorCode.CORRUPT);
          expect(await partitionFiles(inspect), `segment ${victim}: ${what}`).toEqual(before);
          await dir.close();
          // The segment as it was, for the next victim.
          for (const [name, hex] of Object.entries(pristine))
            await writeFile(inspect, `${NAME}/${name}`, 0, Buffer.from(hex, "hex"), { create: true, truncate: 0 });
          if (inspect instanceof FsStorage) await inspect.close();
        }
      });
    }
  }
});

describe("index files with no .log inside a whole segment's span (a compaction cut short)", () => {
  it("stay through a clean open and go at the first use that finds the span whole, or with the segment", async () => {
    const sim = new SimStorage({ seed: 32 });
    const first = await LogDir.open(sim, { log: OPTIONS });
    const log = await first.log(NAME);
    await appendBatches(log, 24, 2, 10);
    const bases = log.segmentBaseOffsets;
    await first.close();
    // What a crash leaves when the cleaner merged segments and deleted a merged one's .log only.
    const inside = (i: number) => Math.floor((bases[i]! + bases[i + 1]!) / 2);
    for (const i of [1, 2]) {
      expect(inside(i)).toBeGreaterThan(bases[i]!);
      await writeFile(sim, segPath(inside(i), ".index"), 0, new Uint8Array(0), { create: true });
      await writeFile(sim, segPath(inside(i), ".timeindex"), 0, new Uint8Array(0), { create: true });
    }
    const dir = await LogDir.open(sim, { log: OPTIONS });
    const reopened = await dir.log(NAME);
    expect(reopened.recovery.leftoversRemoved).toEqual([]);
    expect(await sim.stat(segPath(inside(1), ".index"))).not.toBeNull();
    // The first use of segment 1 checks it whole: the files inside its span are garbage.
    expect((await reopened.read(bases[1]!)).length).toBeGreaterThan(0);
    expect(await sim.stat(segPath(inside(1), ".index"))).toBeNull();
    expect(await sim.stat(segPath(inside(1), ".timeindex"))).toBeNull();
    // Segment 2, never used, goes with retention: its span's leftovers go with it.
    expect(await sim.stat(segPath(inside(2), ".index"))).not.toBeNull();
    await reopened.deleteRecordsBefore(bases[3]!);
    expect(await sim.stat(segPath(inside(2), ".index"))).toBeNull();
    expect(await sim.stat(segPath(inside(2), ".timeindex"))).toBeNull();
    await dir.close();
  });
});
