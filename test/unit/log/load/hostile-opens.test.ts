/**
 * Files and settings a power cut never makes (issue: "never cut a flushed record"): options
 * changed since the last open, stray segment files, checkpoints that lie, CRC-valid batches
 * whose fields are impossible. Each case ends in correct data or a PagelogError, and an open
 * that rejects changes no byte of any file.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, isPagelogError } from "../../../../src/errors.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage, keepEverything } from "../../../../src/storage/sim-storage.js";
import { encodeBatch } from "../../../../src/format/api.js";
import { rawBatch } from "../../../support/raw-batch.js";
import { snapshotStorage } from "../../../support/storage-snapshot.js";
import {
  NAME,
  appendBatches,
  expectCode,
  fileSize,
  freshLog,
  openSim,
  readAll,
  readFile,
  segPath,
  writeFile,
} from "../helpers.js";

const MiB = 1 << 20;

/** A cleanly closed log of 6 batches of 3 records (offsets 0..17) in one segment. */
async function closedLog(): Promise<{ sim: SimStorage; model: Awaited<ReturnType<typeof appendBatches>> }> {
  const { sim, dir, log } = await freshLog();
  const model = await appendBatches(log, 6, 3);
  await dir.close();
  return { sim, model };
}

/** Opens the log and expects a PAGELOG_CORRUPT rejection that leaves every file as it was. */
async function expectRejectedUnchanged(sim: SimStorage, options = {}): Promise<void> {
  const dir = await openSim(sim);
  const before = await snapshotStorage(sim);
  await expectCode(() => dir.log(NAME, options), ErrorCode.CORRUPT);
  expect(await snapshotStorage(sim)).toEqual(before);
  await dir.close();
}

/** Every record `records()` yields, or the error it ends with. */
async function iterate(log: Log): Promise<{ offsets: number[]; error: unknown }> {
  const offsets: number[] = [];
  try {
    for await (const r of log.records()) offsets.push(r.offset);
  } catch (error) {
    return { offsets, error };
  }
  return { offsets, error: undefined };
}

describe("options changed since the last open", () => {
  for (const ending of ["crash", "clean close"] as const) {
    it(`a batch larger than today's maxBatchBytes, flushed under yesterday's, survives a reopen (${ending})`, async () => {
      const { sim, dir, log } = await freshLog({ maxBatchBytes: 4 * MiB });
      await log.append([{ value: new Uint8Array(10), timestamp: 1 }]);
      const big = new Uint8Array(2 * MiB).fill(7);
      await log.append([{ value: big, timestamp: 2 }]);
      await log.append([{ value: new Uint8Array(10), timestamp: 3 }]);
      await log.flush();
      const storage = ending === "crash" ? sim.crash(keepEverything) : (await dir.close(), sim);
      const reopened = await openSim(storage);
      const again = await reopened.log(NAME); // default maxBatchBytes: 1 MiB
      expect(again.recovery.bytesTruncated).toBe(0);
      expect(again.endOffset).toBe(3);
      const [record] = await again.read(1, { maxRecords: 1 });
      // (Buffer.equals: a deep toEqual of 2 MiB takes seconds.)
      expect(Buffer.from(record!.value!).equals(big)).toBe(true);
      expect((await iterate(again)).offsets).toEqual([0, 1, 2]);
      // What is appended now is held to today's limit.
      await expectCode(() => again.append([{ value: new Uint8Array(2 * MiB) }]), ErrorCode.RECORD_TOO_LARGE);
      await reopened.close();
    });
  }
});

describe("an open decides before it changes anything", () => {
  it("a stray overlapping segment after a clean shutdown: rejected, segment 0 not cut", async () => {
    const { sim, model } = await closedLog();
    const log0 = await readFile(sim, segPath(0, ".log"));
    // A copy of the batch for offsets 3..5, named as a segment of its own.
    const second = log0.subarray(log0.length / 6, (2 * log0.length) / 6);
    await writeFile(sim, segPath(3, ".log"), 0, second, { create: true, sync: true });
    await sim.syncDir(NAME);
    await expectRejectedUnchanged(sim);
    expect(await fileSize(sim, segPath(0, ".log"))).toBe(log0.length);
    // Once the stray file is gone, every record is there.
    await sim.remove(segPath(3, ".log"));
    const dir = await openSim(sim);
    expect(await readAll(await dir.log(NAME))).toEqual(model);
    await dir.close();
  });

  it("the same stray segment after a crash (recovery point 18): rejected, nothing changed", async () => {
    const { sim } = await closedLog();
    const log0 = await readFile(sim, segPath(0, ".log"));
    await writeFile(sim, segPath(3, ".log"), 0, log0.subarray(log0.length / 6, (2 * log0.length) / 6), {
      create: true,
      sync: true,
    });
    await sim.syncDir(NAME);
    // Open (the marker goes, durably), then lose power: the next open is unclean.
    await openSim(sim);
    const crashed = sim.crash(keepEverything);
    await expectRejectedUnchanged(crashed);
    expect(await fileSize(crashed, segPath(0, ".log"))).toBe(log0.length);
  });

  for (const agree of [true, false]) {
    it(`after a crash, an overlapping segment that ${agree ? "agrees with" : "contradicts"} the records it overlaps is ${agree ? "taken as an interrupted cut" : "rejected"}`, async () => {
      const { sim, model } = await closedLog();
      const copy = encodeBatch(
        model.slice(3).map((r) => ({
          key: r.key,
          value: agree ? r.value : new Uint8Array([9]),
          headers: r.headers,
          timestamp: r.timestamp,
        })),
        { baseOffset: 3 },
      );
      await writeFile(sim, segPath(3, ".log"), 0, copy, { create: true, sync: true });
      await sim.syncDir(NAME);
      await openSim(sim);
      const crashed = sim.crash(keepEverything);
      if (!agree) return expectRejectedUnchanged(crashed);
      const dir = await openSim(crashed);
      const log = await dir.log(NAME);
      expect(log.segmentBaseOffsets).toEqual([0, 3]);
      expect(await readAll(log)).toEqual(model);
      await dir.close();
    });
  }

  it("damage below the recovery point in a later segment: nothing earlier is cut or rebuilt first", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 300, indexIntervalBytes: 0 });
    await appendBatches(log, 12, 2);
    await log.flush();
    await dir.checkpoint();
    expect(log.segmentCount).toBeGreaterThan(2);
    const bases = log.segmentBaseOffsets;
    const crashed = sim.crash(keepEverything);
    // Lose the first segment's indexes (a rebuild would write them) and damage the last one's log.
    await crashed.remove(segPath(bases[0]!, ".index"));
    const last = bases.at(-1)!;
    await writeFile(crashed, segPath(last, ".log"), 30, new Uint8Array([0xff, 0xff]), { sync: true });
    await expectRejectedUnchanged(crashed);
  });
});

describe("checkpoints that lie", () => {
  it("a start offset past the end after a clean shutdown is corrupt, and nothing is deleted", async () => {
    const { sim, model } = await closedLog();
    await writeFile(sim, LOG_START_CHECKPOINT, 0, new TextEncoder().encode("0\n1\norders 0 1000\n"), {
      truncate: 0,
      sync: true,
    });
    await expectRejectedUnchanged(sim);
    await writeFile(sim, LOG_START_CHECKPOINT, 0, new TextEncoder().encode("0\n1\norders 0 0\n"), {
      truncate: 0,
      sync: true,
    });
    const dir = await openSim(sim);
    expect(await readAll(await dir.log(NAME))).toEqual(model);
    await dir.close();
  });

  it("a recovery point past the end after a clean shutdown is corrupt, and nothing changes", async () => {
    const { sim } = await closedLog();
    await writeFile(sim, RECOVERY_POINT_CHECKPOINT, 0, new TextEncoder().encode("0\n1\norders 0 1000\n"), {
      truncate: 0,
      sync: true,
    });
    await expectRejectedUnchanged(sim);
  });
});

describe("CRC-valid batches with impossible fields", () => {
  /** A closed log of batches 0..5, a hostile batch for 6..8, then batches 9..17. */
  async function logWithBatchAt6(hostile: Uint8Array): Promise<SimStorage> {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 2, 3);
    await dir.close();
    const size = await fileSize(sim, segPath(0, ".log"));
    await writeFile(sim, segPath(0, ".log"), size, hostile, { sync: true });
    const again = await openSim(sim);
    // Truncate nothing: trust the files (clean), then append after the hostile batch.
    const l = await again.log(NAME);
    expect(l.endOffset).toBe(9);
    await appendBatches(l, 3, 3);
    await again.close();
    return sim;
  }

  it("a record whose offsetDelta lies outside its batch is never served under a wrong offset", async () => {
    const hostile = rawBatch({
      baseOffset: 6,
      lastOffsetDelta: 2,
      baseTimestamp: 1_000_060, // where offset 6 would be in appendBatches' timestamps
      records: [0, 1, 2].map((d) => ({ offsetDelta: d === 0 ? 1000 : d, value: new Uint8Array([d]) })),
    });
    const sim = await logWithBatchAt6(hostile);
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    await expectCode(() => log.read(6), ErrorCode.CORRUPT);
    await expectCode(() => log.offsetForTimestamp(1_000_055), ErrorCode.CORRUPT);
    const { offsets, error } = await iterate(log);
    expect(offsets).toEqual([0, 1, 2, 3, 4, 5]);
    expect(isPagelogError(error, ErrorCode.CORRUPT), String(error)).toBe(true);
    // Records after it are still readable by offset.
    expect((await log.read(9, { maxRecords: 1 }))[0]?.offset).toBe(9);
    await dir.close();
  });

  it("a batch that skips an offset (deltas 0 and 2 of 0..2) is a hole records() reports", async () => {
    const hostile = rawBatch({ baseOffset: 6, lastOffsetDelta: 2, records: [{ offsetDelta: 0 }, { offsetDelta: 2 }] });
    const sim = await logWithBatchAt6(hostile);
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    const { offsets, error } = await iterate(log);
    expect(offsets).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(isPagelogError(error, ErrorCode.CORRUPT), String(error)).toBe(true);
    await dir.close();
  });

  it("a maxTimestamp that disagrees with the records is corrupt, never a wrong timestamp lookup", async () => {
    const hostile = rawBatch({
      baseOffset: 6,
      lastOffsetDelta: 2,
      baseTimestamp: 1_000_060,
      maxTimestamp: 1_000_000, // the records' largest is 1_000_080
      records: [0, 1, 2].map((d) => ({ offsetDelta: d, timestampDelta: d * 10 })),
    });
    const sim = await logWithBatchAt6(hostile);
    const dir = await openSim(sim);
    const log = await dir.log(NAME);
    await expectCode(() => log.offsetForTimestamp(1_000_065), ErrorCode.CORRUPT);
    await expectCode(() => log.read(6), ErrorCode.CORRUPT);
    await dir.close();
  });

  it("offset deltas that repeat or go backwards are corrupt", async () => {
    for (const deltas of [
      [0, 0, 2],
      [0, 2, 1],
      [-1, 1, 2],
    ]) {
      const hostile = rawBatch({ baseOffset: 6, lastOffsetDelta: 2, records: deltas.map((d) => ({ offsetDelta: d })) });
      const sim = await logWithBatchAt6(hostile);
      const dir = await openSim(sim);
      const log = await dir.log(NAME);
      await expectCode(() => log.read(6), ErrorCode.CORRUPT);
      await dir.close();
    }
  });

  it("lastOffsetDelta 2^31-1 on an unclean open: a PagelogError or correct data, never a RangeError", async () => {
    const { sim, dir, log } = await freshLog();
    const model = await appendBatches(log, 3, 3);
    await log.flush();
    await dir.checkpoint();
    const size = await fileSize(sim, segPath(0, ".log"));
    const hostile = rawBatch({ baseOffset: 9, lastOffsetDelta: 0x7fffffff, records: [{ offsetDelta: 0 }] });
    await writeFile(sim, segPath(0, ".log"), size, hostile, { sync: true });
    const crashed = sim.crash(keepEverything);
    const again = await openSim(crashed);
    const recovered = await again.log(NAME);
    // Above the recovery point it is the remains of a crash: cut.
    expect(recovered.recovery.bytesTruncated).toBe(hostile.length);
    expect(await readAll(recovered)).toEqual(model);
    await again.close();
  });

  it("lastOffsetDelta 2^31-1 after a clean shutdown: PAGELOG_CORRUPT, nothing changed", async () => {
    const { sim } = await closedLog();
    const size = await fileSize(sim, segPath(0, ".log"));
    await writeFile(
      sim,
      segPath(0, ".log"),
      size,
      rawBatch({ baseOffset: 18, lastOffsetDelta: 0x7fffffff, records: [{ offsetDelta: 0 }] }),
      { sync: true },
    );
    await expectRejectedUnchanged(sim);
  });
});

describe("a missing first segment", () => {
  for (const ending of ["clean", "crash"] as const) {
    it(`is corrupt when the start checkpoint names an offset below the first segment (${ending})`, async () => {
      const { sim, dir, log } = await freshLog({ segmentBytes: 300 });
      const model = await appendBatches(log, 12, 2);
      await log.flush();
      const bases = log.segmentBaseOffsets;
      expect(bases.length).toBeGreaterThan(2);
      await dir.close();
      for (const suffix of [".log", ".index", ".timeindex"] as const) await sim.remove(segPath(0, suffix));
      await sim.syncDir(NAME);
      const storage = ending === "clean" ? sim : (await openSim(sim), sim.crash(keepEverything));
      await expectRejectedUnchanged(storage);
      expect(model.length).toBe(24);
    });
  }
});

describe("checkpoint entries", () => {
  it("entries for partitions whose directories are gone are not written back", async () => {
    const { sim } = await closedLog();
    const lines = Array.from({ length: 50 }, (_, i) => `gone ${i} 7`);
    await writeFile(
      sim,
      RECOVERY_POINT_CHECKPOINT,
      0,
      new TextEncoder().encode(`0\n${lines.length + 1}\n${lines.join("\n")}\norders 0 18\n`),
      { truncate: 0, sync: true },
    );
    const dir = await openSim(sim);
    await dir.log(NAME);
    await dir.close();
    expect(new TextDecoder().decode(await readFile(sim, RECOVERY_POINT_CHECKPOINT))).toBe("0\n1\norders 0 18\n");
  });
});

describe("special files where pagelog's files belong (FsStorage)", () => {
  it("a FIFO as a checkpoint or a segment file is PAGELOG_IO, never a hang", async () => {
    const { execFileSync } = await import("node:child_process");
    const { mkdtemp, rm, rename } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const root = await mkdtemp(join(tmpdir(), "pagelog-fifo-"));
    try {
      const dir = await LogDir.open(root);
      await appendBatches(await dir.log(NAME), 3);
      await dir.close();
      for (const file of [RECOVERY_POINT_CHECKPOINT, segPath(0, ".timeindex"), segPath(0, ".log")]) {
        await rename(join(root, file), join(root, `${file}.real`));
        execFileSync("mkfifo", [join(root, file)]);
        let opened: Awaited<ReturnType<typeof LogDir.open>> | undefined;
        await expectCode(async () => (opened = await LogDir.open(root)).log(NAME), ErrorCode.IO);
        await opened?.close();
        await rm(join(root, file));
        await rename(join(root, `${file}.real`), join(root, file));
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("a special file as the consumer positions (FsStorage)", () => {
  it("a FIFO as consumer-offset-checkpoint: the directory opens, the logs work, dir.consumer() is PAGELOG_CORRUPT", async () => {
    const { execFileSync } = await import("node:child_process");
    const { lstat, mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const { CONSUMER_OFFSET_CHECKPOINT } = await import("../../../../src/log/checkpoints/consumer-files.js");
    const root = await mkdtemp(join(tmpdir(), "pagelog-fifo-"));
    try {
      const first = await LogDir.open(root);
      const model = await appendBatches(await first.log(NAME), 3);
      await first.close();
      execFileSync("mkfifo", [join(root, CONSUMER_OFFSET_CHECKPOINT)]);
      // Opened without waiting for a writer on the FIFO, for writing and for reading only.
      for (const readOnly of [false, true]) {
        const dir = await LogDir.open(root, { readOnly });
        expect(await readAll(await dir.log(NAME))).toEqual(model);
        const err = await expectCode(() => dir.consumer("billing"), ErrorCode.CORRUPT);
        expect(err.path).toBe(CONSUMER_OFFSET_CHECKPOINT);
        await dir.close();
      }
      // pagelog never rewrites it: the FIFO is still there.
      expect((await lstat(join(root, CONSUMER_OFFSET_CHECKPOINT))).isFIFO()).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("indexes that pass the sanity check but lie", () => {
  it("an offset-index entry pointing inside a batch costs a longer walk, never a record that cannot be read", async () => {
    const { sim, dir, log } = await freshLog({ indexIntervalBytes: 0 });
    const model = await appendBatches(log, 8, 2);
    await dir.close();
    const index = await readFile(sim, segPath(0, ".index"));
    expect(index.length).toBeGreaterThanOrEqual(24);
    const view = new DataView(index.buffer, index.byteOffset);
    view.setInt32(8 + 4, view.getInt32(8 + 4) + 3); // entry 1: 3 bytes into its batch, still increasing
    await writeFile(sim, segPath(0, ".index"), 0, index, { sync: true });
    const again = await openSim(sim);
    const reopened = await again.log(NAME);
    for (const m of model) expect((await reopened.read(m.offset, { maxRecords: 1 }))[0]?.offset).toBe(m.offset);
    expect(await readAll(reopened)).toEqual(model);
    for (const m of model) expect(await reopened.offsetForTimestamp(m.timestamp)).toBe(m.offset);
    await again.close();
  });

  it("a time index that a crash left as zeros is rebuilt, not trusted for the segment's largest timestamp", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 400 });
    const model = await appendBatches(log, 10, 2);
    expect(log.segmentCount).toBeGreaterThan(1);
    await dir.close();
    await writeFile(sim, segPath(0, ".timeindex"), 0, new Uint8Array(12), { truncate: 0, sync: true });
    const again = await openSim(sim);
    const reopened = await again.log(NAME);
    for (const m of model) expect(await reopened.offsetForTimestamp(m.timestamp)).toBe(m.offset);
    expect(reopened.recovery.indexesRebuilt).toBe(1); // on its first use
    await again.close();
  });
});

describe("time-index entries that lie", () => {
  // Entries are 12 bytes: int64 timestamp, int32 relative offset. Each edit keeps the index
  // increasing, so it passes the sanity check.
  for (const [what, edit] of [
    ["the first two timestamps lowered to 0 and 1", (v: DataView) => (v.setBigInt64(0, 0n), v.setBigInt64(12, 1n))],
    ["the second entry's offset moved by one", (v: DataView) => v.setInt32(12 + 8, v.getInt32(12 + 8) + 1)],
    ["the second entry naming the first batch's offset", (v: DataView) => v.setInt32(12 + 8, v.getInt32(8) + 1)],
  ] as const) {
    it(`${what}: timestamp lookups still equal a linear scan`, async () => {
      const { sim, dir, log } = await freshLog({ indexIntervalBytes: 0 });
      const model = await appendBatches(log, 8, 2);
      await dir.close();
      const index = await readFile(sim, segPath(0, ".timeindex"));
      expect(index.length).toBeGreaterThanOrEqual(36);
      edit(new DataView(index.buffer, index.byteOffset));
      await writeFile(sim, segPath(0, ".timeindex"), 0, index, { sync: true });
      const again = await openSim(sim);
      const reopened = await again.log(NAME);
      for (const m of model) {
        for (const ts of [m.timestamp - 1, m.timestamp, m.timestamp + 1]) {
          const want = model.find((r) => r.timestamp >= ts)?.offset ?? null;
          expect(await reopened.offsetForTimestamp(ts), `timestamp ${ts}`).toBe(want);
        }
      }
      await again.close();
    });
  }
});
