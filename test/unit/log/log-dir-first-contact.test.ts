/**
 * The log directory's findings of the first-contact review: checkpoints keep the entries of
 * partitions this process could not open, an open that rejects leaves the clean-shutdown marker,
 * and `dir.log()` after an un-awaited `log.close()` gives a working log.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { CLEAN_SHUTDOWN_FILE, LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../../../src/log/log-dir.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { snapshotStorage } from "../../support/storage-snapshot.js";
import { appendBatches, expectCode, openSim, readAll, readText, recordAt, writeFile } from "./helpers.js";

describe("checkpoints carry forward partitions this process did not open", () => {
  it("a close after a failed dir.log() keeps that partition's log start offset", async () => {
    const sim = new SimStorage({ seed: 3 });
    const dir = await openSim(sim, { segmentBytes: 200 });
    const c0 = await dir.log("c-0");
    await appendBatches(c0, 10);
    await c0.flush();
    await c0.deleteRecordsBefore(6);
    const start = c0.startOffset;
    expect(start).toBe(6);
    await dir.close();
    const before = await readText(sim, LOG_START_CHECKPOINT);
    expect(before).toContain(`c 0 ${start}`);

    // The partition's directory is moved aside and a file put in its place: dir.log() rejects.
    await sim.rename("c-0", "c-0.aside");
    await writeFile(sim, "c-0", 0, new Uint8Array([1, 2, 3]), { create: true });
    await sim.syncDir("");
    const dir2 = await openSim(sim);
    await expectCode(() => dir2.log("c-0"), ErrorCode.IO);
    await (await dir2.log("other-0")).append([recordAt(0)]);
    await dir2.close();
    expect(await readText(sim, LOG_START_CHECKPOINT)).toContain(`c 0 ${start}`);
    expect(await readText(sim, RECOVERY_POINT_CHECKPOINT)).toContain("c 0 10");

    // Once the directory is back, its deleted records stay deleted.
    await sim.remove("c-0");
    await sim.rename("c-0.aside", "c-0");
    await sim.syncDir("");
    const dir3 = await openSim(sim);
    const back = await dir3.log("c-0");
    expect(back.startOffset).toBe(start);
    expect((await readAll(back)).map((r) => r.offset)).toEqual([6, 7, 8, 9]);
    await dir3.close();
  });

  it("an entry whose partition directory was deleted is dropped (a new log there starts at 0)", async () => {
    const sim = new SimStorage({ seed: 4 });
    const dir = await openSim(sim, { segmentBytes: 200 });
    const gone = await dir.log("gone-0");
    await appendBatches(gone, 6);
    await gone.deleteRecordsBefore(4);
    await dir.close();
    for (const f of await sim.list("gone-0")) await sim.remove(`gone-0/${f}`);
    await sim.remove("gone-0");
    await sim.syncDir("");
    const dir2 = await openSim(sim);
    await dir2.close();
    expect(await readText(sim, LOG_START_CHECKPOINT)).not.toContain("gone 0");
  });
});

describe("an open that rejects changes no byte", () => {
  it("a leftover checkpoint .tmp that cannot be removed fails the open with the marker still there", async () => {
    const sim = new SimStorage({ seed: 5 });
    const dir = await openSim(sim);
    await appendBatches(await dir.log("a-0"), 3);
    await dir.close();
    await writeFile(sim, `${RECOVERY_POINT_CHECKPOINT}.tmp`, 0, new Uint8Array([48, 10]), { create: true, sync: true });
    await sim.syncDir("");
    // The lock file is not data: a power cut may leave one behind (its removal is not fsynced).
    // Nor is the durable offset a flush publishes for other processes (never fsynced by design:
    // a power cut may take it back, and a reader then uses the checkpoint).
    const withoutLock = async (storage: SimStorage) => {
      const { [".lock"]: _lock, ...rest } = await snapshotStorage(storage);
      return Object.fromEntries(Object.entries(rest).filter(([path]) => !path.endsWith("/pagelog-durable-offset")));
    };
    const before = await withoutLock(sim);
    expect(before[CLEAN_SHUTDOWN_FILE]).toBeDefined();
    sim.injectFault({ op: "remove", path: `${RECOVERY_POINT_CHECKPOINT}.tmp`, code: "EIO" });
    await expectCode(() => openSim(sim), ErrorCode.IO);
    // Durably: a power cut right now still finds the marker.
    const after = sim.crash();
    expect(await withoutLock(after)).toEqual(before);
    const again = await openSim(after);
    expect(again.clean).toBe(true);
    await again.close();
  });
});

describe("dir.log() while the log is closing", () => {
  it("right after an un-awaited log.close() gives an open log, not the closing one", async () => {
    const sim = new SimStorage({ seed: 6 });
    const dir = await openSim(sim);
    const log = await dir.log("a-0");
    await log.append([recordAt(0)]);
    const closing = log.close();
    const reopened = await dir.log("a-0");
    await closing;
    expect(reopened).not.toBe(log);
    expect(reopened.status).toBe("open");
    await reopened.append([recordAt(1)]);
    expect((await readAll(reopened)).map((r) => r.offset)).toEqual([0, 1]);
    // Two callers at once share one reopened log.
    const closing2 = reopened.close();
    const [x, y] = await Promise.all([dir.log("a-0"), dir.log("a-0")]);
    await closing2;
    expect(x).toBe(y);
    expect(x.status).toBe("open");
    await dir.close();
  });
});
