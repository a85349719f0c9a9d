/**
 * The background cleaner copies outside the log's queue and swaps in it (issue 36, item 3): the
 * log's calls land while a group's `.cleaned` files are written and before its swap. Seeded
 * races: at the fsync of the n-th `.cleaned` file (its copy done, its swap not begun), appends,
 * tombstones, a `truncateTo`, a `deleteRecordsBefore` or a `compact()` run to completion; the swap
 * that follows must notice what changed. Nothing appended and not truncated is lost (the latest
 * record of every key is there), nothing truncated or superseded-and-cleaned comes back, no
 * `.cleaned` file is left, and a reopen reads the same.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { backgroundCleanerOf } from "../../../../src/log/compaction/background-cleaner.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, readAll, type PlainRecord } from "../helpers.js";

const OPTIONS = {
  cleanupPolicy: "compact,delete" as const,
  segmentBytes: 400,
  indexIntervalBytes: 100,
  minCleanableDirtyRatio: 0.2,
};

const RUNS = 24;

type Action = "append" | "tombstones" | "truncate" | "delete-records" | "compact" | "truncate-and-append";
const ACTIONS: readonly Action[] = [
  "append",
  "tombstones",
  "truncate",
  "delete-records",
  "compact",
  "truncate-and-append",
];

/** What the log must hold: every record appended and not truncated, below the log start gone. */
interface Model {
  records: PlainRecord[];
  start: number;
}

async function append(log: Log, model: Model, key: string, value: string | null): Promise<void> {
  const timestamp = Date.now(); // (tombstones stay: deleteRetentionMs is far longer than the test)
  const { baseOffset } = await log.append([{ key, value, timestamp }]);
  model.records.push({ offset: baseOffset, timestamp, key, value, headers: [] });
}

/**
 * `records` is a compaction of `model`: each record present was appended (and not truncated) at
 * its offset, and for every key the latest record at or past the start is present. (Tombstones
 * are never older than deleteRetentionMs here: the latest record of a key is always kept.)
 */
function expectCompaction(records: readonly PlainRecord[], model: Model, seed: number, what: string): void {
  const live = model.records.filter((r) => r.offset >= model.start);
  const byOffset = new Map(live.map((r) => [r.offset, r]));
  for (const r of records)
    expect(r, `seed ${seed} ${what}: offset ${r.offset} resurrected or wrong`).toEqual(byOffset.get(r.offset));
  for (let i = 1; i < records.length; i++) expect(records[i]!.offset).toBeGreaterThan(records[i - 1]!.offset);
  const latest = new Map<string | null, number>();
  for (const r of live) latest.set(r.key, r.offset);
  const present = new Set(records.map((r) => r.offset));
  for (const [key, offset] of latest)
    expect(present.has(offset), `seed ${seed} ${what}: latest of ${key} at ${offset} lost`).toBe(true);
}

async function race(seed: number): Promise<{ action: Action; acted: boolean }> {
  const draw = rng(seed);
  const sim = new SimStorage({ seed });
  const state: { hook: ((path: string) => Promise<void>) | undefined } = { hook: undefined };
  const storage = new HookedStorage(sim, async (op, run) => {
    if (op.kind === "sync" && op.path.endsWith(".cleaned")) await state.hook?.(op.path);
    return run();
  });
  const dir = await LogDir.open(storage, { log: { ...OPTIONS, deleteRetentionMs: 10 ** 9 } });
  const log = await dir.log(NAME);
  const model: Model = { records: [], start: 0 };
  const keys = 2 + draw(10);
  const action = ACTIONS[draw(ACTIONS.length)]!;
  // Which `.cleaned` fsync the calls land at: the copy of some group is done, its swap not begun.
  const at = draw(6);
  let acted = false;
  let syncs = 0;
  let compacted: Promise<unknown> = Promise.resolve();
  state.hook = async () => {
    if (acted || syncs++ !== at) return;
    acted = true;
    // The calls complete here, while the cleaner waits for this fsync outside the queue.
    const end = log.endOffset;
    const start = log.startOffset;
    switch (action) {
      case "append":
        for (let i = 0; i < 1 + draw(20); i++) await append(log, model, `key-${draw(keys)}`, `during-${i}`);
        break;
      case "tombstones":
        for (let i = 0; i < 1 + draw(8); i++) await append(log, model, `key-${draw(keys)}`, null);
        break;
      case "truncate":
      case "truncate-and-append": {
        const cut = start + draw(end - start);
        await log.truncateTo(cut);
        model.records = model.records.filter((r) => r.offset < cut);
        if (action === "truncate-and-append")
          for (let i = 0; i < 1 + draw(30); i++) await append(log, model, `key-${draw(keys)}`, `after-cut-${i}`);
        break;
      }
      case "delete-records": {
        const to = start + draw(end - start + 1);
        await log.deleteRecordsBefore(to);
        model.start = Math.max(model.start, to);
        break;
      }
      case "compact":
        // Not awaited here: compact() waits for the pass to stop, which waits for this fsync.
        compacted = log.flush().then(() => log.compact());
        break;
    }
  };
  for (let i = 0; i < 60 + draw(80); i++) {
    const tombstone = draw(8) === 0;
    await append(log, model, `key-${draw(keys)}`, tombstone ? null : `v${i}`);
  }
  await log.flush();
  const cleaner = backgroundCleanerOf(log)!;
  await cleaner.idle();
  await compacted;
  state.hook = undefined;
  await log.flush();
  await cleaner.idle();
  expectCompaction(await readAll(log), model, seed, `${action} at .cleaned sync ${at}`);
  expect((await sim.list(NAME)).filter((n) => n.endsWith(".cleaned"))).toEqual([]);
  await dir.close();
  const again = await LogDir.open(sim, { log: { ...OPTIONS, deleteRetentionMs: 10 ** 9 } });
  const reopened = await again.log(NAME);
  expectCompaction(await readAll(reopened), model, seed, `${action}, reopened`);
  await again.close();
  return { action, acted };
}

describe("calls that land between a background cleaning's copy and its swap", () => {
  it("appends, tombstones, truncateTo, deleteRecordsBefore, compact(): nothing lost, nothing resurrected (seeded)", async () => {
    const seed = testSeed();
    const landed = new Set<Action>();
    for (let run = 0; run < RUNS; run++) {
      const { action, acted } = await race(seed + run);
      if (acted) landed.add(action);
    }
    // The races did land between a copy and a swap (not all after the cleaning).
    expect(landed.size).toBeGreaterThan(0);
  });

  it("a truncation between the copy and the swap abandons that swap; appends do not", async () => {
    for (const action of ["truncate-and-append", "append"] as const) {
      const sim = new SimStorage({ seed: 5 });
      let fire: (() => Promise<void>) | undefined;
      const storage = new HookedStorage(sim, async (op, run) => {
        if (op.kind === "sync" && op.path.endsWith(".log.cleaned") && fire !== undefined) {
          const f = fire;
          fire = undefined;
          await f();
        }
        return run();
      });
      const dir = await LogDir.open(storage, { log: { ...OPTIONS, minCleanableDirtyRatio: 0.9 } });
      const log = await dir.log(NAME);
      const model: Model = { records: [], start: 0 };
      for (let i = 0; i < 120; i++) await append(log, model, `key-${i % 7}`, `v${i}`);
      const cleaner = backgroundCleanerOf(log)!;
      await cleaner.idle();
      const abandoned = cleaner.abandoned;
      // Fired by the next background cleaning's copy, which these appends make due.
      fire = async () => {
        if (action === "truncate-and-append") {
          await log.truncateTo(60);
          model.records = model.records.filter((r) => r.offset < 60);
        }
        for (let i = 0; i < 40; i++) await append(log, model, `key-${i % 7}`, `w${i}`);
      };
      for (let i = 0; i < 200; i++) await append(log, model, `key-${i % 7}`, `x${i}`);
      await log.flush();
      await cleaner.idle();
      expect(fire, "the race ran").toBeUndefined();
      if (action === "truncate-and-append") expect(cleaner.abandoned).toBeGreaterThan(abandoned);
      else expect(cleaner.abandoned).toBe(abandoned);
      expectCompaction(await readAll(log), model, 5, action);
      await dir.close();
    }
  });
});
