/**
 * A writable log's open of an empty partition directory takes a short way that does not load the
 * loader (open-log-files.ts; the loader is a lazy part, docs/entry-points.md). The short way must
 * leave exactly what the loader leaves: the same segment, the same report, the same durable files
 * after a power cut. And any directory that holds something, or whose checkpoint says records
 * were durable, still goes through the loader.
 */
import { describe, expect, it, vi } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { loadLoader } from "../../../../src/log/load/lazy-loader.js";
import type { LoadInput } from "../../../../src/log/load/log-load-input.js";
import { type LoadedLog, loadLog } from "../../../../src/log/load/log-loader.js";
import { openLogFiles } from "../../../../src/log/load/open-log-files.js";
import type { SegmentOptions } from "../../../../src/segment/segment.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";

const DIR = "t-0";
const OPTIONS: SegmentOptions = { indexIntervalBytes: 4096, maxIndexBytes: 10 * 1024 * 1024, maxBatchBytes: 1048588 };

/** A SimStorage with an empty partition directory, made durable. */
async function emptyDir(seed: number): Promise<SimStorage> {
  const disk = new SimStorage({ seed });
  await disk.mkdir(DIR);
  await disk.syncDir("");
  return disk;
}

function inputOf(storage: SimStorage, state: Partial<LoadInput>): LoadInput {
  return {
    storage,
    dir: DIR,
    segmentOptions: OPTIONS,
    clean: false,
    recoveryPoint: undefined,
    logStartOffset: undefined,
    ...state,
  };
}

/** What an open left, apart from its duration: the slots, the report, the files now and after a power cut. */
async function outcome(disk: SimStorage, loaded: LoadedLog) {
  const { durationMs, ...recovery } = loaded.recovery;
  expect(durationMs).toBeGreaterThanOrEqual(0);
  const slots = loaded.segments.map((slot) => [slot.baseOffset, slot.nextOffset]);
  const files = async (storage: SimStorage) =>
    Promise.all((await storage.list(DIR)).map(async (name) => [name, (await storage.stat(`${DIR}/${name}`))?.size]));
  const now = await files(disk);
  await Promise.all(loaded.segments.map((slot) => slot.close()));
  return { recovery, slots, startOffset: loaded.startOffset, now, afterCrash: await files(disk.crash()) };
}

describe("opening a log in an empty directory", () => {
  /** The real door, counting its calls. */
  const countingDoor = () => vi.fn(loadLoader);

  const states: Partial<LoadInput>[] = [
    {},
    { clean: true },
    { logStartOffset: 42 },
    { logStartOffset: 42, recoveryPoint: 42, clean: true },
    { recoveryPoint: 0 },
  ];
  for (const state of states) {
    it(`leaves what the loader leaves, without loading it: ${JSON.stringify(state)}`, async () => {
      const short = await emptyDir(1);
      const door = countingDoor();
      const viaShortWay = await outcome(short, await openLogFiles(inputOf(short, state), door));
      expect(door).not.toHaveBeenCalled();
      const long = await emptyDir(1);
      const viaLoader = await outcome(long, await loadLog(inputOf(long, state)));
      expect(viaShortWay).toEqual(viaLoader);
      // The first segment is durable: a power cut right after the open keeps it.
      expect(viaShortWay.afterCrash.length).toBeGreaterThan(0);
      expect(viaShortWay.afterCrash).toEqual(viaShortWay.now);
    });
  }

  it("an empty directory whose recovery point is past its start lost durable records: the loader says so", async () => {
    const disk = await emptyDir(2);
    const door = countingDoor();
    const open = openLogFiles(inputOf(disk, { recoveryPoint: 5, logStartOffset: 3 }), door);
    await expect(open).rejects.toBeInstanceOf(PagelogError);
    await expect(open).rejects.toMatchObject({ code: ErrorCode.CORRUPT });
    expect(door).toHaveBeenCalledTimes(1);
    expect(await disk.list(DIR)).toEqual([]); // a failed open changes no byte
  });

  it("a directory holding anything goes through the loader, a leftover alone too", async () => {
    const door = countingDoor();
    const disk = await emptyDir(3);
    const first = await openLogFiles(inputOf(disk, {}), door);
    await Promise.all(first.segments.map((slot) => slot.close()));
    expect(door).not.toHaveBeenCalled();
    const again = await openLogFiles(inputOf(disk, {}), door);
    await Promise.all(again.segments.map((slot) => slot.close()));
    expect(door).toHaveBeenCalledTimes(1);

    const leftover = await emptyDir(4);
    const file = await leftover.open(`${DIR}/x.tmp`, { create: true });
    await file.close();
    const loaded = await openLogFiles(inputOf(leftover, {}), door);
    expect(door).toHaveBeenCalledTimes(2);
    expect(loaded.recovery.leftoversRemoved).toEqual(["x.tmp"]);
    await Promise.all(loaded.segments.map((slot) => slot.close()));
  });
});
