/**
 * A durable follower in another process (here: a read-only LogDir on the same SimStorage disk)
 * sees a record at its next poll after the writer's flush resolved, not at the writer's next
 * recovery-point checkpoint (60 s by default): the writer publishes its durable offset in
 * `<partition>/pagelog-durable-offset` after each flush. A torn, foreign or stale file is never
 * taken for more than it is: the reader falls back to the checkpoint.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { DURABLE_OFFSET_FILE, encodeDurableOffset } from "../../../../src/format/durable-offset.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, recordAt } from "../helpers.js";

const POLL_MS = 20;

/** Offsets a durable `records()` of the reader yields now (after a refresh). */
async function durableNow(reader: Log): Promise<number> {
  await reader.refresh();
  let n = 0;
  for await (const _ of reader.records({ durable: true })) n++;
  return n;
}

describe("read-only durable reads follow the writer's flushes, not its checkpoint", () => {
  it("durable follower in a second opener: yields a flushed record within pollMs + 100 ms", async () => {
    const next = rng(testSeed());
    const sim = new SimStorage({ seed: 1 });
    // Kafka's default checkpoint interval: the checkpoint alone would hold the follower for 60 s.
    const writerDir = await LogDir.open(sim, { checkpointIntervalMs: 60_000 });
    const writer = await writerDir.log(NAME);
    await writer.append([recordAt(0)]);
    const readerDir = await LogDir.open(sim, { readOnly: true, pollMs: POLL_MS });
    const reader = await readerDir.log(NAME);
    const controller = new AbortController();
    const yieldedAt: number[] = [];
    const following = (async () => {
      for await (const r of reader.records({ follow: true, durable: true, signal: controller.signal })) {
        yieldedAt[r.offset] = performance.now();
      }
    })().catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
    const rounds = 3 + next(4);
    const latencies: number[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        const first = writer.endOffset;
        const count = 1 + next(5);
        await writer.append(Array.from({ length: count }, (_, i) => recordAt(first + i)));
        await new Promise((resolve) => setTimeout(resolve, next(2 * POLL_MS)));
        expect(yieldedAt[writer.endOffset - 1], "an unflushed record is never yielded").toBeUndefined();
        await writer.flush();
        const flushedAt = performance.now();
        const deadline = flushedAt + POLL_MS + 100;
        while (yieldedAt[writer.endOffset - 1] === undefined && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 2));
        expect(yieldedAt[writer.endOffset - 1], `round ${round}: yielded within ${POLL_MS} + 100 ms`).toBeDefined();
        latencies.push(yieldedAt[writer.endOffset - 1]! - flushedAt);
      }
    } finally {
      controller.abort();
      await following;
      await readerDir.close();
      await writerDir.close();
    }
    expect(Math.max(...latencies)).toBeLessThanOrEqual(POLL_MS + 100);
  });

  it("durable follower in a second opener: woken by the writer's rolls alone (no flush())", async () => {
    const sim = new SimStorage({ seed: 3 });
    // Flushing off and Kafka's checkpoint interval: only the roll flush can move what is durable.
    const writerDir = await LogDir.open(sim, { checkpointIntervalMs: 60_000, log: { segmentBytes: 300 } });
    const writer = await writerDir.log(NAME);
    await writer.append([recordAt(0)]);
    const readerDir = await LogDir.open(sim, { readOnly: true, pollMs: POLL_MS });
    const reader = await readerDir.log(NAME);
    try {
      const rolls = writer.segmentCount + 3;
      while (writer.segmentCount < rolls) await writer.append([recordAt(writer.endOffset)]);
      const base = writer.segmentBaseOffsets.at(-1)!;
      // The writer's roll flush moves its recovery point to the active segment's base ...
      await writer.waitFor(base - 1, { durable: true, signal: AbortSignal.timeout(5000) });
      const rolledAt = performance.now();
      // ... and the reader's durable follower yields up to it within pollMs + 100 ms.
      const seen = await reader.waitFor(base - 1, { durable: true, signal: AbortSignal.timeout(5000) });
      expect(seen).toBeGreaterThanOrEqual(base);
      expect(performance.now() - rolledAt).toBeLessThanOrEqual(POLL_MS + 100);
      expect(await durableNow(reader), "never past what the writer made durable").toBe(writer.recoveryPoint);
    } finally {
      await readerDir.close();
      await writerDir.close();
    }
  });

  it("torn or foreign durable-offset file: the reader falls back to the checkpoint, never above it", async () => {
    const next = rng(testSeed());
    const sim = new SimStorage({ seed: 2 });
    const writerDir = await LogDir.open(sim, { checkpointIntervalMs: 60_000 });
    const writer = await writerDir.log(NAME);
    const flushed = 2 + next(10);
    await writer.append(Array.from({ length: flushed }, (_, i) => recordAt(i)));
    await writer.flush();
    await writerDir.checkpoint(); // the checkpoint says `flushed`
    await writer.append(Array.from({ length: 1 + next(10) }, (_, i) => recordAt(flushed + i)));
    const readerDir = await LogDir.open(sim, { readOnly: true, pollMs: POLL_MS });
    const reader = await readerDir.log(NAME);
    const path = `${NAME}/${DURABLE_OFFSET_FILE}`;
    const valid = encodeDurableOffset(writer.endOffset); // a value above durable, made invalid below
    const torn = valid.slice();
    torn[4 + next(8)]! ^= 1 << next(8); // one bit of the offset flipped: the CRC no longer matches
    for (const bytes of [torn, valid.subarray(0, 8 + next(8)), new TextEncoder().encode("not ours at all!")]) {
      const file = await sim.open(path, { create: true });
      await file.truncate(0);
      await file.write(0, bytes);
      await file.close();
      expect(await durableNow(reader)).toBe(flushed);
    }
    await readerDir.close();
    await writerDir.close();
  });

  it("truncateTo below the published offset: the reader never takes the refilled records for durable", async () => {
    const next = rng(testSeed());
    const sim = new SimStorage({ seed: 3 });
    const writerDir = await LogDir.open(sim, { checkpointIntervalMs: 60_000 });
    const writer = await writerDir.log(NAME);
    const flushed = 4 + next(10);
    await writer.append(Array.from({ length: flushed }, (_, i) => recordAt(i)));
    await writer.flush();
    const readerDir = await LogDir.open(sim, { readOnly: true, pollMs: POLL_MS });
    const reader = await readerDir.log(NAME);
    expect(await durableNow(reader)).toBe(flushed); // the published offset, with no checkpoint yet
    const cut = 1 + next(flushed - 1);
    await writer.truncateTo(cut);
    await writer.append(Array.from({ length: flushed - cut + 1 + next(5) }, (_, i) => recordAt(cut + i, 7)));
    expect(await durableNow(reader)).toBeLessThanOrEqual(cut);
    await writer.flush();
    expect(await durableNow(reader)).toBe(writer.endOffset);
    await readerDir.close();
    await writerDir.close();
  });
});
