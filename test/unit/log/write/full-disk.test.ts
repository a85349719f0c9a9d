/**
 * A full disk can be fixed through the API: retention and deleteRecordsBefore free space first
 * and record the new start after, the log stays open when only the checkpoint found no room, and
 * a power cut anywhere in that path recovers a contiguous log with nothing deleted coming back.
 * (test/integration/full-disk.test.ts runs the same on a real, full tmpfs.)
 */
import { describe, expect, it } from "vitest";
import { testSeed } from "../../../support/seed.js";
import { ErrorCode } from "../../../../src/errors.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { keepEverything, SimStorage } from "../../../../src/storage/sim-storage.js";
import { offsetName } from "../../../../src/segment/segment-names.js";
import { appendBatches, expectCode, openSim, readAll, readText } from "../helpers.js";

const TMP = `${RECOVERY_POINT_CHECKPOINT}.tmp`;
const NAME = "t-0";

/** A log of 10 one-record batches in several segments, flushed and checkpointed. */
async function filledLog(seed: number) {
  const sim = new SimStorage({ seed });
  const dir = await openSim(sim, { segmentBytes: 250 });
  const log = await dir.log(NAME);
  await appendBatches(log, 10);
  await log.flush();
  await dir.checkpoint();
  return { sim, dir, log };
}

describe("full disk: free space first, then record it", () => {
  it("deleteRecordsBefore deletes the segments although the first checkpoint found no room", async () => {
    const { sim, dir, log } = await filledLog(1);
    expect(log.segmentCount).toBeGreaterThan(2);
    const before = log.size;
    sim.injectFault({ op: "write", path: TMP, code: "ENOSPC" });
    await log.deleteRecordsBefore(7);
    expect(log.status).toBe("open");
    expect(log.size).toBeLessThan(before);
    expect(log.startOffset).toBe(7);
    expect((await readAll(log)).map((r) => r.offset)).toEqual([7, 8, 9]);
    expect(await readText(sim, LOG_START_CHECKPOINT)).toContain("t 0 7");
    expect((await sim.list(NAME)).some((n) => n.endsWith(".deleted"))).toBe(false);
    await dir.close();
    const again = await (await openSim(sim)).log(NAME);
    expect(again.startOffset).toBe(7);
  });

  it("applyRetention on a full disk frees the space and keeps the log open", async () => {
    const { sim, dir, log } = await filledLog(2);
    await log.close();
    const retained = await dir.log(NAME, { retentionBytes: 300 });
    const before = retained.size;
    sim.injectFault({ op: "write", path: TMP, code: "ENOSPC" });
    await retained.applyRetention();
    expect(retained.status).toBe("open");
    expect(retained.size).toBeLessThan(before);
    await dir.close();
  });

  it("when the checkpoint still finds no room: rejects PAGELOG_NO_SPACE, space freed, log open, a retry succeeds", async () => {
    const { sim, dir, log } = await filledLog(3);
    const before = log.size;
    sim.injectFault({ op: "write", path: TMP, code: "ENOSPC", times: 2 });
    await expectCode(() => log.deleteRecordsBefore(7), ErrorCode.NO_SPACE);
    expect(log.status).toBe("open");
    expect(log.size).toBeLessThan(before);
    // The start is what the deletions made true: the first segment left.
    expect(log.startOffset).toBe(log.segmentBaseOffsets[0]);
    await log.deleteRecordsBefore(7);
    expect(log.startOffset).toBe(7);
    await dir.close();
    // The proof left by the failed attempt is garbage once a checkpoint names the new start.
    expect((await sim.list(NAME)).some((n) => n.endsWith(".deleted"))).toBe(true);
    await (await openSim(sim)).log(NAME);
    expect((await sim.list(NAME)).filter((n) => n.endsWith(".deleted"))).toEqual([]);
  });

  it("with nothing to delete, a full disk rejects and leaves the log open and as it was", async () => {
    const { sim, dir, log } = await filledLog(4);
    sim.injectFault({ op: "write", path: TMP, code: "ENOSPC" });
    await expectCode(() => log.deleteRecordsBefore(1), ErrorCode.NO_SPACE);
    expect(log.status).toBe("open");
    expect(log.startOffset).toBe(0);
    await log.deleteRecordsBefore(1);
    expect(log.startOffset).toBe(1);
    await dir.close();
  });

  it("a failed fsync of the checkpoint is no full disk: it fails the log, whatever its code (guarantee 8)", async () => {
    const { sim, dir, log } = await filledLog(5);
    sim.injectFault({ op: "sync", path: TMP, code: "ENOSPC" });
    await expectCode(() => log.deleteRecordsBefore(7), ErrorCode.NO_SPACE);
    expect(log.status).toBe("failed");
    await dir.close().catch(() => undefined);
  });

  it("a power cut at every operation of the full-disk path recovers a contiguous log, never CORRUPT", async () => {
    const seed = testSeed();
    let completed = false;
    for (let k = 0; !completed; k++) {
      for (const variant of [0, 1, 2]) {
        const { sim, log } = await filledLog(seed * 1000 + k * 3 + variant);
        sim.injectFault({ op: "write", path: TMP, code: "ENOSPC", times: variant === 2 ? 2 : 1 });
        sim.scheduleCrash({ afterOps: k });
        let resolved = false;
        try {
          await log.deleteRecordsBefore(7);
          resolved = true;
        } catch {
          // the power cut (or the second full-disk failure)
        }
        if (resolved && variant === 0) completed = true;
        const rebooted = sim.crash();
        const context = `seed ${seed}: cut after ${k} ops, variant ${variant}`;
        const dir = await openSim(rebooted).catch((err: unknown) => {
          throw new Error(`${context}: reopen failed: ${String(err)}`);
        });
        const back = await dir.log(NAME).catch((err: unknown) => {
          throw new Error(`${context}: log open failed: ${String(err)}`);
        });
        const offsets = (await readAll(back)).map((r) => r.offset);
        const start = back.startOffset;
        expect(offsets, context).toEqual(Array.from({ length: 10 - start }, (_, i) => start + i));
        if (resolved) expect(start, context).toBe(7);
        // Nothing deleted comes back after the recovery, a later checkpoint and another crash.
        await dir.checkpoint();
        const again = await (await openSim(rebooted.crash())).log(NAME);
        expect(again.startOffset, context).toBeGreaterThanOrEqual(start);
      }
      if (k > 200) throw new Error("the full-disk path never completed");
    }
  });

  it("a disk the log filled: recovery keeps the active segment's rebuilt index in memory, so the log opens, reads and frees space", async () => {
    const sim = new SimStorage({ seed: 4 });
    const dir = await openSim(sim, { segmentBytes: 250, indexIntervalBytes: 0 });
    const log = await dir.log(NAME);
    const model = await appendBatches(log, 10);
    await log.flush();
    await dir.checkpoint();
    const active = log.segmentBaseOffsets.at(-1)!;
    expect(active).toBeGreaterThan(0);
    // The crash leaves the disk full: no index write finds a block.
    const rebooted = sim.crash(keepEverything);
    for (const suffix of [".index", ".timeindex"])
      rebooted.injectFault({
        op: "write",
        path: `${NAME}/${offsetName(active)}${suffix}`,
        code: "ENOSPC",
        times: 1000,
      });
    const back = await (await openSim(rebooted, { segmentBytes: 250, indexIntervalBytes: 0 })).log(NAME);
    expect(back.recovery.clean).toBe(false);
    expect(await readAll(back)).toEqual(model);
    for (const m of model) expect(await back.offsetForTimestamp(m.timestamp)).toBe(m.offset);
    // Reads go through the index in memory; the file is empty (a correct index), never a prefix.
    expect((await rebooted.stat(`${NAME}/${offsetName(active)}.timeindex`))?.size).toBe(0);
    await back.deleteRecordsBefore(active);
    expect(back.startOffset).toBe(active);
    expect(back.segmentCount).toBe(1);
  });
});
