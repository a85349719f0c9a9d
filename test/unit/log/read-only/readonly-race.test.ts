/**
 * A read-only LogDir following a writer (another LogDir on the same storage: another process)
 * that mixes appends, flushes, checkpoints, truncateTo, deleteRecordsBefore and compaction, with
 * the reader's refreshes, reads and followers (one of them durable) racing each of the writer's
 * calls. Every value is unique, so a record the reader yields names the offset it was appended
 * at, and a durable read (guarantee 12) yields only values a writer's flush covered. The reader's
 * getters are looked at after every storage call either side makes (mid-refresh included): they
 * never throw and never show a start past the end, nor a recovery point past it. The reader ends only with PAGELOG_TRUNCATED or
 * PAGELOG_OFFSET_OUT_OF_RANGE (its follower starts again), never a TypeError or PAGELOG_CORRUPT,
 * and after a last refresh it reads exactly what the writer holds.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../../../src/storage/storage.js";
import { BUDGET } from "../../../support/budget.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, plain, readAll } from "../helpers.js";

const STEPS = 160;

/** Runs `probe` after every call on the storage and on the files it opened. */
function probing(inner: Storage, probe: () => void): Storage {
  const after = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } finally {
      probe();
    }
  };
  const file = (f: StorageFile): StorageFile => ({
    path: f.path,
    size: () => after(f.size()),
    read: (position, length) => after(f.read(position, length)),
    write: (position, bytes) => after(f.write(position, bytes)),
    truncate: (length) => after(f.truncate(length)),
    sync: () => after(f.sync()),
    close: () => after(f.close()),
  });
  return {
    open: async (path, options) => file(await after(inner.open(path, options))),
    stat: (path) => after(inner.stat(path)),
    list: (dir) => after(inner.list(dir)),
    mkdir: (dir) => after(inner.mkdir(dir)),
    remove: (path) => after(inner.remove(path)),
    rename: (from, to) => after(inner.rename(from, to)),
    syncDir: (dir) => after(inner.syncDir(dir)),
    lock: (path) => after(inner.lock(path)),
    close: () => after(inner.close()),
  };
}

/** A reader's failure that a race with the writer may cause: the history it read changed. */
function isRaceOutcome(err: unknown): boolean {
  return (
    err instanceof PagelogError && (err.code === ErrorCode.TRUNCATED || err.code === ErrorCode.OFFSET_OUT_OF_RANGE)
  );
}

async function race(base: Storage, seed: number, steps: number): Promise<void> {
  const draw = rng(seed);
  // Whether a read is durable: drawn apart, so the writer's and reader's steps stay those of `draw`.
  const drawDurable = rng(seed + 1);
  const problems = new Set<string>();
  let reader: Log | undefined;
  let noteDurable = (): void => undefined;
  const probe = (): void => {
    noteDurable();
    if (reader === undefined || reader.status !== "open") return;
    try {
      const { startOffset, endOffset, recoveryPoint } = reader;
      void [reader.size, reader.segmentBaseOffsets];
      if (startOffset > endOffset) problems.add(`getters: start ${startOffset} past end ${endOffset}`);
      if (recoveryPoint > endOffset) problems.add(`getters: recovery point ${recoveryPoint} past end ${endOffset}`);
    } catch (err) {
      problems.add(`getter threw: ${String(err)}`);
    }
  };
  const storage = probing(base, probe);
  const w = await LogDir.open(storage, {
    log: {
      segmentBytes: 400 + draw(400),
      indexIntervalBytes: 64,
      cleanupPolicy: "compact",
      minCleanableDirtyRatio: 0.2,
      backgroundCleaning: draw(2) === 0,
    },
    checkpointIntervalMs: -1,
  });
  const writer = await w.log(NAME);
  // Every value is unique: the offset each was appended at tells a reader's record apart.
  const appendedAt = new Map<string, number>();
  // What the writer holds (offset to value), and every value it made durable: below its recovery
  // point (moved after the fsyncs of a flush, or of a truncateTo's), looked at after every storage
  // call, so before a reader can read a checkpoint that says so. A durable read may yield only
  // those (a truncation takes none back: they were durable when read).
  const writerHolds = new Map<number, string>();
  const flushed = new Set<string>();
  let durableSeen = -1;
  noteDurable = () => {
    if (writer.recoveryPoint === durableSeen) return;
    durableSeen = writer.recoveryPoint;
    for (const [at, value] of writerHolds) if (at < durableSeen) flushed.add(value);
  };
  let next = 0;
  const append = async (): Promise<void> => {
    const n = 1 + draw(4);
    const values = Array.from({ length: n }, () => `v${next++}`);
    const base = writer.endOffset; // in the queue's order: no other call of this test is in flight
    values.forEach((v, i) => (appendedAt.set(v, base + i), writerHolds.set(base + i, v)));
    await writer.append(values.map((value) => ({ key: `k${draw(6)}`, value, timestamp: 1_000 + next })));
  };
  const truncateTo = async (offset: number): Promise<void> => {
    for (const at of [...writerHolds.keys()]) if (at >= offset) writerHolds.delete(at);
    await writer.truncateTo(offset);
  };
  for (let i = 0; i < 20; i++) await append();
  await writer.flush();
  await w.checkpoint();

  const r = await LogDir.open(storage, { readOnly: true, pollMs: 1 });
  reader = await r.log(NAME);
  const stop = new AbortController();
  const check = (where: string, offset: number, value: string | null): void => {
    const at = value === null ? undefined : appendedAt.get(value);
    if (at !== offset) problems.add(`${where}: offset ${offset} holds ${String(value)}, appended at ${String(at)}`);
  };
  const checkFlushed = (where: string, offset: number, value: string | null): void => {
    if (value === null || !flushed.has(value)) problems.add(`${where}: offset ${offset} (${value}) was never flushed`);
  };
  let restarts = 0;
  const follow = async (durable: boolean): Promise<void> => {
    const where = durable ? "durable follower" : "follower";
    while (!stop.signal.aborted && problems.size === 0) {
      let last = -1;
      try {
        const records = reader.records({ from: reader.startOffset, follow: true, durable, signal: stop.signal });
        for await (const record of records) {
          const { offset, value } = plain(record);
          if (offset <= last) problems.add(`${where}: offset ${offset} after ${last}`);
          last = offset;
          check(where, offset, value);
          if (durable) checkFlushed(where, offset, value);
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        if (!isRaceOutcome(err))
          problems.add(`${where} ended with ${String(err)} (cause: ${String((err as Error).cause)})`);
        restarts++;
      }
    }
  };
  const followers = Promise.all([follow(false), follow(true)]);

  const writerStep = async (): Promise<void> => {
    const pick = draw(100);
    if (pick < 55) return append();
    if (pick < 65) return writer.flush();
    if (pick < 72) return w.checkpoint();
    const span = writer.endOffset - writer.startOffset;
    if (pick < 82) return truncateTo(writer.startOffset + draw(span + 1));
    if (pick < 87) return writer.deleteRecordsBefore(writer.startOffset + draw(Math.min(span, 6) + 1));
    await writer.compact();
  };
  const readerStep = async (): Promise<void> => {
    const pick = draw(3);
    if (pick === 0) return void (await reader.refresh());
    if (pick === 1) return;
    const span = reader.endOffset - reader.startOffset;
    if (span === 0) return;
    const from = reader.startOffset + draw(span);
    const durable = drawDurable(2) === 0;
    for (const record of await reader.read(from, { maxRecords: 4, durable })) {
      check("read", record.offset, plain(record).value);
      if (durable) checkFlushed("durable read", record.offset, plain(record).value);
    }
  };
  for (let step = 0; step < steps && problems.size === 0; step++) {
    const settled = await Promise.allSettled([writerStep(), readerStep()]);
    if (settled[0].status === "rejected") throw settled[0].reason;
    if (settled[1].status === "rejected" && !isRaceOutcome(settled[1].reason))
      problems.add(`reader call failed: ${String(settled[1].reason)}`);
  }
  stop.abort();
  await followers;
  expect([...problems], `seed ${seed}`).toEqual([]);
  // Caught up, the reader holds exactly what the writer does.
  await writer.flush();
  await reader.refresh();
  expect([reader.startOffset, reader.endOffset]).toEqual([writer.startOffset, writer.endOffset]);
  // Every record the writer holds, the reader holds the same. A cleaning at the same clean point
  // may leave the reader on the old files (docs/consumers.md): records the writer's cleaner
  // dropped since, still each at the offset it was appended at.
  const held = new Map((await readAll(reader)).map((record) => [record.offset, record]));
  for (const record of await readAll(writer)) expect(held.get(record.offset), `seed ${seed}`).toEqual(record);
  for (const record of held.values()) check("last read", record.offset, record.value);
  expect([...problems], `seed ${seed}`).toEqual([]);
  expect(restarts).toBeLessThan(2 * steps);
  await r.close();
  await w.close();
}

describe("read-only reader racing a writer that appends, truncates, deletes records and compacts", () => {
  // About 1 seed in 80 still ends a follower with a false PAGELOG_CORRUPT (the open defects
  // below), so under the ci budget this race runs fixed seeds that pass, and random ones only
  // under PAGELOG_BUDGET=soak: a random seed here
  // would fail about one CI run in twenty on a known defect, not on a change. Back to random
  // seeds once the open defects are fixed.
  it("SimStorage: every record read was appended at its offset; getters never throw; no false CORRUPT", async () => {
    const seed = BUDGET === "soak" ? testSeed() : 1;
    for (let run = 0; run < 4; run++) await race(new SimStorage({ seed: seed + run }), seed + run, STEPS);
  });

  // Open defects (issue 31, left open), each a seed that still fails; `it.fails` turns red when
  // one is fixed, so the fix moves it to the passing seeds. 122: a segment cut and refilled
  // after truncateTo past the clean point is never reloaded (refresh-cleaned.ts `cleanedSince`
  // stops at the first segment reaching past the clean point); 212, 217, 239, 389: reads of a
  // segment racing truncateTo ("valid batches end … below the recovery point", a short header,
  // a batch at an unexpected offset) reported as damage. (217 left the list when the writer
  // began publishing its durable offset: the extra file write moves that schedule off the race,
  // not a fix; seeds 200-299 fail the same two, 212 and 239, before and after.)
  it.fails.each([122, 212, 239, 389])(
    "SimStorage, open defect: seed %i still ends a follower falsely",
    async (seed) => {
      await race(new SimStorage({ seed }), seed, STEPS);
    },
  );

  it("SimStorage: pinned races where a follower read cleaned files newer than its clean point", async () => {
    // Each once ended a follower with a false PAGELOG_CORRUPT: its refresh read the writer's clean
    // point, then the cleaner raised it and swapped in files whose gaps (or emptied batches) the
    // follower read against the old one.
    for (const seed of [59, 64, 83, 91, 95]) await race(new SimStorage({ seed }), seed, STEPS);
  });

  it("FsStorage: the same race on real files", async () => {
    const seed = BUDGET === "soak" ? testSeed() : 1;
    const dir = await fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-ro-race-"));
    try {
      await race(await FsStorage.open(dir), seed, STEPS);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
