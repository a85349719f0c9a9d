/**
 * `log.refresh()` on a read-only log: following the files a writer (another LogDir on the same
 * storage: another process) changes. Growth, rolls, retention, truncation (told to live
 * iterators), a torn tail that becomes whole, a writer's crash and reopen, and the recovery
 * point following the checkpoint.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { encodeBatch } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { RecordingStorage } from "../../../support/recording-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectedAt,
  fileSize,
  killable,
  plain,
  readAll,
  recordAt,
  segPath,
  writeFile,
} from "../helpers.js";

const SMALL = { segmentBytes: 700, indexIntervalBytes: 64 };

async function pair(sim: SimStorage, log = {}) {
  const w = await LogDir.open(sim, { log, checkpointIntervalMs: -1 });
  const writer = await w.log(NAME);
  const mount = new RecordingStorage(sim);
  const r = await LogDir.open(mount, { readOnly: true });
  return { w, writer, mount, r };
}

async function drain(it: AsyncGenerator<{ offset: number }>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const next = await it.next();
    if (next.done === true) break;
    out.push(next.value.offset);
  }
  return out;
}

describe("read-only refresh", () => {
  it("sees what the writer appended since (unflushed too: the page cache), across rolls", async () => {
    const sim = new SimStorage({ seed: 11 });
    const { w, writer, mount, r } = await pair(sim, SMALL);
    const model = await appendBatches(writer, 3, 2);
    const reader = await r.log(NAME);
    expect(reader.endOffset).toBe(6);
    model.push(...(await appendBatches(writer, 40, 2)));
    expect(writer.segmentCount).toBeGreaterThan(3);
    expect(reader.endOffset).toBe(6); // until it refreshes
    expect(await reader.refresh()).toBe(86);
    expect(reader.segmentCount).toBe(writer.segmentCount);
    expect(await readAll(reader)).toEqual(model);
    expect(await reader.offsetForTimestamp(1_000_000 + 77 * 10)).toBe(77);
    // Nothing new: a refresh changes nothing.
    expect(await reader.refresh()).toBe(86);
    await r.close();
    expect(mount.writes).toEqual([]);
    await w.close();
  });

  it("a torn batch at the tail is not visible until it is whole", async () => {
    const sim = new SimStorage({ seed: 12 });
    const { w, writer, r } = await pair(sim);
    await appendBatches(writer, 2, 2);
    await writer.flush();
    await w.close(); // the writer goes; the test writes the next batch by hand, in two halves
    const reader = await r.log(NAME);
    const path = segPath(0, ".log");
    const size = await fileSize(sim, path);
    const batch = encodeBatch([recordAt(4), recordAt(5)], { baseOffset: 4 });
    await writeFile(sim, path, size, batch.subarray(0, 40));
    expect(await reader.refresh()).toBe(4);
    await writeFile(sim, path, size + 40, batch.subarray(40));
    expect(await reader.refresh()).toBe(6);
    expect((await reader.read(4)).map(plain)).toEqual([expectedAt(4), expectedAt(5)]);
    await r.close();
  });

  it("a live iterator learns of a truncateTo below it (PAGELOG_TRUNCATED), even one refilled past the old end", async () => {
    for (const refill of [0, 30]) {
      const sim = new SimStorage({ seed: 13 + refill });
      const { w, writer, r } = await pair(sim);
      await appendBatches(writer, 10, 2);
      const reader = await r.log(NAME);
      const it = reader.records();
      expect(await drain(it, 15)).toEqual([...Array(15).keys()]);
      await writer.truncateTo(8);
      // Other records at the same offsets, filling the file past its old size again.
      for (let i = 0; i < refill; i++) await writer.append([{ key: "other", value: `o${i}`, timestamp: 5 }]);
      await reader.refresh();
      await expectCode(() => it.next(), ErrorCode.TRUNCATED);
      expect(reader.endOffset).toBe(8 + refill);
      const again = await readAll(reader);
      expect(again.slice(0, 8).map((x) => x.offset)).toEqual([...Array(8).keys()]);
      expect(again.slice(8).map((x) => x.value)).toEqual(Array.from({ length: refill }, (_, i) => `o${i}`));
      await r.close();
      await w.close();
    }
  });

  it("a truncateTo at or above an iterator's position only drops what it read ahead", async () => {
    const sim = new SimStorage({ seed: 15 });
    const { w, writer, r } = await pair(sim, SMALL);
    await appendBatches(writer, 30, 2);
    const reader = await r.log(NAME);
    const it = reader.records();
    expect(await drain(it, 5)).toEqual([0, 1, 2, 3, 4]);
    await writer.truncateTo(20); // into an older segment: the later ones are deleted
    await writer.append([{ key: "n", value: "new", timestamp: 1 }]);
    await reader.refresh();
    const rest = [];
    for await (const rec of it) rest.push(rec.offset);
    expect(rest).toEqual([...Array(16).keys()].map((i) => i + 5));
    expect((await reader.read(20)).map((x) => plain(x).value)).toEqual(["new"]);
    await r.close();
    await w.close();
  });

  it("retention deleting segments moves the start; an iterator it passed is OFFSET_OUT_OF_RANGE", async () => {
    const sim = new SimStorage({ seed: 16 });
    const { w, writer, r } = await pair(sim, SMALL);
    await appendBatches(writer, 40, 2);
    const reader = await r.log(NAME);
    const it = reader.records();
    await drain(it, 1);
    await writer.deleteRecordsBefore(50);
    await reader.refresh();
    expect(reader.startOffset).toBe(50);
    expect(reader.segmentBaseOffsets[0]).toBe(writer.segmentBaseOffsets[0]);
    await expectCode(async () => {
      for await (const _ of it);
    }, ErrorCode.OFFSET_OUT_OF_RANGE);
    expect((await readAll(reader)).map((x) => x.offset)).toEqual([...Array(30).keys()].map((i) => i + 50));
    await r.close();
    await w.close();
  });

  it("the recovery point follows the writer's flushes (its published durable offset), not only its checkpoint", async () => {
    const sim = new SimStorage({ seed: 17 });
    const { w, writer, r } = await pair(sim);
    await appendBatches(writer, 3, 2);
    const reader = await r.log(NAME);
    expect(reader.recoveryPoint).toBe(0);
    await writer.flush();
    await reader.refresh();
    expect(reader.recoveryPoint).toBe(6); // flushed, not checkpointed yet: the published offset
    await appendBatches(writer, 2, 2);
    await writer.flush();
    // A published value that is not a valid one (zeros): the checkpoint alone.
    const published = await sim.open(`${NAME}/pagelog-durable-offset`);
    await published.write(0, new Uint8Array(16));
    await published.close();
    await reader.refresh();
    expect(reader.recoveryPoint).toBe(6);
    await w.checkpoint();
    await reader.refresh();
    expect(reader.recoveryPoint).toBe(10);
    await r.close();
    await w.close();
  });

  it("follows a writer that is killed and reopened (its recovery) while the reader is open", async () => {
    const sim = new SimStorage({ seed: 18 });
    const first = killable(sim);
    const w1 = await LogDir.open(first.storage, { log: SMALL });
    const writer1 = await w1.log(NAME);
    const model = await appendBatches(writer1, 12, 2);
    await writer1.flush();
    await w1.checkpoint();
    model.push(...(await appendBatches(writer1, 5, 2))); // unflushed: still in the page cache
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    const it = reader.records();
    const seen = await drain(it, 20);
    await first.kill();
    // A half-written batch the killed process left at the tail.
    const active = segPath(writer1.segmentBaseOffsets.at(-1)!, ".log");
    await writeFile(sim, active, await fileSize(sim, active), new Uint8Array(25).fill(7));
    await reader.refresh();
    const w2 = await LogDir.open(sim, { log: SMALL });
    const writer2 = await w2.log(NAME);
    expect(writer2.endOffset).toBe(34);
    model.push(...(await appendBatches(writer2, 6, 2)));
    await reader.refresh();
    for await (const rec of it) seen.push(rec.offset);
    expect(seen).toEqual([...Array(46).keys()]);
    expect(await readAll(reader)).toEqual(model);
    await r.close();
    await w2.close();
  });

  it("an empty partition directory: the writer's first segment shows up at a refresh", async () => {
    const sim = new SimStorage({ seed: 19 });
    await sim.mkdir(NAME);
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    expect(await reader.refresh()).toBe(0);
    const w = await LogDir.open(sim);
    const writer = await w.log(NAME);
    const model = await appendBatches(writer, 2, 3);
    expect(await reader.refresh()).toBe(6);
    expect(await readAll(reader)).toEqual(model);
    await r.close();
    await w.close();
  });

  it("a writable log's refresh resolves its own end at once", async () => {
    const sim = new SimStorage({ seed: 20 });
    const w = await LogDir.open(sim);
    const log: Log = await w.log(NAME);
    await appendBatches(log, 2, 1);
    expect(await log.refresh()).toBe(2);
    await w.close();
  });
});

describe("read-only follow (polling)", () => {
  it("a follower sees what another writer appends, every pollMs, across rolls, with no gap or duplicate", async () => {
    const sim = new SimStorage({ seed: 21 });
    const w = await LogDir.open(sim, { log: SMALL });
    const writer = await w.log(NAME);
    const model = await appendBatches(writer, 2, 2);
    const r = await LogDir.open(sim, { readOnly: true, pollMs: 2 });
    const reader = await r.log(NAME);
    const ac = new AbortController();
    const seen: number[] = [];
    const following = (async () => {
      for await (const rec of reader.records({ follow: true, signal: ac.signal })) {
        seen.push(rec.offset);
        if (seen.length === 60) ac.abort();
      }
    })().catch((err: unknown) => err);
    for (let i = 0; i < 28; i++) {
      model.push(...(await appendBatches(writer, 1, 2)));
      if (i % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ended = await following;
    expect((ended as Error).name).toBe("AbortError");
    expect(seen).toEqual([...Array(60).keys()]);
    expect(reader.segmentCount).toBe(writer.segmentCount);
    await r.close();
    await w.close();
  });

  it("waitFor and a durable follower wake when the writer's checkpoint moves; close ends a waiting follower", async () => {
    const sim = new SimStorage({ seed: 22 });
    const w = await LogDir.open(sim, { checkpointIntervalMs: -1 });
    const writer = await w.log(NAME);
    await appendBatches(writer, 2, 2);
    const r = await LogDir.open(sim, { readOnly: true, pollMs: 1 });
    const reader = await r.log(NAME);
    const durable: number[] = [];
    const follower = (async () => {
      for await (const rec of reader.records({ follow: true, durable: true })) durable.push(rec.offset);
    })().catch((err: unknown) => err);
    const waited = reader.waitFor(5);
    await appendBatches(writer, 1, 2);
    expect(await waited).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(durable).toEqual([]); // appended, not checkpointed
    await writer.flush();
    await w.checkpoint();
    await reader.waitFor(3, { durable: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(durable).toEqual([0, 1, 2, 3, 4, 5]);
    await r.close();
    const ended = await follower;
    expect((ended as { code?: string }).code).toBe(ErrorCode.CLOSED);
    await w.close();
  });
});

describe("read-only reads racing the writer's retention", () => {
  it("a segment deleted since the last refresh is OFFSET_OUT_OF_RANGE, never CORRUPT", async () => {
    const sim = new SimStorage({ seed: 23 });
    const w = await LogDir.open(sim, { log: SMALL });
    const writer = await w.log(NAME);
    await appendBatches(writer, 40, 2);
    await writer.flush();
    await w.checkpoint(); // the reader trusts (leaves idle) the segments below the recovery point
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    await writer.deleteRecordsBefore(50);
    await expectCode(() => reader.read(0), ErrorCode.OFFSET_OUT_OF_RANGE);
    await reader.refresh();
    expect(reader.startOffset).toBe(50);
    expect((await reader.read(50)).map(plain)[0]).toEqual(expectedAt(50));
    await r.close();
    await w.close();
  });
});

describe("read-only cuts in segments the reader never walked", () => {
  it("a truncateTo into an old trusted segment, refilled past its old end, is a cut where the writer cut", async () => {
    const sim = new SimStorage({ seed: 24 });
    const w = await LogDir.open(sim, { log: SMALL, checkpointIntervalMs: -1 });
    const writer = await w.log(NAME);
    await appendBatches(writer, 40, 2);
    await writer.flush();
    await w.checkpoint();
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    // An old segment, below the recovery point: trusted at open, never walked.
    const bases = writer.segmentBaseOffsets;
    const at = bases.findIndex((b, i) => i > 0 && i + 2 < bases.length && bases[i + 1]! - b >= 6);
    const [base, end] = [bases[at]!, bases[at + 1]!];
    const it = reader.records({ from: base });
    expect(await drain(it, 4)).toEqual([base, base + 1, base + 2, base + 3]);
    await writer.truncateTo(base + 2);
    for (let i = 0; i < 30; i++) await writer.append([{ key: "other", value: `o${i}`, timestamp: 5 }]);
    expect(writer.endOffset).toBeGreaterThan(end);
    await reader.refresh();
    // Records base+2 and base+3 it handed out are gone: never spliced with the new ones.
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    const values = (await reader.read(base + 2)).map((x) => plain(x).value);
    expect(values[0]).toBe("o0");
    await r.close();
    await w.close();
  });
});

describe("read-only getters while a refresh is in progress", () => {
  it("a truncateTo into an idle first segment: every getter answers at every step of the refresh", async () => {
    const sim = new SimStorage({ seed: 25 });
    const w = await LogDir.open(sim, { log: SMALL, checkpointIntervalMs: -1 });
    const writer = await w.log(NAME);
    await appendBatches(writer, 40, 2);
    await writer.flush();
    await w.checkpoint(); // the reader leaves the old segments idle
    const r = await LogDir.open(sim, { readOnly: true });
    const reader = await r.log(NAME);
    const cut = 1 + (writer.segmentBaseOffsets[1]! >> 1); // inside the first segment
    await writer.truncateTo(cut);
    const seen: Array<[number, number]> = [];
    let done = false;
    const refreshing = reader.refresh().finally(() => (done = true));
    // The getters run outside the log's queue: look at them between every two steps of the refresh.
    while (!done) {
      seen.push([reader.startOffset, reader.endOffset]);
      void [reader.recoveryPoint, reader.size, reader.segmentCount, reader.segmentBaseOffsets];
      await Promise.resolve();
    }
    expect(await refreshing).toBe(cut);
    // The view before the refresh, then the one after it, published whole: never one half way.
    for (const [start, end] of seen) expect(["0-80", `0-${cut}`]).toContain(`${start}-${end}`);
    expect([reader.startOffset, reader.endOffset, reader.segmentBaseOffsets]).toEqual([
      0,
      cut,
      writer.segmentBaseOffsets,
    ]);
    await r.close();
    await w.close();
  });
});
