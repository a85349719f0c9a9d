/**
 * An index below the recovery point is trusted by the next open, so what a crash can leave of a
 * rebuilt one must never pass for whole. Found by the compaction workload (schedule 1109143074):
 * an open finished a swap (which removes the segment's indexes), the next open rebuilt them and
 * the power went before their fsync; the time index came back empty beside a whole offset index,
 * the open after trusted it, and `offsetForTimestamp` skipped the segment.
 */
import { describe, expect, it } from "vitest";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, fileSize, freshLog, openSim, recordAt, segPath, writeFile } from "../helpers.js";

/** The first offset whose record's timestamp is at or after `ts`, by a walk over every record. */
async function scanForTimestamp(log: Log, ts: number): Promise<number | null> {
  for await (const r of log.records()) if (r.timestamp >= ts) return r.offset;
  return null;
}

/** The size of one batch of one `recordAt` record. */
const BATCH_BYTES = 80;

/** One index entry after every batch; ten batches a segment. */
const OPTIONS = { indexIntervalBytes: 1, segmentBytes: 10 * BATCH_BYTES };

/**
 * A cleanly closed log whose first segment holds its largest timestamp in its first batch (offset
 * 0 at 5,000) and smaller ones after it (offsets 1..9 at 1,001..1,009), one batch a record and an
 * index entry after every batch, then a second segment (offsets 10..11).
 */
async function closedLog(): Promise<SimStorage> {
  const { sim, dir, log } = await freshLog(OPTIONS);
  await log.append([recordAt(0, 5_000)]);
  for (let o = 1; o < 10; o++) await log.append([recordAt(o, 1_000 + o)]);
  for (let o = 10; o < 12; o++) await log.append([recordAt(o, 6_000 + o)]);
  expect(await fileSize(sim, segPath(10, ".log"))).toBeGreaterThan(0);
  await dir.close();
  return sim;
}

describe("a rebuilt index a crash cut short is never trusted", () => {
  it("an empty time index beside a non-empty offset index is rebuilt at a clean open", async () => {
    const sim = await closedLog();
    expect(await fileSize(sim, segPath(0, ".index"))).toBeGreaterThan(0);
    // What the crash left: the rebuilt time index's size never reached the disk.
    await writeFile(sim, segPath(0, ".timeindex"), 0, new Uint8Array(0), { truncate: 0, sync: true });
    const dir = await openSim(sim);
    const log = await dir.log(NAME, OPTIONS);
    expect(log.recovery.clean).toBe(true);
    for (const ts of [999, 1_005, 1_010, 4_999, 5_000, 5_001, 6_010, 6_012])
      expect(await log.offsetForTimestamp(ts), `ts ${ts}`).toBe(await scanForTimestamp(log, ts));
    expect(await log.offsetForTimestamp(1_010)).toBe(0);
    await dir.close();
    // The rebuild is durable: the time index holds entries again, and the next open trusts it.
    expect(await fileSize(sim, segPath(0, ".timeindex"))).toBeGreaterThan(0);
    const again = await openSim(sim);
    const reopened = await again.log(NAME, OPTIONS);
    expect(await reopened.offsetForTimestamp(1_010)).toBe(0);
    await again.close();
  });

  it("both indexes empty need no rebuild: the tail scan reads the whole segment", async () => {
    const sim = await closedLog();
    for (const suffix of [".index", ".timeindex"] as const)
      await writeFile(sim, segPath(0, suffix), 0, new Uint8Array(0), { truncate: 0, sync: true });
    const dir = await openSim(sim);
    const log = await dir.log(NAME, OPTIONS);
    expect(await log.offsetForTimestamp(1_010)).toBe(0);
    expect(await log.offsetForTimestamp(5_001)).toBe(10);
    await dir.close();
  });

  it("a rebuild replacing entries makes the emptied file durable before it writes the new ones", async () => {
    const sim = await closedLog();
    // A lying offset index (its last entry past the log's end) fails the clean open's checks: both
    // indexes are rebuilt over files that hold entries.
    const indexSize = await fileSize(sim, segPath(0, ".index"));
    const lie = new Uint8Array(8);
    new DataView(lie.buffer).setUint32(0, 5);
    new DataView(lie.buffer).setUint32(4, 1 << 20);
    await writeFile(sim, segPath(0, ".index"), indexSize - 8, lie, { sync: true });
    const dir = await openSim(sim);
    const start = sim.opCount;
    const log = await dir.log(NAME, OPTIONS);
    // Older segments load on first use: this lookup loads segment 0.
    expect(await log.offsetForTimestamp(1_010)).toBe(0);
    for (const suffix of [".index", ".timeindex"] as const) {
      const path = segPath(0, suffix);
      const ops = sim.trace.filter((e) => e.seq > start && e.path === path && e.op !== "read" && e.op !== "size");
      const at = (op: string): number => ops.findIndex((e) => e.op === op);
      // truncate to 0, its fsync, then the rebuilt entries: a crash leaves the file empty or whole.
      expect(at("truncate"), `${suffix}: ${ops.map((e) => e.op).join(" ")}`).toBeGreaterThanOrEqual(0);
      expect(at("sync"), `${suffix}: ${ops.map((e) => e.op).join(" ")}`).toBeGreaterThan(at("truncate"));
      expect(at("write"), `${suffix}: ${ops.map((e) => e.op).join(" ")}`).toBeGreaterThan(at("sync"));
    }
    expect(await log.offsetForTimestamp(1_010)).toBe(0);
    await dir.close();
  });
});
