/**
 * A durable append costs one fsync: with `flushMessages: 1` each append syncs the active
 * segment's `.log` and nothing else (its indexes are made durable by a roll or a clean close;
 * after a crash recovery rebuilds them from the log). A roll syncs the sealed segment whole, and
 * close syncs the active segment's indexes before the clean-shutdown marker.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";

function counting(): { storage: HookedStorage; syncs: string[]; dirSyncs: string[] } {
  const syncs: string[] = [];
  const dirSyncs: string[] = [];
  const storage = new HookedStorage(new SimStorage({ seed: 1 }), (op, run) => {
    if (op.kind === "sync") syncs.push(op.path);
    if (op.kind === "syncDir") dirSyncs.push(op.path);
    return run();
  });
  return { storage, syncs, dirSyncs };
}

const value = new Uint8Array(1024).fill(7);
const records = (n: number) => Array.from({ length: n }, () => ({ value }));

describe("durable appends: one fsync each", () => {
  it("flushMessages 1: every append syncs the .log once, never an index, while the segment is active", async () => {
    const { storage, syncs } = counting();
    const dir = await LogDir.open(storage, { log: { flushMessages: 1, indexIntervalBytes: 4096 } });
    const log = await dir.log("t-0");
    syncs.length = 0;
    for (let i = 0; i < 50; i++) await log.append(records(64)); // 64 KiB each: an index entry every append
    expect(syncs).toHaveLength(50);
    expect(new Set(syncs)).toEqual(new Set(["t-0/00000000000000000000.log"]));
    expect(log.recoveryPoint).toBe(log.endOffset);
    // A clean close makes the active segment's indexes durable (then the checkpoints and the marker).
    syncs.length = 0;
    await dir.close();
    expect(syncs).toEqual(
      expect.arrayContaining(["t-0/00000000000000000000.index", "t-0/00000000000000000000.timeindex"]),
    );
    const reopened = await LogDir.open(storage);
    const again = await reopened.log("t-0");
    expect(again.recovery.clean).toBe(true);
    expect(again.recovery.segmentsScanned).toBe(0);
    expect(again.endOffset).toBe(50 * 64);
    await reopened.close();
  });

  it("a roll syncs the sealed segment whole before the recovery point passes it", async () => {
    const { storage, syncs } = counting();
    const dir = await LogDir.open(storage, { log: { flushMessages: 1, segmentBytes: 200_000 } });
    const log = await dir.log("t-0");
    syncs.length = 0;
    for (let i = 0; i < 4; i++) await log.append(records(64)); // the fourth rolls (66 KB each)
    const sealed = "t-0/00000000000000000000";
    expect(syncs.filter((p) => p.startsWith(sealed))).toEqual(
      expect.arrayContaining([`${sealed}.log`, `${sealed}.index`, `${sealed}.timeindex`]),
    );
    await dir.close();
  });
});
