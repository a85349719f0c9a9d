/**
 * A read-only log's refresh after a writer's truncateTo that it refilled before the refresh, in
 * the three shapes that once ended a follower of readonly-race.test.ts with a false
 * PAGELOG_CORRUPT or a stale record: the cut in an older segment the reader read but keeps no
 * marks of, later segments rolled again at the same base offsets; a segment file replaced by the
 * truncation's rename while the reader held it empty; and a replaced file refilled to exactly the
 * old size. Each time the reader must read what the writer holds now, tell an iterator that had
 * passed the cut (PAGELOG_TRUNCATED), and never call the files corrupt.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { encodeBatch, type RecordInput } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  fileSize,
  plain,
  readAll,
  readFile,
  recordAt,
  segPath,
  writeFile,
} from "../helpers.js";
import { RecordingStorage } from "../../../support/recording-storage.js";

const SMALL = { segmentBytes: 700, indexIntervalBytes: 64 };

async function pair(seed: number) {
  const sim = new SimStorage({ seed });
  const w = await LogDir.open(sim, { log: SMALL, checkpointIntervalMs: -1 });
  const writer = await w.log(NAME);
  return { sim, w, writer };
}

async function take(it: AsyncGenerator<{ offset: number }>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await it.next()).value!.offset);
  return out;
}

/** What the writer holds, offset and value, as the reader must read it after a refresh. */
async function expectSameRecords(reader: Log, writer: Log): Promise<void> {
  const view = (records: Awaited<ReturnType<typeof readAll>>) => records.map((r) => `${r.offset}:${r.value}`);
  expect(view(await readAll(reader))).toEqual(view(await readAll(writer)));
}

describe("read-only refresh after a truncateTo the writer refilled", () => {
  // Seeds 122 and 389 of the race: the cut lies in a segment the reader loaded (read from) but
  // keeps no marks of (only its last two walked segments have them), and the refill rolled again
  // at the same base offsets, so the later segments are listed as before. The refresh used to
  // walk only the last segment again: the cut segment kept its old in-memory index and size.
  for (const { seed, into, sizes, checkpointAgain } of [
    { seed: 31, into: 1, sizes: "the same sizes", checkpointAgain: false },
    { seed: 32, into: 2, sizes: "other sizes", checkpointAgain: true },
  ])
    it(`a cut into older segment #${into}, refilled with records of ${sizes}${checkpointAgain ? ", checkpointed again" : ""}`, async () => {
      const { sim, w, writer } = await pair(seed);
      await appendBatches(writer, 30, 2, 20);
      await writer.flush();
      await w.checkpoint(); // the writer's truncateTo lowers this checkpoint before it cuts
      const r = await LogDir.open(sim, { readOnly: true });
      const reader = await r.log(NAME);
      const bases = writer.segmentBaseOffsets;
      expect(bases.length).toBeGreaterThan(into + 3);
      const base = bases[into]!;
      const it = reader.records({ from: base });
      expect(await take(it, 4)).toEqual([base, base + 1, base + 2, base + 3]);
      const [cut, end] = [base + 2, writer.endOffset];
      await writer.truncateTo(cut);
      // Other records at the same offsets, past the old end. Of the same sizes, the writer rolls
      // at the same base offsets again: the listing looks as before.
      while (writer.endOffset < end + 4) {
        const at = writer.endOffset;
        const value = (i: number) => `o${at + i}`.padEnd(sizes === "the same sizes" ? 20 : 9, "o");
        await writer.append([0, 1].map((i) => ({ ...recordAt(at + i, undefined, 20), value: value(i) })));
      }
      if (sizes === "the same sizes") expect(writer.segmentBaseOffsets.slice(0, bases.length)).toEqual(bases);
      if (checkpointAgain) {
        await writer.flush();
        await w.checkpoint();
      }
      await reader.refresh();
      await expectCode(() => it.next(), ErrorCode.TRUNCATED);
      expect(plain((await reader.read(cut, { maxRecords: 1 }))[0]!).value).toMatch(/^o/);
      await expectSameRecords(reader, writer);
      await r.close();
      await w.close();
    });

  // Seed 212: a truncateTo inside the first batch of a segment writes the kept records to a new
  // file and renames it over the segment. The reader had walked that segment while it was empty
  // (no marks to compare), so it went on reading the old file through its handle: the batch there
  // ran past the new file's size, the walk stopped short, and the checkpointed recovery point
  // past that end read as damage ("valid batches end at offset …, below the recovery point").
  for (const keep of [1, 2])
    it(`a segment replaced by a truncateTo's rename while the reader held it empty (keep ${keep})`, async () => {
      const { sim, w, writer } = await pair(40 + keep);
      await appendBatches(writer, 20, 2);
      const base = writer.segmentBaseOffsets.at(-1)!;
      await writer.truncateTo(base); // the active segment, emptied
      const r = await LogDir.open(sim, { readOnly: true });
      const reader = await r.log(NAME);
      expect(reader.endOffset).toBe(base);
      await writer.append([0, 1, 2].map((i) => recordAt(base + i)));
      await writer.truncateTo(base + keep); // inside that one batch: the rename
      await writer.flush();
      await w.checkpoint();
      expect(await reader.refresh()).toBe(base + keep);
      expect(reader.recoveryPoint).toBe(base + keep);
      await expectSameRecords(reader, writer);
      // And it follows the new file from here on.
      await appendBatches(writer, 2, 2);
      expect(await reader.refresh()).toBe(writer.endOffset);
      await expectSameRecords(reader, writer);
      await r.close();
      await w.close();
    });

  // Seed 929: the same rename, then a refill to exactly the old file's size before the refresh.
  // The old handle's file and the new one had the same size, so the marks were read through the
  // old handle, held, and the reader kept the old records after the writer replaced them.
  it("a segment replaced by a truncateTo's rename and refilled to the same size", async () => {
    const { sim, w, writer } = await pair(50);
    await appendBatches(writer, 10, 2, 30);
    const base = writer.segmentBaseOffsets.at(-1)!;
    expect(writer.endOffset - base).toBeGreaterThanOrEqual(4);
    await writer.flush();
    await w.checkpoint();
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    const it = reader.records({ from: base });
    expect(await take(it, 3)).toEqual([base, base + 1, base + 2]);
    const path = segPath(base, ".log");
    const size = await fileSize(sim, path);
    await writer.truncateTo(base + 1); // the first batch (base, base + 1) is rewritten: the rename
    // Other records, one batch each, sized so that the file ends at exactly its old size.
    for (let left = size - (await fileSize(sim, path)); left > 0; left = size - (await fileSize(sim, path)))
      await writer.append([sameSize(writer.endOffset, left > 250 ? 150 : left)]);
    expect(await fileSize(sim, path)).toBe(size); // the same size as the file the reader read
    await reader.refresh();
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    await expectSameRecords(reader, writer);
    await r.close();
    await w.close();
  });
});

describe("read-only: a durable read after a truncateTo no checkpoint shows", () => {
  // Seed 10051 of the race: the reader walked a batch above its recovery point; the writer cut
  // inside it (a rename) with its recovery point not above the cut, so the checkpoint did not
  // come down, refilled the file to exactly its old size and flushed. The refresh saw no lower
  // checkpoint and the old size, read the marks through the old handle (the old file), kept the
  // old records, and raised the recovery point over them to the published durable offset: a
  // durable read yielded a record the writer had cut before it was ever flushed.
  it("a batch walked above the recovery point, replaced by a rename and refilled to its size, is never durable", async () => {
    const { sim, w, writer } = await pair(60);
    await appendBatches(writer, 10, 2, 30);
    await writer.flush();
    await w.checkpoint();
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    // Batches of three until one starts a segment (a cut inside a segment's first batch renames).
    const segments = writer.segmentBaseOffsets.length;
    while (writer.segmentBaseOffsets.length === segments) {
      const at = writer.endOffset;
      await writer.append([0, 1, 2].map((i) => recordAt(at + i, undefined, 30)));
    }
    const base = writer.segmentBaseOffsets.at(-1)!;
    const from = base; // the roll flush made only what is below it durable
    expect(await reader.refresh()).toBe(from + 3);
    expect(reader.recoveryPoint).toBeLessThanOrEqual(from); // walked, not durable
    const path = segPath(base, ".log");
    const size = await fileSize(sim, path);
    await writer.truncateTo(from + 1); // inside that batch: the rename; nothing flushed past the cut
    for (let left = size - (await fileSize(sim, path)); left > 0; left = size - (await fileSize(sim, path)))
      await writer.append([sameSize(writer.endOffset, left > 250 ? 150 : left)]);
    expect(writer.segmentBaseOffsets.at(-1)).toBe(base); // no roll: the same file, refilled
    expect(await fileSize(sim, path)).toBe(size);
    await writer.flush(); // publishes a durable offset past the old batch's offsets
    expect(writer.recoveryPoint).toBeGreaterThan(from + 1);
    await reader.refresh();
    const durable = await reader.read(from + 1, { maxRecords: 2, durable: true });
    expect(durable.map((record) => plain(record).value)).not.toContain(`v${from + 1}`);
    expect(durable.map((record) => plain(record).value)).not.toContain(`v${from + 2}`);
    await expectSameRecords(reader, writer);
    await r.close();
    await w.close();
  });
});

describe("read-only: real damage is still PAGELOG_CORRUPT, after a bounded number of tries", () => {
  // The refresh and the reads retry what may be a race with the writer; damage that reads the same
  // every time is reported then, to a read and to a follower alike, and nothing hangs.
  for (const where of ["an old segment the reader trusted", "the last segment the reader walked"] as const)
    it(`a record's bytes damaged in ${where}`, async () => {
      const { sim, w, writer } = await pair(where.length);
      await appendBatches(writer, 30, 2, 20);
      await writer.flush();
      await w.checkpoint();
      await w.close(); // no writer any more: nothing can explain the damage
      const mount = new RecordingStorage(sim);
      const r = await LogDir.open(mount, { readOnly: true, pollMs: 1 });
      const reader = await r.log(NAME);
      const bases = reader.segmentBaseOffsets;
      const base = where === "an old segment the reader trusted" ? bases[1]! : bases.at(-1)!;
      const path = segPath(base, ".log");
      // The last byte of the segment's first batch: a record's value, under the CRC.
      const first = await readFile(sim, path);
      const end = new DataView(first.buffer, first.byteOffset).getInt32(8) + 12;
      await writeFile(sim, path, end - 1, Uint8Array.of(first[end - 1]! ^ 0xff));
      const calls = mount.calls.length;
      await expectCode(() => reader.read(base), ErrorCode.CORRUPT);
      // A few tries, each a refresh and a read: a bounded number of storage calls.
      expect(mount.calls.length - calls).toBeLessThan(400);
      const follower = (async () => {
        for await (const _ of reader.records({ from: base, follow: true }));
      })();
      await expectCode(() => follower, ErrorCode.CORRUPT);
      await r.close();
    });
});

/** A record at `offset` whose one-record batch is exactly `bytes` long. */
function sameSize(offset: number, bytes: number): RecordInput {
  for (let length = 8; length < bytes; length++) {
    const record = { ...recordAt(offset), value: `n${offset}`.padEnd(length, "n") };
    if (encodeBatch([record], { baseOffset: offset }).length === bytes) return record;
  }
  throw new Error(`no one-record batch of ${bytes} bytes`);
}
