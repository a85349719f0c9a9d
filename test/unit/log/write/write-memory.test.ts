/**
 * Group writes encode into reused memory (src/log/write/write-memory.ts). What must hold: the views one
 * group gets never overlap; an arena goes back only after the group's writes settled, so a
 * storage that reads the caller's bytes late (as a thread-pool write does) still writes what was
 * appended, with more logs appending at once than there are arenas.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { WriteMemory } from "../../../../src/log/write/write-memory.js";
import { rm } from "node:fs/promises";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { rng } from "../../../support/xorshift.js";
import { makeTempDir } from "../helpers.js";

const taken: WriteMemory[] = [];
function take(): WriteMemory {
  const m = WriteMemory.take();
  taken.push(m);
  return m;
}
afterEach(() => {
  for (const m of taken.splice(0)) m.release();
});

describe("WriteMemory", () => {
  it("hands one group views that never overlap, and fresh memory past what is left", () => {
    const m = take();
    const views = [100, 5000, 1, 70_000].map((n) => m.allocate(n));
    views.forEach((v, i) => v.fill(i + 1));
    views.forEach((v, i) => expect(v.every((b) => b === i + 1)).toBe(true));
    const big = m.allocate(2 << 20); // larger than an arena
    expect(big.length).toBe(2 << 20);
    expect(big.buffer).not.toBe(views[0]!.buffer);
  });

  it("reuses an arena only once it is released", () => {
    const first = take();
    const a = first.allocate(64);
    const second = take();
    const b = second.allocate(64);
    expect(b.buffer).not.toBe(a.buffer); // both in use: two arenas (or fresh memory)
    first.release();
    first.release(); // idempotent: the arena is not given back twice
    const third = take();
    const fourth = take();
    expect(third.allocate(64).buffer).toBe(a.buffer);
    expect(fourth.allocate(64).buffer).not.toBe(a.buffer);
  });

  it("makes a bounded number of arenas however many groups are in flight", () => {
    const groups = Array.from({ length: 50 }, () => take());
    const buffers = new Set(groups.map((g) => g.allocate(16).buffer));
    // Arenas are shared buffers; the rest got memory of their own, 16 bytes each.
    const arenas = [...buffers].filter((b) => b.byteLength > 16);
    expect(arenas.length).toBeLessThanOrEqual(4);
    expect(arenas.length).toBeGreaterThan(0);
  });
});

describe("appends encoded into reused memory", () => {
  it("a storage that reads the bytes late writes what was appended, from 8 logs at once", async () => {
    // Every write waits a macrotask before it reads the caller's bytes: an arena given back (and
    // reused by another log's group) before the write settled would put that group's bytes on disk.
    const next = rng(23);
    const late = new HookedStorage(new SimStorage({ seed: 7 }), async (op, run) => {
      // 0-3 turns of the event loop: the writes of different logs settle in every order.
      if (op.kind === "write")
        for (let hops = next(4); hops > 0; hops--) await new Promise((resolve) => setImmediate(resolve));
      return run();
    });
    const dir = await LogDir.open(late);
    const names = Array.from({ length: 8 }, (_, i) => `t-${i}`);
    const logs = await Promise.all(names.map((n) => dir.log(n)));
    const expected = names.map(() => [] as string[]);
    // One producer per log, each awaiting its appends (one or two in flight): every log's next
    // group starts when its last write settles, while the other logs' writes are still waiting.
    let rounds = 0;
    await Promise.all(
      logs.map(async (log, l) => {
        for (let round = 0; round < 40; round++) {
          const inFlight = Array.from({ length: 1 + next(2) }, (_, k) => {
            const values = Array.from(
              { length: 1 + next(5) },
              (_, i) => `${l}:${round}:${k}:${i}:${"x".repeat(next(3000))}`,
            );
            expected[l]!.push(...values);
            return log.append(values.map((value) => ({ value })));
          });
          await Promise.all(inFlight);
          rounds++;
        }
      }),
    );
    expect(rounds).toBe(8 * 40);
    for (let l = 0; l < logs.length; l++) {
      const got: string[] = [];
      for await (const r of logs[l]!.records()) got.push(new TextDecoder().decode(r.value!));
      expect(got).toEqual(expected[l]);
    }
    await dir.close();
  });

  it("batches that start inside an arena (a roll between a group's batches) are written whole, on real files", async () => {
    // Small segments and batches: a group of many appends is several batches, and a roll between
    // two of them writes the later one alone from the middle of the arena (a view at an offset).
    const path = await makeTempDir();
    const storage = await FsStorage.open(path);
    try {
      const dir = await LogDir.open(storage, { log: { segmentBytes: 8192, maxBatchBytes: 4096 } });
      const log = await dir.log("t-0");
      const next = rng(5);
      const expected: string[] = [];
      for (let round = 0; round < 20; round++) {
        const calls = Array.from({ length: 6 }, (_, k) => {
          const value = `${round}:${k}:${"y".repeat(200 + next(1500))}`;
          expected.push(value);
          return log.append([{ value }]);
        });
        await Promise.all(calls);
      }
      expect(log.segmentCount).toBeGreaterThan(5);
      await dir.close();
      const again = await LogDir.open(storage, { log: { segmentBytes: 8192, maxBatchBytes: 4096 } });
      const got: string[] = [];
      for await (const r of (await again.log("t-0")).records()) got.push(new TextDecoder().decode(r.value!));
      expect(got).toEqual(expected);
      await again.close();
    } finally {
      await storage.close();
      await rm(path, { recursive: true, force: true });
    }
  });
});
