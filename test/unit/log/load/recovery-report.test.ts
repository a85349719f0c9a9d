/**
 * `log.recovery` names each decision an open made, not only its byte counts: where a torn tail
 * was cut, segments deleted after a gap, interrupted truncations finished, a start over, and
 * the leftover files removed. The crash fuzzer counts its reach from these (src/testing).
 */
import { describe, expect, it } from "vitest";
import { CLEAN_SHUTDOWN_FILE, LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { keepEverything, keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  fileSize,
  freshLog,
  openSim,
  readAll,
  readText,
  seededBytes,
  segPath,
  writeFile,
} from "../helpers.js";

const SMALL = { segmentBytes: 600, indexIntervalBytes: 0 };

/** A log of several flushed segments, crashed with everything written but no recovery-point checkpoint. */
async function crashedWithoutCheckpoint(): Promise<{ rebooted: SimStorage; bases: readonly number[] }> {
  const { sim, log } = await freshLog(SMALL);
  await appendBatches(log, 20);
  await log.flush();
  const bases = log.segmentBaseOffsets;
  expect(bases.length).toBeGreaterThan(2);
  const rebooted = sim.crash(keepEverything);
  // No recovery point: the open walks every segment from the first.
  if ((await rebooted.stat(RECOVERY_POINT_CHECKPOINT)) !== null) await rebooted.remove(RECOVERY_POINT_CHECKPOINT);
  return { rebooted, bases };
}

describe("log.recovery: the decisions an open made", () => {
  it("a clean open decides nothing", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 5);
    await dir.close();
    const again = await (await openSim(sim)).log(NAME, SMALL);
    expect(again.recovery).toMatchObject({
      clean: true,
      tailCut: "none",
      segmentsDeletedAfterGap: 0,
      truncationsFinished: 0,
      startedOver: false,
      leftoversRemoved: [],
    });
  });

  it("garbage after the last segment's batches: tailCut 'last-segment', nothing deleted", async () => {
    const { rebooted, bases } = await crashedWithoutCheckpoint();
    const last = segPath(bases.at(-1)!, ".log");
    await writeFile(rebooted, last, await fileSize(rebooted, last), seededBytes(50, 3), { sync: true });
    const after = await (await openSim(rebooted)).log(NAME, SMALL);
    expect(after.recovery).toMatchObject({ clean: false, tailCut: "last-segment", bytesTruncated: 50 });
    expect(after.recovery.segmentsDeleted).toBe(0);
  });

  it("garbage after the first segment's batches: tailCut 'mid-log', every later segment deleted", async () => {
    const { rebooted, bases } = await crashedWithoutCheckpoint();
    const first = segPath(bases[0]!, ".log");
    await writeFile(rebooted, first, await fileSize(rebooted, first), seededBytes(50, 4), { sync: true });
    const after = await (await openSim(rebooted)).log(NAME, SMALL);
    expect(after.recovery).toMatchObject({ tailCut: "mid-log", segmentsDeleted: bases.length - 1 });
    expect(after.recovery.segmentsDeletedAfterGap).toBe(0);
    expect(after.segmentBaseOffsets).toEqual([bases[0]]);
  });

  it("a middle segment gone: the segments after the gap are deleted, and counted as such", async () => {
    const { rebooted, bases } = await crashedWithoutCheckpoint();
    for (const suffix of [".log", ".index", ".timeindex"] as const) await rebooted.remove(segPath(bases[1]!, suffix));
    const after = await (await openSim(rebooted)).log(NAME, SMALL);
    expect(after.recovery).toMatchObject({ tailCut: "none", segmentsDeletedAfterGap: bases.length - 2 });
    expect(after.recovery.segmentsDeleted).toBe(bases.length - 2);
  });

  it("leftovers are named", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendBatches(log, 5);
    await dir.close();
    const names = ["00000000000000000003.log.tmp", "00000000000000000007.index"];
    for (const name of names)
      await writeFile(sim, `${NAME}/${name}`, 0, new Uint8Array(4), { create: true, sync: true });
    await sim.syncDir(NAME);
    const after = await (await openSim(sim)).log(NAME, SMALL);
    expect([...after.recovery.leftoversRemoved].sort()).toEqual([...names].sort());
    expect(after.recovery.filesRemoved).toBe(2);
  });

  it("a start moved past records that were then lost: the log started over at the start", async () => {
    const { sim, log } = await freshLog(SMALL);
    await appendBatches(log, 3);
    await log.flush();
    await appendBatches(log, 3); // never flushed
    await log.deleteRecordsBefore(5); // checkpoints the start durably
    const after = await (await openSim(sim.crash(keepNothing))).log(NAME, SMALL);
    expect(after.recovery.startedOver).toBe(true);
    expect(after.startOffset).toBe(5);
    expect(await readAll(after)).toEqual([]);
  });

  it("a start over cut at every operation: the next open starts over too, never CORRUPT", async () => {
    // A deleteRecordsBefore past the recovery point, cut after it checkpointed the start but not
    // the recovery point: the open starts over, deleting every segment newest first, and a cut
    // in between leaves older segments that end below the recovery point. Nothing below the
    // start has to survive: every later open must start over too.
    const crashed = async (): Promise<{ rebooted: SimStorage; start: number }> => {
      const { sim, dir, log } = await freshLog(SMALL);
      await appendBatches(log, 12); // several segments
      await dir.close(); // checkpoints the recovery point at the end
      const rebooted = sim.crash(keepNothing);
      const start = log.endOffset + 2;
      await rebooted.remove(CLEAN_SHUTDOWN_FILE); // a crash, not a clean shutdown
      await rebooted.syncDir("");
      await writeFile(
        rebooted,
        LOG_START_CHECKPOINT,
        0,
        new TextEncoder().encode(`0\n1\n${NAME.replace(/-(\d+)$/, " $1")} ${start}\n`),
        {
          sync: true,
        },
      );
      return { rebooted, start };
    };
    let cutsInside = 0;
    for (let cut = 0; ; cut++) {
      const { rebooted, start } = await crashed();
      expect((await readText(rebooted, RECOVERY_POINT_CHECKPOINT)).trim().split(/\s+/).at(-1)).toBe(String(start - 2));
      rebooted.scheduleCrash({ afterOps: cut });
      const opened = await openSim(rebooted)
        .then((dir) => dir.log(NAME, SMALL))
        .catch((err: unknown) => err as Error);
      if (!(opened instanceof Error)) {
        expect(opened.recovery.startedOver).toBe(true);
        break;
      }
      expect(opened.message).toMatch(/power/i);
      cutsInside++;
      // Every deletion the cut interrupted reached the disk (an unsynced one may, too).
      const after = await (await openSim(rebooted.crash(keepEverything))).log(NAME, SMALL);
      expect(after.startOffset, `cut ${cut}`).toBe(start);
      expect(await readAll(after), `cut ${cut}`).toEqual([]);
    }
    expect(cutsInside).toBeGreaterThan(5);
  });

  it("a truncateTo inside a batch, cut at every operation: some reopen finishes the interrupted cut", async () => {
    const finished: number[] = [];
    for (let cut = 0; cut < 60; cut++) {
      const { sim, log } = await freshLog({ segmentBytes: 4000, indexIntervalBytes: 0 });
      await appendBatches(log, 4, 3); // batches of 3 records: offset 4 lies inside the second
      await log.flush();
      sim.scheduleCrash({ afterOps: cut });
      try {
        await log.truncateTo(4);
      } catch {
        // the power cut
      }
      const after = await (await openSim(sim.crash(keepEverything))).log(NAME);
      if (after.recovery.truncationsFinished > 0) finished.push(cut);
      expect(after.endOffset === 4 || after.endOffset === 12, `cut ${cut}: end ${after.endOffset}`).toBe(true);
    }
    expect(finished.length).toBeGreaterThan(0);
  });
});
