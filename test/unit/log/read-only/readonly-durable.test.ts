/**
 * A read-only log's durable reads (guarantee 12) beside a writer that truncates: never a record
 * above what the writer made durable. The recovery point a reader trusts comes from the writer's
 * checkpoint, read before the reader lists and walks the files; a truncateTo lowers that
 * checkpoint before it cuts, then the writer appends again without flushing. A checkpoint read
 * before the truncation, beside files read after it, would pass those unflushed records off as
 * durable: the reader must read the checkpoint again once it has read the files.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, appendBatches } from "../helpers.js";

/** `inner`, running `beforeList` (once, when armed) just before the partition is listed. */
function listingHook(inner: Storage): { storage: Storage; arm: (beforeList: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const storage: Storage = {
    open: (path, options) => inner.open(path, options),
    stat: (path) => inner.stat(path),
    list: async (dir) => {
      const run = dir === NAME ? hook : undefined;
      if (run !== undefined) {
        hook = undefined;
        await run();
      }
      return inner.list(dir);
    },
    mkdir: (dir) => inner.mkdir(dir),
    remove: (path) => inner.remove(path),
    rename: (from, to) => inner.rename(from, to),
    syncDir: (dir) => inner.syncDir(dir),
    lock: (path) => inner.lock(path),
    close: () => inner.close(),
  };
  return { storage, arm: (beforeList) => void (hook = beforeList) };
}

/** The offsets a durable `records()` yields, from the start to the recovery point. */
async function durableOffsets(reader: Log): Promise<number[]> {
  const out: number[] = [];
  for await (const record of reader.records({ durable: true })) out.push(record.offset);
  return out;
}

/** What a writer holds durably and what it appended after a truncation, drawn from `seed`. */
function draw(seed: number): { flushed: number; cutAt: number; unflushed: number; seen: number } {
  const next = rng(seed);
  const flushed = 8 + next(20);
  const seen = 1 + next(flushed - 2); // what the reader walked before (below the cut)
  const cutAt = seen + next(flushed - seen); // the truncation point, at or past what the reader saw
  // Refilled past where the durable records ended: the old recovery point is below the new end.
  const unflushed = flushed - cutAt + 1 + next(10);
  return { flushed, cutAt, unflushed, seen };
}

describe("read-only durable reads beside a writer's truncateTo", () => {
  it("a refresh that read the checkpoint before the writer truncated and appended does not call the new records durable", async () => {
    const seed = testSeed();
    const { flushed, cutAt, unflushed, seen } = draw(seed);
    const sim = new SimStorage({ seed });
    const w = await LogDir.open(sim, { log: { segmentBytes: 1 << 20 }, checkpointIntervalMs: -1 });
    const writer = await w.log(NAME);
    await appendBatches(writer, seen);
    await writer.flush();
    await w.checkpoint();
    const mount = listingHook(sim);
    const r = await LogDir.open(mount.storage, { readOnly: true });
    const reader = await r.log(NAME);
    expect([reader.endOffset, reader.recoveryPoint]).toEqual([seen, seen]);
    await appendBatches(writer, flushed - seen);
    await writer.flush();
    await w.checkpoint(); // the writer's durable point: `flushed`
    // The refresh reads that checkpoint, then (before it lists the files) the writer truncates
    // (checkpointing `cutAt` first) and appends records it never flushes.
    mount.arm(async () => {
      await writer.truncateTo(cutAt);
      await appendBatches(writer, unflushed);
    });
    await reader.refresh();
    expect(reader.endOffset).toBe(cutAt + unflushed);
    expect(writer.recoveryPoint).toBe(cutAt);
    expect(reader.recoveryPoint, `seed ${seed}`).toBeLessThanOrEqual(cutAt);
    expect(Math.max(-1, ...(await durableOffsets(reader))), `seed ${seed}`).toBeLessThan(cutAt);
    expect((await reader.read(cutAt, { durable: true })).length).toBe(0);
    // Once the writer flushes and checkpoints, they are durable.
    await writer.flush();
    await w.checkpoint();
    await reader.refresh();
    expect(reader.recoveryPoint).toBe(cutAt + unflushed);
    expect(await durableOffsets(reader)).toHaveLength(cutAt + unflushed);
    await r.close();
    await w.close();
  });

  const reads: Record<string, (reader: Log, from: number) => Promise<number[]>> = {
    "read()": async (reader, from) => (await reader.read(from, { durable: true })).map((record) => record.offset),
    "readBatches()": async (reader, from) => {
      const bytes = await reader.readBatches(from, { durable: true });
      return bytes.length === 0 ? [] : [from]; // any batch at all is too much here
    },
    "records()": async (reader) => durableOffsets(reader),
  };
  it.each(Object.keys(reads))(
    "a durable %s between refreshes, of files the writer truncated and refilled since, yields only what is durable",
    async (kind) => {
      const seed = testSeed();
      const { flushed, cutAt, unflushed } = draw(seed);
      const sim = new SimStorage({ seed });
      const w = await LogDir.open(sim, { log: { segmentBytes: 1 << 20 }, checkpointIntervalMs: -1 });
      const writer = await w.log(NAME);
      await appendBatches(writer, flushed);
      await writer.flush();
      await w.checkpoint();
      const r = await LogDir.open(sim, { readOnly: true });
      const reader = await r.log(NAME);
      expect(reader.recoveryPoint).toBe(flushed);
      // No refresh from here: the reader's view still says `flushed` is durable; the files do not.
      await writer.truncateTo(cutAt);
      await appendBatches(writer, unflushed);
      const offsets = await reads[kind]!(reader, cutAt);
      expect(Math.max(-1, ...offsets), `seed ${seed}`).toBeLessThan(cutAt);
      expect(reader.recoveryPoint, `seed ${seed}`).toBeLessThanOrEqual(cutAt);
      await r.close();
      await w.close();
    },
  );

  it("a log opened from a directory whose checkpoint was read before the writer truncated and appended", async () => {
    const seed = testSeed();
    const { flushed, cutAt, unflushed } = draw(seed);
    const sim = new SimStorage({ seed });
    const w = await LogDir.open(sim, { log: { segmentBytes: 1 << 20 }, checkpointIntervalMs: -1 });
    const writer = await w.log(NAME);
    await appendBatches(writer, flushed);
    await writer.flush();
    await w.checkpoint();
    // The read-only directory reads the checkpoints when it opens; its log is opened later.
    const r = await LogDir.open(sim, { readOnly: true });
    await writer.truncateTo(cutAt);
    await appendBatches(writer, unflushed);
    const reader = await r.log(NAME);
    expect(reader.endOffset).toBe(cutAt + unflushed);
    expect(reader.recoveryPoint, `seed ${seed}`).toBeLessThanOrEqual(cutAt);
    expect(Math.max(-1, ...(await durableOffsets(reader))), `seed ${seed}`).toBeLessThan(cutAt);
    await r.close();
    await w.close();
  });
});
