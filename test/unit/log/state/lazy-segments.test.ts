/**
 * Lazy segments: a clean open reads the listing, the checkpoints and the active segment only;
 * an old segment is opened, sized and checked on its first use. Damage found then is
 * PAGELOG_CORRUPT naming the file, from that use, with no byte changed; concurrent first uses of
 * one segment load it once (a storage that holds an open until the test lets it go decides the
 * interleaving, no clock involved).
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir, type RecoveryProgress } from "../../../../src/log/log-dir.js";
import type { SlotContext } from "../../../../src/log/state/segment-slot.js";
import { idleSlot } from "../../../../src/log/state/idle-slot.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { HookedStorage, type StorageOp } from "../../../../src/testing/hooked-storage.js";
import {
  appendBatches,
  expectCode,
  NAME,
  openSim,
  type PlainRecord,
  plain,
  readAll,
  readFile,
  segPath,
  writeFile,
} from "../helpers.js";

const SMALL = { segmentBytes: 300 };

/** A log of several segments, closed cleanly. */
async function closedLog(batches = 12): Promise<{ sim: SimStorage; model: PlainRecord[]; bases: number[] }> {
  const sim = new SimStorage({ seed: 7 });
  const dir = await openSim(sim, SMALL);
  const log = await dir.log(NAME);
  const model = await appendBatches(log, batches);
  const bases = log.segmentBaseOffsets;
  expect(bases.length).toBeGreaterThan(3);
  await dir.close();
  return { sim, model, bases };
}

/** Every storage call, and a way to hold the opens of one path until released. */
function recorded(inner: Storage) {
  const ops: StorageOp[] = [];
  let holdPath: string | undefined;
  let held: Array<() => void> = [];
  const storage = new HookedStorage(inner, async (op, run) => {
    ops.push(op);
    if (op.kind === "open" && op.path === holdPath) await new Promise<void>((resolve) => held.push(resolve));
    return run();
  });
  return {
    storage,
    ops,
    hold: (path: string) => (holdPath = path),
    held: () => held.length,
    release: () => {
      holdPath = undefined;
      for (const go of held.splice(0)) go();
      held = [];
    },
  };
}

/** Every file of the partition, byte for byte. */
async function snapshot(sim: SimStorage): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await sim.list(NAME))
    out.set(name, Buffer.from(await readFile(sim, `${NAME}/${name}`)).toString("hex"));
  return out;
}

const touching = (ops: readonly StorageOp[], base: number) =>
  ops.filter(
    (op) => op.kind !== "list" && [".log", ".index", ".timeindex"].some((x) => op.path === segPath(base, x as ".log")),
  );

/** Lets queued microtasks and storage calls run (SimStorage resolves in microtasks). */
const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
};

describe("lazy segments", () => {
  it("a clean open reads nothing of the old segments but their names; a read opens only the segment it reads", async () => {
    const { sim, model, bases } = await closedLog();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    const log = await dir.log(NAME, SMALL);
    expect(log.recovery.clean).toBe(true);
    expect(log.segmentBaseOffsets).toEqual(bases);
    expect(log.endOffset).toBe(model.length);
    for (const base of bases.slice(0, -1)) expect(touching(rec.ops, base), `segment ${base}`).toEqual([]);
    // Idle segments hold no descriptor: only the active segment's three files are open.
    expect(dir.storage.stats.files).toBe(3);
    const second = bases[1]!;
    expect((await log.read(second, { maxRecords: 1 })).map(plain)).toEqual([model[second]]);
    expect(touching(rec.ops, second).length).toBeGreaterThan(0);
    for (const base of bases.slice(0, -1).filter((b) => b !== second))
      expect(touching(rec.ops, base), `segment ${base}`).toEqual([]);
    expect(await readAll(log)).toEqual(model);
    await dir.close();
  });

  it("a LogDir of many partitions opens without touching any of them; logs() still lists them", async () => {
    const sim = new SimStorage({ seed: 3 });
    const first = await openSim(sim);
    const names = Array.from({ length: 40 }, (_, i) => `p-${i}`);
    for (const name of names) await appendBatches(await first.log(name), 1);
    await first.close();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    expect(rec.ops.filter((op) => names.some((n) => op.path === n || op.path.startsWith(`${n}/`)))).toEqual([]);
    expect(await dir.logs()).toEqual([...names].sort());
    expect((await (await dir.log("p-7")).read(0)).length).toBe(1);
    await dir.close();
  });

  // What the damage is, how it is made to the second segment, what the error says, and which
  // segment it names: a deleted `.log` is a gap after the first segment, found at its first use.
  const damages: Array<[string, (sim: SimStorage, base: number, next: number) => Promise<void>, string, number?]> = [
    [
      "a flipped byte in a batch",
      async (sim, base) => {
        const bytes = await readFile(sim, segPath(base, ".log"));
        await writeFile(
          sim,
          segPath(base, ".log"),
          bytes.length - 5,
          new Uint8Array([bytes[bytes.length - 5]! ^ 0x40]),
        );
      },
      ".log",
    ],
    [
      "its last batch gone (a gap before the next segment)",
      async (sim, base) => {
        const bytes = await readFile(sim, segPath(base, ".log"));
        const first = new DataView(bytes.buffer, bytes.byteOffset).getInt32(8) + 12;
        expect(first).toBeLessThan(bytes.length);
        await writeFile(sim, segPath(base, ".log"), 0, new Uint8Array(0), { truncate: first });
      },
      "records are missing",
    ],
    [
      "a copy of the next segment's first batch appended (an overlap)",
      async (sim, base, next) => {
        const bytes = await readFile(sim, segPath(base, ".log"));
        const after = await readFile(sim, segPath(next, ".log"));
        const length = new DataView(after.buffer, after.byteOffset).getInt32(8) + 12;
        await writeFile(sim, segPath(base, ".log"), bytes.length, after.subarray(0, length));
      },
      "overlap",
    ],
    ["its .log deleted", async (sim, base) => sim.remove(segPath(base, ".log")), "records are missing", 0],
  ];

  for (const [what, damage, says, named = 1] of damages) {
    it(`damage in an old segment (${what}) is PAGELOG_CORRUPT at its first use, naming the file; nothing is written`, async () => {
      const { sim, model, bases } = await closedLog();
      const [, victim, next] = bases as [number, number, number];
      const culprit = bases[named]!;
      await damage(sim, victim, next);
      const dir = await openSim(sim, SMALL);
      const log = await dir.log(NAME); // the open does not look at it
      const before = await snapshot(sim);
      for (let attempt = 0; attempt < 2; attempt++) {
        const err = await expectCode(() => log.read(victim), ErrorCode.CORRUPT);
        expect(err.path).toBe(segPath(culprit, ".log"));
        expect(err.message).toContain(says === ".log" ? "byte" : says);
      }
      // An iteration hands out the records before the damage, then the error: never an early end.
      const seen: number[] = [];
      const iteration = (async () => {
        for await (const r of log.records()) seen.push(r.offset);
      })();
      await expect(iteration).rejects.toMatchObject({ code: ErrorCode.CORRUPT });
      expect(seen).toEqual(model.slice(0, culprit).map((m) => m.offset));
      // The segments around it still read, and the rejecting uses changed no byte.
      expect((await log.read(next)).map(plain)[0]).toEqual(model[next]);
      expect(await snapshot(sim)).toEqual(before);
      expect(log.status).toBe("open");
      await dir.close();
    });
  }

  it("an old segment's missing indexes are rebuilt on first use, after its checks, and counted in recovery", async () => {
    const { sim, model, bases } = await closedLog();
    await sim.remove(segPath(bases[0]!, ".index"));
    const dir = await openSim(sim, SMALL);
    const log = await dir.log(NAME);
    expect(log.recovery.indexesRebuilt).toBe(0);
    expect(await sim.stat(segPath(bases[0]!, ".index"))).toBeNull();
    expect((await log.read(0)).map(plain)[0]).toEqual(model[0]);
    expect(log.recovery.indexesRebuilt).toBe(1);
    expect(await sim.stat(segPath(bases[0]!, ".index"))).not.toBeNull();
    await dir.close();
  });

  it("two concurrent first uses of one segment load it once", async () => {
    const { sim, model, bases } = await closedLog();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    const log = await dir.log(NAME, SMALL);
    const target = bases[2]!;
    rec.hold(segPath(target, ".log"));
    const a = log.read(target, { maxRecords: 1 });
    const b = log.offsetForTimestamp(model[target]!.timestamp);
    const c = log.read(target, { maxRecords: 1 });
    await settle();
    expect(rec.held()).toBe(1);
    rec.release();
    expect((await a).map(plain)).toEqual([model[target]]);
    expect(await b).toBe(target);
    expect((await c).map(plain)).toEqual([model[target]]);
    const opens = rec.ops.filter((op) => op.kind === "open" && op.path === segPath(target, ".log"));
    expect(opens.length).toBe(1);
    await dir.close();
  });

  it("a slot's concurrent loads share one load; close() during a load waits for it and leaves nothing open", async () => {
    const { sim, bases } = await closedLog();
    const rec = recorded(sim);
    const context: SlotContext = {
      storage: rec.storage,
      dir: NAME,
      segmentOptions: { indexIntervalBytes: 4096, maxIndexBytes: 1 << 20, maxBatchBytes: 1 << 20 },
      firstUses: { segmentsLoaded: 0, indexesRebuilt: 0 },
    };
    const slot = idleSlot(context, bases[1]!, bases[2]!);
    rec.hold(segPath(bases[1]!, ".log"));
    const first = slot.load();
    const second = slot.load();
    expect(second).toBe(first);
    await settle();
    const closing = slot.close();
    await settle();
    rec.release();
    await closing;
    await expect(first).rejects.toMatchObject({ code: ErrorCode.CLOSED });
    await expect(slot.load()).rejects.toMatchObject({ code: ErrorCode.CLOSED });
    expect(context.firstUses.segmentsLoaded).toBe(0);
    const opened = rec.ops.filter((op) => op.kind === "open").length;
    const closed = rec.ops.filter((op) => op.kind === "closeFile").length;
    expect(closed).toBe(opened); // every descriptor the load opened was closed
  });

  it("a read and a retention deletion of the same idle segment: the read, first, gets its records; the segment is then gone", async () => {
    const { sim, model, bases } = await closedLog();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    const log = await dir.log(NAME, { ...SMALL, retentionBytes: 1 });
    rec.hold(segPath(bases[0]!, ".log"));
    const read = log.read(0, { maxRecords: 1 });
    const retention = log.applyRetention();
    await settle();
    rec.release();
    expect((await read).map(plain)).toEqual([model[0]]);
    await retention;
    expect(log.segmentBaseOffsets).toEqual([bases.at(-1)]);
    expect(log.startOffset).toBe(bases.at(-1));
    await expectCode(() => log.read(0), ErrorCode.OFFSET_OUT_OF_RANGE);
    for (const base of bases.slice(0, -1)) expect(await sim.stat(segPath(base, ".log"))).toBeNull();
    await dir.close();
    expect(dir.storage.stats.files).toBe(0);
  });

  it("a first use and close(): the read finishes, the close leaves no file open, later uses are PAGELOG_CLOSED", async () => {
    const { sim, model, bases } = await closedLog();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    const log = await dir.log(NAME, SMALL);
    rec.hold(segPath(bases[1]!, ".log"));
    const read = log.read(bases[1]!, { maxRecords: 1 });
    const closing = log.close();
    await settle();
    rec.release();
    expect((await read).map(plain)).toEqual([model[bases[1]!]]);
    await closing;
    expect(dir.storage.stats.files).toBe(0);
    await expectCode(() => log.read(0), ErrorCode.CLOSED);
    await dir.close();
  });

  it("retention by time loads only the segments it looks at; by bytes it sizes the rest without opening them", async () => {
    const { sim, bases } = await closedLog();
    const rec = recorded(sim);
    const dir = await LogDir.open(rec.storage);
    // Every record is far older than a day: retention by time deletes every old segment.
    let now = 1_000_000 + 86_400_000 * 10;
    const log = await dir.log(NAME, { ...SMALL, retentionMs: 86_400_000, clock: { now: () => now } });
    await log.applyRetention();
    expect(log.segmentBaseOffsets).toEqual([bases.at(-1)]);
    now = 0;
    // A log whose records are all newer: only the oldest segment is loaded to learn that.
    const { sim: sim2, bases: bases2 } = await closedLog();
    const rec2 = recorded(sim2);
    const dir2 = await LogDir.open(rec2.storage);
    const kept = await dir2.log(NAME, { ...SMALL, retentionMs: 86_400_000, clock: { now: () => 1_000_000 } });
    await kept.applyRetention();
    expect(kept.segmentBaseOffsets).toEqual(bases2);
    expect(touching(rec2.ops, bases2[0]!).some((op) => op.kind === "open")).toBe(true);
    for (const base of bases2.slice(1, -1)) expect(touching(rec2.ops, base), `segment ${base}`).toEqual([]);
    // By bytes: each idle segment is sized by one stat, never opened.
    const bytes = await dir2.log("other-0", { retentionBytes: 1 });
    expect(bytes.segmentCount).toBe(1);
    await kept.close();
    const bySize = await dir2.log(NAME, { ...SMALL, retentionBytes: 10_000_000 });
    const before = rec2.ops.length;
    await bySize.applyRetention();
    const during = rec2.ops.slice(before);
    for (const base of bases2.slice(1, -1)) {
      expect(
        touching(during, base).map((op) => op.kind),
        `segment ${base}`,
      ).toEqual(["stat"]);
    }
    expect(bySize.size).toBeGreaterThan(0);
    await dir.close();
    await dir2.close();
    void rec;
  });

  it("truncateTo inside an idle segment checks it first, then cuts", async () => {
    const { sim, model, bases } = await closedLog();
    const dir = await openSim(sim, SMALL);
    const log = await dir.log(NAME);
    await log.truncateTo(bases[1]! + 0);
    expect(log.endOffset).toBe(bases[1]);
    expect(await readAll(log)).toEqual(model.slice(0, bases[1]));
    await dir.close();
    const again = await (await openSim(sim, SMALL)).log(NAME);
    expect(await readAll(again)).toEqual(model.slice(0, bases[1]));
  });

  it("a damaged idle segment refuses truncateTo with PAGELOG_CORRUPT, changing no byte", async () => {
    const { sim, bases } = await closedLog();
    const bytes = await readFile(sim, segPath(bases[1]!, ".log"));
    await writeFile(sim, segPath(bases[1]!, ".log"), bytes.length - 5, new Uint8Array([bytes[bytes.length - 5]! ^ 1]));
    const dir = await openSim(sim, SMALL);
    const log = await dir.log(NAME);
    const before = await snapshot(sim);
    const err = await expectCode(() => log.truncateTo(bases[1]!), ErrorCode.CORRUPT);
    expect(err).toBeInstanceOf(PagelogError);
    expect(await snapshot(sim)).toEqual(before);
    await dir.close().catch(() => undefined);
  });
});

describe("recovery progress", () => {
  it("an unclean open reports its walk: before it starts, after each segment, totals in dir.recovery", async () => {
    const sim = new SimStorage({ seed: 5 });
    const first = await openSim(sim, SMALL);
    const model = await appendBatches(await first.log(NAME), 12);
    await (await first.log(NAME)).flush(); // no checkpoint: the recovery walks every segment
    const rebooted = sim.crash();
    const seen: RecoveryProgress[] = [];
    const dir = await LogDir.open(rebooted, { log: SMALL, onProgress: (p) => seen.push(p) });
    const log = await dir.log(NAME);
    expect(log.recovery.clean).toBe(false);
    expect(await readAll(log)).toEqual(model);
    const walked = log.recovery.segmentsScanned;
    expect(walked).toBe(log.segmentCount);
    expect(seen.length).toBe(walked + 1);
    expect(seen[0]).toMatchObject({ log: NAME, bytesWalked: 0, segmentsWalked: 0, segmentsLeft: walked });
    expect(seen.at(-1)).toMatchObject({
      segmentsWalked: walked,
      segmentsLeft: 0,
      bytesWalked: log.recovery.bytesScanned,
    });
    expect(seen.at(-1)!.bytesToWalk).toBe(log.recovery.bytesScanned);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytesWalked).toBeGreaterThan(seen[i - 1]!.bytesWalked);
      expect(seen[i]!.segmentsLeft).toBe(seen[i - 1]!.segmentsLeft - 1);
    }
    expect(dir.recovery).toMatchObject({ segmentsScanned: walked, bytesScanned: log.recovery.bytesScanned });
    await dir.close();
    // A clean open walks nothing and reports nothing.
    seen.length = 0;
    const again = await LogDir.open(rebooted, { onProgress: (p) => seen.push(p) });
    await again.log(NAME);
    expect(seen).toEqual([]);
    await again.close();
  });

  it("a listener that throws does not fail the recovery; onProgress that is not a function is a TypeError", async () => {
    const sim = new SimStorage({ seed: 6 });
    const first = await openSim(sim, SMALL);
    const model = await appendBatches(await first.log(NAME), 6);
    await (await first.log(NAME)).flush();
    const rebooted = sim.crash();
    const dir = await LogDir.open(rebooted, {
      onProgress: () => {
        throw new Error("listener bug");
      },
    });
    expect(await readAll(await dir.log(NAME, SMALL))).toEqual(model);
    await dir.close();
    await expect(LogDir.open(rebooted, { onProgress: 5 as never })).rejects.toThrow(/onProgress/);
    await expect(LogDir.open(rebooted, { onProgres: () => undefined } as never)).rejects.toThrow(TypeError);
  });
});
