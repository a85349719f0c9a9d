/**
 * A read-only open of a directory a cleaning left mid-swap (issue 22, Deliver 3 and guarantee 10):
 * `LogDir.open(dir, { readOnly: true })` presents the records the writer's next open will present
 * once it has finished (or discarded) the interrupted cleaning, and changes nothing: it runs on a
 * RecordingStorage that refuses every mutation, and the files are byte for byte the same after it.
 *
 * The leftover states come from a real `log.compact()` stopped at each of its storage operations in
 * turn (the process killed there: the page cache kept), sorted by what they leave: `.cleaned` files
 * only; a `.log.swap` with every segment it replaces still there; a `.log.swap` with some or all of
 * them already removed. A `.deleted` file (Kafka's name for a segment on its way out; pagelog's
 * retention leaves one on a full disk) is added by hand to a finished cleaning.
 */
import { describe, expect, it } from "vitest";
import type { LogDir } from "../../../../src/log/log-dir.js";
import { LogDir as Dir } from "../../../../src/node.js";
import { keepEverything, SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage, type StorageOp } from "../../../../src/testing/hooked-storage.js";
import { RecordingStorage } from "../../../support/recording-storage.js";
import { snapshotStorage } from "../../../support/storage-snapshot.js";
import { ErrorCode } from "../../../../src/errors.js";
import { NAME, expectCode, openSim, readAll, readFile, segPath, writeFile, type PlainRecord } from "../helpers.js";

/** Written with small segments; cleaned (and read) with larger ones, so that cleaning groups them. */
const WRITTEN = { cleanupPolicy: "compact", segmentBytes: 200, indexIntervalBytes: 64 } as const;
const OPTIONS = { ...WRITTEN, segmentBytes: 700 } as const;

/**
 * Where the process may die: before each call that changes a name or makes something durable (the
 * writes between two of them only fill `.cleaned` files, a state the next sync stops in too).
 */
const STOPS: ReadonlySet<StorageOp["kind"]> = new Set(["sync", "rename", "remove", "syncDir"]);

/** A log of repeated keys and tombstones over several segments, flushed and checkpointed, closed. */
async function prepared(): Promise<{ sim: SimStorage; bases: readonly number[] }> {
  const sim = new SimStorage({ seed: 7 });
  const dir = await openSim(sim);
  const log = await dir.log(NAME, WRITTEN);
  for (let i = 0; i < 40; i++) {
    const key = `k${i % 7}`;
    await log.append([{ key, value: i % 11 === 10 ? null : `v${i}`, timestamp: 1_000 + i }]);
  }
  const bases = log.segmentBaseOffsets;
  await dir.close();
  return { sim, bases };
}

type Leftover = "none" | "cleaned only" | "swap, old segments present" | "swap, old segments removed";

/** What a stopped cleaning left in the partition directory. */
function classify(names: readonly string[], bases: readonly number[]): Leftover {
  const swap = names.find((n) => n.endsWith(".log.swap"));
  if (swap !== undefined) {
    const present = bases.filter((b) => names.includes(segPath(b, ".log").slice(NAME.length + 1)));
    return present.length === bases.length ? "swap, old segments present" : "swap, old segments removed";
  }
  return names.some((n) => n.endsWith(".cleaned")) ? "cleaned only" : "none";
}

/**
 * The directory `compact()` leaves when its process dies before its stop number `stop` (everything
 * it wrote stays readable: a kill, not a power cut).
 */
async function stoppedAfter(stop: number): Promise<{ sim: SimStorage; finished: boolean; bases: readonly number[] }> {
  const { sim, bases } = await prepared();
  let left = Number.POSITIVE_INFINITY;
  const dead = new HookedStorage(sim, (op, run) => {
    if (STOPS.has(op.kind) && left-- <= 0) return Promise.reject(new Error("killed"));
    return run();
  });
  const dir = await Dir.open(dead, { log: OPTIONS });
  const log = await dir.log(NAME);
  left = stop;
  const finished = await log.compact().then(
    () => true,
    () => false,
  );
  return { sim: sim.crash(keepEverything), finished, bases };
}

interface View {
  readonly records: PlainRecord[];
  readonly start: number;
  readonly end: number;
  readonly byTime: Array<number | null>;
}

async function view(dir: LogDir): Promise<View> {
  const log = await dir.log(NAME);
  const byTime: Array<number | null> = [];
  for (const t of [0, 1_010, 1_033, 1_059]) byTime.push(await log.offsetForTimestamp(t));
  return { records: await readAll(log), start: log.startOffset, end: log.endOffset, byTime };
}

/** The read-only view (checked to write nothing), then the writer's view after its own open. */
async function bothViews(sim: SimStorage): Promise<{ readOnly: View; writer: View }> {
  const before = await snapshotStorage(sim);
  const recording = new RecordingStorage(sim);
  const reader = await Dir.open(recording, { readOnly: true, log: OPTIONS });
  const readOnly = await view(reader);
  await reader.close();
  expect(recording.writes).toEqual([]);
  expect(await snapshotStorage(sim)).toEqual(before);
  // The writer's open as it finishes the swap, before a background cleaning could clean further
  // (no segment is ever old enough for it): that later cleaning is no part of what a reader sees.
  const writerDir = await openSim(sim, { ...OPTIONS, minCompactionLagMs: Number.MAX_SAFE_INTEGER });
  const writer = await view(writerDir);
  await writerDir.close();
  return { readOnly, writer };
}

describe("read-only open after a crash mid-swap", () => {
  it("presents what the writer's open presents after finishing the swap, for every stopping point", async () => {
    const seen = new Map<Leftover, number>();
    for (let stop = 0; ; stop++) {
      const { sim, finished, bases } = await stoppedAfter(stop);
      if (finished) expect(stop, "stops before the cleaning finished").toBeGreaterThan(20);
      const state = classify(await sim.list(NAME), bases);
      seen.set(state, (seen.get(state) ?? 0) + 1);
      const { readOnly, writer } = await bothViews(sim);
      expect(readOnly, `stopped before stop ${stop} (${state})`).toEqual(writer);
      if (finished) break;
    }
    expect([...seen.keys()].sort()).toEqual(
      ["cleaned only", "none", "swap, old segments present", "swap, old segments removed"].sort(),
    );
    // Not a swap of one segment only: some states hold a swap beside fewer old segments.
    expect(seen.get("swap, old segments removed")).toBeGreaterThan(1);
  }, 60_000);

  it("a leftover .deleted segment (on a cleaned log) is ignored as the writer's open removes it", async () => {
    const { sim } = await stoppedAfter(Number.MAX_SAFE_INTEGER);
    const names = await sim.list(NAME);
    const logs = names.filter((n) => n.endsWith(".log"));
    // An old copy of the first segment, renamed on its way out, and a stray one of a later base.
    const first = `${NAME}/${logs[0]!}`;
    await writeFile(sim, `${first}.deleted`, 0, await readFile(sim, first), { create: true, sync: true });
    await writeFile(sim, segPath(5, ".log").concat(".deleted"), 0, await readFile(sim, first), {
      create: true,
      sync: true,
    });
    await sim.syncDir(NAME);
    const { readOnly, writer } = await bothViews(sim);
    expect(readOnly).toEqual(writer);
    expect((await sim.list(NAME)).filter((n) => n.endsWith(".deleted"))).toEqual([]);
  });

  it("a .swap that cannot be finished safely is refused read-only as the writer refuses it, nothing changed", async () => {
    const { sim } = await prepared();
    const names = (await sim.list(NAME)).filter((n) => n.endsWith(".log"));
    // The first two segments' bytes under the first one's name, torn: not whole batches.
    const bytes = new Uint8Array([
      ...(await readFile(sim, `${NAME}/${names[0]!}`)),
      ...(await readFile(sim, `${NAME}/${names[1]!}`)),
    ]);
    await writeFile(sim, `${NAME}/${names[0]!}.swap`, 0, bytes.slice(0, -5), { create: true, sync: true });
    const before = await snapshotStorage(sim);
    const recording = new RecordingStorage(sim);
    const reader = await Dir.open(recording, { readOnly: true, log: OPTIONS });
    const readOnly = await expectCode(() => reader.log(NAME), ErrorCode.CORRUPT);
    await reader.close();
    expect(recording.writes).toEqual([]);
    // The writer's open as it finishes the swap, before a background cleaning could clean further
    // (no segment is ever old enough for it): that later cleaning is no part of what a reader sees.
    const writerDir = await openSim(sim, { ...OPTIONS, minCompactionLagMs: Number.MAX_SAFE_INTEGER });
    const writer = await expectCode(() => writerDir.log(NAME), ErrorCode.CORRUPT);
    await writerDir.close();
    expect(readOnly.message).toBe(writer.message);
    expect(await snapshotStorage(sim)).toEqual(before);
  });
});
