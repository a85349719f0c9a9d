/**
 * Failure is loud (a failed fsync fails the log; ENOSPC acknowledges nothing; a bad CRC on read
 * is an error) and overlapping calls behave as if made one at a time, in call order.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { CLEAN_SHUTDOWN_FILE } from "../../../src/log/log-dir.js";
import { keepEverything, keepNothing } from "../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectedAt,
  freshLog,
  openSim,
  plain,
  readAll,
  readFile,
  recordAt,
  segPath,
  writeFile,
} from "./helpers.js";

describe("failed state", () => {
  it("failed: EIO on sync fails the flush and the log; writes are refused with PAGELOG_FAILED until reopened", async () => {
    const { sim, dir, log } = await freshLog();
    const model = await appendBatches(log, 4);
    await log.flush();
    model.push(...(await appendBatches(log, 3)));
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    expect(log.status).toBe("failed");
    expect(log.recoveryPoint).toBe(4); // never claims the records the failed fsync covered
    await expectCode(() => log.append([recordAt(7)]), ErrorCode.FAILED);
    // A retried flush must not "succeed" over pages the kernel already marked clean.
    await expectCode(() => log.flush(), ErrorCode.FAILED);
    await expectCode(() => log.truncateTo(1), ErrorCode.FAILED);
    await expectCode(() => log.deleteRecordsBefore(1), ErrorCode.FAILED);
    // Reads still serve what is there.
    expect((await log.read(0)).map(plain)).toEqual(model);
    // The directory closes with the failure and writes no clean-shutdown marker.
    await expect(dir.close()).rejects.toBeDefined();
    expect(await sim.stat(CLEAN_SHUTDOWN_FILE)).toBeNull();
    // Reopening (after a power cut with random page fates) works: every flushed record, a prefix of the rest.
    const reopened = await (await openSim(sim.crash())).log(NAME);
    expect(reopened.status).toBe("open");
    expect(reopened.recovery.clean).toBe(false);
    const got = await readAll(reopened);
    expect(got.length).toBeGreaterThanOrEqual(4);
    expect(got).toEqual(model.slice(0, got.length));
    expect((await reopened.append([recordAt(got.length)])).baseOffset).toBe(got.length);
  });

  it("failed: reopened without a reboot after a failed fsync, a later flush is true: a power cut keeps what it claims", async () => {
    // 5000-byte values: the records the failed fsync covered sit on pages of their own, which the
    // kernel marked clean without writing; a later append dirties only later pages.
    const { sim, dir, log } = await freshLog();
    const model = await appendBatches(log, 2, 1, 5000);
    await log.flush();
    await dir.checkpoint();
    model.push(...(await appendBatches(log, 3, 1, 5000)));
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    await expect(dir.close()).rejects.toBeDefined();
    const dir2 = await openSim(sim); // same boot: the page cache still shows offsets 2..4
    const log2 = await dir2.log(NAME);
    expect(await readAll(log2)).toEqual(model);
    await log2.append([recordAt(5, undefined, 5000)]);
    model.push(expectedAt(5, undefined, 5000));
    await log2.flush();
    await dir2.checkpoint();
    expect(log2.recoveryPoint).toBe(6);
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME);
    expect(await readAll(after)).toEqual(model);
  });

  it("failed: EIO on the fsync of a flushMessages: 1 append rejects that append", async () => {
    const { sim, log } = await freshLog({ flushMessages: 1 });
    await appendBatches(log, 2);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.append([recordAt(2)]), ErrorCode.IO);
    expect(log.status).toBe("failed");
    expect(log.recoveryPoint).toBe(2);
    await expectCode(() => log.append([recordAt(3)]), ErrorCode.FAILED);
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME);
    expect(after.endOffset).toBe(2);
  });

  it("failed: EIO on the directory sync after a roll fails the flush", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 200 });
    await appendBatches(log, 6);
    const activeBase = log.segmentBaseOffsets.at(-1)!;
    await log.waitFor(activeBase - 1, { durable: true }); // the rolls' background flushes are done
    sim.injectFault({ op: "syncDir", path: NAME, code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    expect(log.status).toBe("failed");
    expect(log.recoveryPoint).toBe(activeBase); // never the end: the active segment's flush failed
  });

  it("failed: EIO on a roll's background directory sync fails the log; the recovery point stays below the roll", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 200 });
    sim.injectFault({ op: "syncDir", path: NAME, code: "EIO" });
    // The append that rolls is acknowledged: it never waits for the roll's flush.
    while (log.segmentCount === 1) await log.append([recordAt(log.endOffset)]);
    await expect(log.waitFor(log.endOffset - 1, { durable: true })).rejects.toMatchObject({ code: ErrorCode.FAILED });
    expect(log.status).toBe("failed");
    expect(log.recoveryPoint).toBe(0);
    await expectCode(() => log.append([recordAt(log.endOffset)]), ErrorCode.FAILED);
  });

  it("failed: ENOSPC on write rejects the append and acknowledges nothing", async () => {
    const { sim, dir, log } = await freshLog();
    const model = await appendBatches(log, 3);
    await log.flush();
    sim.injectFault({ op: "write", code: "ENOSPC" });
    await expectCode(() => log.append([recordAt(3), recordAt(4)]), ErrorCode.NO_SPACE);
    expect(log.endOffset).toBe(3);
    expect(await readAll(log)).toEqual(model);
    await dir.close().catch(() => undefined);
    // Even keeping every cached byte, nothing of the refused append is there.
    const after = await (await openSim(sim.crash(keepEverything))).log(NAME);
    expect(await readAll(after)).toEqual(model);
    expect((await after.append([recordAt(3)])).baseOffset).toBe(3);
  });

  it("corrupt: a bad CRC met by read is PAGELOG_CORRUPT naming the segment, never garbage", async () => {
    const { sim, log } = await freshLog({ indexIntervalBytes: 0 });
    const model = await appendBatches(log, 6, 2);
    const path = segPath(0, ".log");
    const bytes = await readFile(sim, path);
    // Flip the last byte of the third batch (a record byte, covered by the CRC).
    const third = (await log.readBatches(4, { maxBytes: 1 })).length;
    const thirdEnd = bytes.length - (await log.readBatches(6)).length;
    expect(third).toBeGreaterThan(0);
    await writeFile(sim, path, thirdEnd - 1, new Uint8Array([bytes[thirdEnd - 1]! ^ 0x01]));
    for (const read of [() => log.read(4), () => log.read(5), () => log.readBatches(4), () => readAll(log)]) {
      const err = await expectCode(read, ErrorCode.CORRUPT);
      expect(`${err.path} ${err.message}`).toContain(path);
    }
    // The batches around it still read. (Not read(6): the offset index's floor entry for 6 is the
    // damaged batch's own entry, so that read starts at, and verifies, the damaged batch.)
    expect((await log.read(0, { maxBytes: 1 })).map(plain)).toEqual(model.slice(0, 2));
    expect((await log.read(8)).map(plain)).toEqual(model.slice(8));
  });
});

describe("concurrency", () => {
  it("concurrency: 50 overlapping appends keep call order and offsets", async () => {
    const { log } = await freshLog({ segmentBytes: 1000 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => log.append([recordAt(2 * i), recordAt(2 * i + 1)])),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => ({ baseOffset: 2 * i, lastOffset: 2 * i + 1 })));
    expect(await readAll(log)).toEqual(Array.from({ length: 100 }, (_, i) => expectedAt(i)));
  });

  it("concurrency: a read during appends sees only whole batches", async () => {
    const { log } = await freshLog({ segmentBytes: 2000 });
    const pending: Array<Promise<unknown>> = [];
    const reads: Array<Promise<number[]>> = [];
    for (let i = 0; i < 30; i++) {
      pending.push(log.append([0, 1, 2].map((j) => recordAt(3 * i + j))));
      reads.push(log.readBatches(0, { maxBytes: 1 << 20 }).then(async () => readAllOffsets(log)));
      reads.push(log.read(0, { maxBytes: 1 << 20 }).then((rs) => rs.map((r) => r.offset)));
    }
    await Promise.all(pending);
    for (const offsets of await Promise.all(reads)) {
      expect(offsets.length % 3).toBe(0);
      expect(offsets).toEqual(Array.from({ length: offsets.length }, (_, i) => i));
    }
  });

  it("concurrency: a flush covers every append called before it, even if not yet applied", async () => {
    const { sim, log } = await freshLog();
    const appends = Array.from({ length: 10 }, (_, i) => log.append([recordAt(i)]));
    await log.flush();
    await Promise.all(appends);
    expect(log.recoveryPoint).toBe(10);
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME);
    expect(after.endOffset).toBe(10);
  });

  it("concurrency: close waits for in-flight appends, and they are all there after a clean reopen", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 500 });
    const appends = Array.from({ length: 20 }, (_, i) => log.append([recordAt(i)]));
    const closing = dir.close();
    const results = await Promise.all(appends);
    await closing;
    expect(results.map((r) => r.baseOffset)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const rebooted = sim.crash(keepNothing); // close made everything durable
    const after = await (await openSim(rebooted)).log(NAME, { segmentBytes: 500 });
    expect(after.recovery.clean).toBe(true);
    expect(await readAll(after)).toEqual(Array.from({ length: 20 }, (_, i) => expectedAt(i)));
  });

  it("concurrency: truncateTo and deleteRecordsBefore interleaved with appends apply in call order", async () => {
    const { log } = await freshLog({ segmentBytes: 300 });
    const calls = [
      log.append([recordAt(0), recordAt(1), recordAt(2)]),
      log.append([recordAt(3), recordAt(4)]),
      log.truncateTo(4),
      log.append([recordAt(4)]),
      log.deleteRecordsBefore(1),
      log.append([recordAt(5)]),
    ];
    await Promise.all(calls);
    expect(log.startOffset).toBe(1);
    expect(await readAll(log)).toEqual([1, 2, 3, 4, 5].map((i) => expectedAt(i)));
  });
});

async function readAllOffsets(log: Awaited<ReturnType<typeof freshLog>>["log"]): Promise<number[]> {
  return (await log.read(0, { maxBytes: 1 << 20 })).map((r) => r.offset);
}
