/**
 * Opening a log after a clean shutdown and after a crash: Kafka's LogLoaderTest scenarios that
 * apply, on SimStorage (and on FsStorage where a real reopen matters).
 */
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { SimStorage, keepEverything, keepNothing } from "../../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectedAt,
  fileSize,
  freshLog,
  makeTempDir,
  openSim,
  readAll,
  killable,
  readFile,
  recordAt,
  seededBytes,
  segPath,
  writeFile,
} from "../helpers.js";

/** Small segments (a few batches each) and an index entry per batch, so indexes have content. */
const SMALL = { segmentBytes: 600, indexIntervalBytes: 0 };

/** Exact-match lookups of every offset and every timestamp, against the model. */
async function checkLookups(
  log: Awaited<ReturnType<typeof freshLog>>["log"],
  model: ReturnType<typeof expectedAt>[],
): Promise<void> {
  for (const m of model) {
    const [first] = await log.read(m.offset, { maxRecords: 1 });
    expect(first?.offset).toBe(m.offset);
    // Timestamps increase with offsets in this model, so the first at-or-after is the record itself.
    expect(await log.offsetForTimestamp(m.timestamp)).toBe(m.offset);
  }
}

describe("recovery on SimStorage", () => {
  it("recovery: runs after a crash and not after a clean shutdown", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 20);
    expect(log.segmentCount).toBeGreaterThan(2);
    await dir.close();

    const clean = await openSim(sim);
    const reopened = await clean.log(NAME, SMALL);
    expect(reopened.recovery.clean).toBe(true);
    expect(reopened.recovery.segmentsScanned).toBe(0);
    expect(reopened.recovery.bytesScanned).toBe(0);
    expect(clean.recovery).toMatchObject({ clean: true, logsOpened: 1, segmentsScanned: 0 });
    expect(await readAll(reopened)).toEqual(model);
    model.push(...(await appendBatches(reopened, 3)));
    await reopened.flush();

    const crashed = await openSim(sim.crash(keepNothing));
    const recovered = await crashed.log(NAME, SMALL);
    expect(recovered.recovery.clean).toBe(false);
    expect(recovered.recovery.segmentsScanned).toBeGreaterThan(0);
    expect(crashed.recovery.clean).toBe(false);
    expect(await readAll(recovered)).toEqual(model);
  });

  it("recovery: recovers to the correct offset: flushed records never go, unflushed may", async () => {
    for (const chooser of [keepNothing, keepEverything]) {
      const { sim, log } = await freshLog(SMALL);
      const model = await appendBatches(log, 10);
      await log.flush();
      model.push(...(await appendBatches(log, 10, 2)));
      // The rolls' background flushes may have made more durable, never less.
      const durable = log.recoveryPoint;
      expect(durable).toBeGreaterThanOrEqual(10);
      const after = await (await openSim(sim.crash(chooser))).log(NAME, SMALL);
      if (chooser === keepNothing) expect(after.endOffset).toBeGreaterThanOrEqual(durable);
      const expected = chooser === keepNothing ? model.slice(0, after.endOffset) : model;
      expect(after.endOffset).toBe(expected.length);
      expect(await readAll(after)).toEqual(expected);
      // Progress: the next append continues right after what survived.
      expect((await after.append([recordAt(after.endOffset)])).baseOffset).toBe(expected.length);
    }
    // Random page fates, torn pages and directory prefixes: always a prefix holding the flushed part.
    for (let seed = 1; seed <= 12; seed++) {
      const { sim, log } = await freshLog(SMALL, seed);
      const model = await appendBatches(log, 8);
      await log.flush();
      model.push(...(await appendBatches(log, 12)));
      const after = await (await openSim(sim.crash())).log(NAME, SMALL);
      expect(after.endOffset, `seed ${seed}`).toBeGreaterThanOrEqual(8);
      expect(await readAll(after), `seed ${seed}`).toEqual(model.slice(0, after.endOffset));
    }
  });

  it("recovery: with a checkpointed recovery point, only the segment holding it is scanned", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 20);
    await log.flush();
    await dir.checkpoint();
    const segments = log.segmentCount;
    expect(segments).toBeGreaterThan(2);
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect(after.recovery.clean).toBe(false);
    expect(after.recovery.segmentsScanned).toBe(1);
    expect(after.segmentCount).toBe(segments);
    expect(await readAll(after)).toEqual(model);
  });

  it("recovery: a malformed recovery-point checkpoint counts as absent: recovery scans from offset 0", async () => {
    for (const garbage of [
      "",
      "0\n1\n",
      "1\n1\norders 0 5\n",
      "0\n1\norders 0 5",
      "0\n1\norders 0 x\n",
      "\u00ff\u00fe",
    ]) {
      const { sim, dir, log } = await freshLog(SMALL);
      const model = await appendBatches(log, 15);
      await log.flush();
      await dir.checkpoint();
      const rebooted = sim.crash(keepNothing);
      await writeFile(rebooted, RECOVERY_POINT_CHECKPOINT, 0, new TextEncoder().encode(garbage), { truncate: 0 });
      const after = await (await openSim(rebooted)).log(NAME, SMALL);
      expect(after.recovery.segmentsScanned, JSON.stringify(garbage)).toBe(after.segmentCount);
      expect(await readAll(after)).toEqual(model);
    }
  });

  it("recovery: deleted index files are rebuilt after a clean shutdown", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 20);
    const bases = log.segmentBaseOffsets;
    await dir.close();
    for (const base of bases) {
      await sim.remove(segPath(base, ".index"));
      await sim.remove(segPath(base, ".timeindex"));
    }
    const after = await (await openSim(sim)).log(NAME, SMALL);
    expect(after.recovery.clean).toBe(true);
    // The empty-index check cannot tell an empty log's missing index from a lost one: only
    // segments with data need a rebuild.
    // A clean open reads only the active segment; the old ones are rebuilt on first use.
    expect(after.recovery.indexesRebuilt).toBe(1);
    for (const base of bases.slice(0, -1)) expect(await sim.stat(segPath(base, ".index"))).toBeNull();
    expect(await readAll(after)).toEqual(model);
    expect(after.recovery.indexesRebuilt).toBe(bases.length);
    for (const base of bases) expect(await fileSize(sim, segPath(base, ".index"))).toBeGreaterThan(0);
    await checkLookups(after, model);
  });

  it("recovery: deleted index files are rebuilt after a crash", async () => {
    const { sim, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 20);
    await log.flush();
    const bases = log.segmentBaseOffsets;
    const rebooted = sim.crash(keepNothing);
    for (const base of bases) {
      await rebooted.remove(segPath(base, ".index"));
      await rebooted.remove(segPath(base, ".timeindex"));
    }
    const after = await (await openSim(rebooted)).log(NAME, SMALL);
    expect(after.recovery.indexesRebuilt).toBeGreaterThanOrEqual(bases.length);
    expect(await readAll(after)).toEqual(model);
    await checkLookups(after, model);
  });

  it("recovery: corrupt index files are rebuilt after a clean shutdown", async () => {
    const damage: Array<[string, (sim: SimStorage, base: number) => Promise<void>]> = [
      // A length that is not a whole number of entries.
      ["torn entry", (sim, base) => writeFile(sim, segPath(base, ".index"), 0, new Uint8Array(3), { truncate: 5 })],
      // Offsets that go backwards, positions past the end of the log.
      [
        "garbage entries",
        (sim, base) =>
          writeFile(
            sim,
            segPath(base, ".index"),
            0,
            new Uint8Array([0, 0, 0, 9, 0, 0, 0x7f, 0, 0, 0, 0, 1, 0, 0, 0, 0]),
          ),
      ],
      ["garbage time entries", (sim, base) => writeFile(sim, segPath(base, ".timeindex"), 0, seededBytes(24, 7))],
      [
        "time index torn",
        (sim, base) => writeFile(sim, segPath(base, ".timeindex"), 0, new Uint8Array(0), { truncate: 13 }),
      ],
    ];
    for (const [what, corrupt] of damage) {
      const { sim, dir, log } = await freshLog(SMALL);
      const model = await appendBatches(log, 20);
      const [first, second] = log.segmentBaseOffsets;
      await dir.close();
      await corrupt(sim, first!);
      await corrupt(sim, second!);
      const after = await (await openSim(sim)).log(NAME, SMALL);
      expect(after.recovery.clean, what).toBe(true);
      expect(after.recovery.indexesRebuilt, what).toBe(0); // old segments: checked on first use
      expect(await readAll(after), what).toEqual(model);
      expect(after.recovery.indexesRebuilt, what).toBe(2);
      await checkLookups(after, model);
    }
  });

  it("recovery: bogus index files whose .log is gone are removed", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 5);
    await dir.close();
    const bogus = [segPath(1000, ".index"), segPath(1000, ".timeindex"), segPath(3, ".index")];
    for (const path of bogus) await writeFile(sim, path, 0, seededBytes(16, 3), { create: true });
    const after = await (await openSim(sim)).log(NAME, SMALL);
    for (const path of bogus) expect(await sim.stat(path), path).toBeNull();
    expect(after.recovery.filesRemoved).toBe(bogus.length);
    expect(await readAll(after)).toEqual(model);
  });

  it("recovery: a whole .swap ending at a segment's base is an interrupted compaction: the open finishes it", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 12);
    await dir.close();
    expect(log.segmentCount).toBeGreaterThan(1);
    const swap = `${NAME}/00000000000000000000.log.swap`;
    await writeFile(sim, swap, 0, await readFile(sim, segPath(0, ".log")), { create: true, sync: true });
    await sim.syncDir(NAME);
    const reopened = await openSim(sim);
    const after = await reopened.log(NAME, SMALL);
    expect(after.recovery.swapsCompleted).toBe(1);
    expect(await sim.stat(swap)).toBeNull();
    expect(await readAll(after)).toEqual(model);
    await reopened.close();
  });

  it("recovery: a .swap that is not whole batches is refused, never deleted, and nothing changes", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 3);
    await dir.close();
    const swap = `${NAME}/00000000000000000000.log.swap`;
    const torn = (await readFile(sim, segPath(0, ".log"))).slice(0, 30);
    await writeFile(sim, swap, 0, torn, { create: true, sync: true });
    await sim.syncDir(NAME);
    const before = await sim.list(NAME);
    const reopened = await openSim(sim);
    const err = await reopened.log(NAME, SMALL).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PagelogError);
    expect((err as PagelogError).code).toBe(ErrorCode.CORRUPT);
    expect((err as PagelogError).message).toContain("cannot be finished safely");
    expect(await sim.list(NAME)).toEqual(before);
    expect(await readFile(sim, swap)).toEqual(torn);
  });

  it("recovery: .tmp, .deleted and .cleaned leftovers are removed on open, durably", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 5);
    await dir.close();
    const leftovers = [
      `${NAME}/00000000000000000000.log.deleted`,
      `${NAME}/00000000000000000000.index.deleted`,
      `${NAME}/00000000000000000000.log.cleaned`,
      `${NAME}/leader-epoch-checkpoint.tmp`,
      `${RECOVERY_POINT_CHECKPOINT}.tmp`,
    ];
    // The leftover .log copies hold valid batches: they must not be read as part of the log.
    const realLog = await readFile(sim, segPath(0, ".log"));
    for (const path of leftovers) await writeFile(sim, path, 0, realLog, { create: true, sync: true });
    await sim.syncDir(NAME);
    await sim.syncDir("");
    const reopenedDir = await openSim(sim);
    const after = await reopenedDir.log(NAME, SMALL);
    for (const path of leftovers) expect(await sim.stat(path), path).toBeNull();
    expect(await readAll(after)).toEqual(model);
    // The removals are durable: a power cut right after opening does not bring them back.
    const rebooted = sim.crash(keepNothing);
    for (const path of leftovers) expect(await rebooted.stat(path), path).toBeNull();
  });

  it("recovery: corrupt log tail (random bytes appended) recovers the exact original records", async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { sim, log } = await freshLog(SMALL);
      const model = await appendBatches(log, 12, 2);
      await log.flush();
      const rebooted = sim.crash(keepNothing);
      const lastLog = segPath(log.segmentBaseOffsets.at(-1)!, ".log");
      const size = await fileSize(rebooted, lastLog);
      await writeFile(rebooted, lastLog, size, seededBytes(1 + seed * 37, seed), { sync: true });
      const after = await (await openSim(rebooted)).log(NAME, SMALL);
      expect(after.recovery.bytesTruncated, `seed ${seed}`).toBe(1 + seed * 37);
      expect(await readAll(after), `seed ${seed}`).toEqual(model);
      expect((await after.append([recordAt(model.length)])).baseOffset).toBe(model.length);
    }
  });

  it("recovery: corrupt log tail (random bytes over the unflushed batches) recovers the exact flushed records", async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { sim, dir, log } = await freshLog({ indexIntervalBytes: 0 });
      const model = await appendBatches(log, 10);
      await log.flush();
      await dir.checkpoint();
      const flushedBytes = log.size;
      await appendBatches(log, 5);
      const rebooted = sim.crash(keepEverything);
      await writeFile(rebooted, segPath(0, ".log"), flushedBytes + seed, seededBytes(200, seed), { sync: true });
      const after = await (await openSim(rebooted)).log(NAME, { indexIntervalBytes: 0 });
      expect(after.endOffset, `seed ${seed}`).toBe(10);
      expect(after.size).toBe(flushedBytes);
      expect(await readAll(after)).toEqual(model);
    }
  });

  it("recovery: a tail cut by recovery stays cut: the truncation is durable before the first append", async () => {
    const { sim, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 6);
    await log.flush();
    const rebooted = sim.crash(keepNothing);
    const lastLog = segPath(log.segmentBaseOffsets.at(-1)!, ".log");
    const goodSize = await fileSize(rebooted, lastLog);
    await writeFile(rebooted, lastLog, goodSize, seededBytes(300, 9), { sync: true });
    await (await openSim(rebooted)).log(NAME, SMALL);
    // Power cut right after recovery, before anything else is synced.
    const again = rebooted.crash(keepNothing);
    expect(await fileSize(again, lastLog)).toBe(goodSize);
    expect(await readAll(await (await openSim(again)).log(NAME, SMALL))).toEqual(model);
  });

  it("recovery: damage below the recovery point is PAGELOG_CORRUPT naming the segment, never a silent cut", async () => {
    // A flipped byte inside a flushed, checkpointed batch.
    {
      const { sim, dir, log } = await freshLog({ indexIntervalBytes: 0 });
      await appendBatches(log, 10);
      await log.flush();
      await dir.checkpoint();
      const rebooted = sim.crash(keepNothing);
      const path = segPath(0, ".log");
      const before = await readFile(rebooted, path);
      const at = Math.floor(before.length / 2);
      await writeFile(rebooted, path, at, new Uint8Array([before[at]! ^ 0xff]), { sync: true });
      const reopened = await openSim(rebooted);
      const err = await expectCode(() => reopened.log(NAME, { indexIntervalBytes: 0 }), ErrorCode.CORRUPT);
      expect(`${err.path} ${err.message}`).toContain(path);
      expect(await fileSize(rebooted, path)).toBe(before.length); // nothing was cut
    }
    // A flushed segment cut short (the file system lost its tail).
    {
      const { sim, dir, log } = await freshLog(SMALL);
      await appendBatches(log, 12);
      await log.flush();
      await dir.checkpoint();
      const last = log.segmentBaseOffsets.at(-1)!;
      const rebooted = sim.crash(keepNothing);
      const path = segPath(last, ".log");
      const size = await fileSize(rebooted, path);
      await writeFile(rebooted, path, 0, new Uint8Array(0), { truncate: size - 5, sync: true });
      const err = await expectCode(async () => (await openSim(rebooted)).log(NAME, SMALL), ErrorCode.CORRUPT);
      expect(`${err.path} ${err.message}`).toContain(path);
      expect(await fileSize(rebooted, path)).toBe(size - 5);
    }
  });

  it("recovery: a lost last segment after a clean shutdown is PAGELOG_CORRUPT, not a shorter log", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 12);
    const last = log.segmentBaseOffsets.at(-1)!;
    await dir.close();
    for (const suffix of [".log", ".index", ".timeindex"] as const) await sim.remove(segPath(last, suffix));
    const err = await expectCode(async () => (await openSim(sim)).log(NAME, SMALL), ErrorCode.CORRUPT);
    expect(err.message).toContain("recovery point 12");
  });

  it("recovery: every segment gone below the checkpointed recovery point is PAGELOG_CORRUPT, not an empty log", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 12);
    await log.flush();
    await dir.checkpoint();
    const rebooted = sim.crash(keepNothing);
    for (const base of log.segmentBaseOffsets)
      for (const suffix of [".log", ".index", ".timeindex"] as const) await rebooted.remove(segPath(base, suffix));
    // What is left is the writer's published durable offset (state/durable-mark.ts), no segment.
    const left = await rebooted.list(NAME);
    expect(left.filter((name) => /\.(log|index|timeindex)$/.test(name))).toEqual([]);
    await expectCode(async () => (await openSim(rebooted)).log(NAME, SMALL), ErrorCode.CORRUPT);
    expect(await rebooted.list(NAME)).toEqual(left); // nothing was created in its place
  });

  it("recovery: a partition directory deleted on purpose opens as a new, empty log", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 12);
    await log.deleteRecordsBefore(5);
    await dir.close();
    for (const name of await sim.list(NAME)) await sim.remove(`${NAME}/${name}`);
    await sim.remove(NAME);
    const fresh = await (await openSim(sim)).log(NAME, SMALL);
    expect([fresh.startOffset, fresh.endOffset]).toEqual([0, 0]);
  });

  it("recovery: reopened without a reboot (a killed process), segments the dead process never synced are made durable", async () => {
    const sim = new SimStorage({ seed: 3 });
    const dead = killable(sim);
    const log = await (await LogDir.open(dead.storage)).log(NAME, SMALL);
    const model = await appendBatches(log, 20); // several rolls, never flushed
    expect(log.segmentCount).toBeGreaterThan(2);
    await dead.kill();
    const reopened = await (await openSim(sim)).log(NAME, SMALL);
    expect(reopened.recovery.clean).toBe(false);
    expect(await readAll(reopened)).toEqual(model);
    // Recovery counted it all durable: a power cut now must keep all of it, segment files included.
    expect(reopened.recoveryPoint).toBe(20);
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect(await readAll(after)).toEqual(model);
  });

  it("recovery: reopen then truncate", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 15);
    await dir.close();
    const dir2 = await openSim(sim);
    const log2 = await dir2.log(NAME, SMALL);
    await log2.truncateTo(4);
    expect(log2.endOffset).toBe(4);
    expect(log2.segmentCount).toBe(1);
    expect(await readAll(log2)).toEqual(model.slice(0, 4));
    expect((await log2.append([recordAt(4)])).baseOffset).toBe(4);
    await dir2.close();
    const log3 = await (await openSim(sim)).log(NAME, SMALL);
    expect(await readAll(log3)).toEqual([...model.slice(0, 4), expectedAt(4)]);
  });

  it("recovery: an empty active segment reopens (clean and after a crash) and takes the next offset", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    const model = await appendBatches(log, 10);
    const activeBase = log.segmentBaseOffsets.at(-1)!;
    await log.truncateTo(activeBase); // leaves the active segment empty, with base == end
    expect(log.segmentBaseOffsets.at(-1)).toBe(activeBase);
    expect(await fileSize(sim, segPath(activeBase, ".log"))).toBe(0);
    const segments = log.segmentCount;
    await dir.close();

    const dir2 = await openSim(sim);
    const log2 = await dir2.log(NAME, SMALL);
    expect([log2.segmentCount, log2.endOffset]).toEqual([segments, activeBase]);
    expect(await readAll(log2)).toEqual(model.slice(0, activeBase));
    await log2.flush();
    const log3 = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect([log3.segmentCount, log3.endOffset]).toEqual([segments, activeBase]);
    expect((await log3.append([recordAt(activeBase)])).baseOffset).toBe(activeBase);
    expect(await readAll(log3)).toEqual([...model.slice(0, activeBase), expectedAt(activeBase)]);
  });

  it("recovery: a new empty log reopens empty, clean or crashed", async () => {
    const sim = new SimStorage({ seed: 4 });
    const dir = await openSim(sim);
    await dir.log(NAME);
    await dir.close();
    const log = await (await openSim(sim)).log(NAME);
    expect([log.startOffset, log.endOffset, log.segmentCount, log.size]).toEqual([0, 0, 1, 0]);
    const crashed = await (await openSim(sim.crash(keepNothing))).log(NAME);
    expect([crashed.startOffset, crashed.endOffset, crashed.segmentCount]).toEqual([0, 0, 1]);
    expect(await crashed.read(0)).toEqual([]);
  });
});

describe("recovery on FsStorage", () => {
  const cleanups: string[] = [];
  afterEach(async () => {
    for (const d of cleanups.splice(0)) await fs.rm(d, { recursive: true, force: true });
  });

  it("recovery (FsStorage): a clean reopen scans nothing; an unclean one scans and keeps every record", async () => {
    const root = await makeTempDir();
    cleanups.push(root);
    const path = nodePath.join(root, "data");
    const dir = await LogDir.open(path);
    const log = await dir.log(NAME, SMALL);
    const model = await appendBatches(log, 12);
    await dir.close();
    // The layout a Kafka broker would leave.
    const files = (await fs.readdir(nodePath.join(path, NAME))).sort();
    expect(files).toContain("00000000000000000000.log");
    expect(files).toContain("00000000000000000000.index");
    expect(files).toContain("00000000000000000000.timeindex");

    const dir2 = await LogDir.open(path);
    const log2 = await dir2.log(NAME, SMALL);
    expect(log2.recovery).toMatchObject({ clean: true, segmentsScanned: 0 });
    expect(await readAll(log2)).toEqual(model);
    model.push(...(await appendBatches(log2, 3)));
    // The process "dies": its storage closes (the OS closes files and drops its locks), no marker.
    await dir2.storage.close();

    const dir3 = await LogDir.open(path);
    const log3 = await dir3.log(NAME, SMALL);
    expect(log3.recovery.clean).toBe(false);
    expect(log3.recovery.segmentsScanned).toBeGreaterThan(0);
    expect(await readAll(log3)).toEqual(model);
    await dir3.close();
  });

  it("recovery (FsStorage): corrupt log tail on a real file recovers the exact original records", async () => {
    const root = await makeTempDir();
    cleanups.push(root);
    const dir = await LogDir.open(root);
    const log = await dir.log(NAME, SMALL);
    const model = await appendBatches(log, 9);
    const last = nodePath.join(root, segPath(log.segmentBaseOffsets.at(-1)!, ".log"));
    await dir.storage.close(); // unclean
    const goodSize = (await fs.stat(last)).size;
    await fs.appendFile(last, seededBytes(777, 5));
    const dir2 = await LogDir.open(root);
    const log2 = await dir2.log(NAME, SMALL);
    expect(log2.recovery.bytesTruncated).toBe(777);
    expect(await readAll(log2)).toEqual(model);
    await dir2.close();
    expect((await fs.stat(last)).size).toBe(goodSize);
  });
});
