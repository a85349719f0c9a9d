/**
 * Background cleaning (issue 22, Deliver 2): a compacted log cleans itself after the calls that
 * make more of it cleanable, when the dirty ratio reaches `minCleanableDirtyRatio` or a dirty
 * segment waited `maxCompactionLagMs`, never what is younger than `minCompactionLagMs`; one step
 * per queue turn, so an append waits for at most one group's rewrite; a truncation, retention, a
 * close or a failure in the middle never loses or resurrects a record.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode, isPagelogError } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import type { LogOptions } from "../../../../src/log/options/log-options.js";
import { backgroundCleanerOf } from "../../../../src/log/compaction/background-cleaner.js";
import { MAP_ENTRY_OVERHEAD, OffsetMap } from "../../../../src/log/compaction/offset-map.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage, type StorageOp } from "../../../../src/testing/hooked-storage.js";
import { NAME, readAll, type PlainRecord } from "../helpers.js";

const SMALL = { cleanupPolicy: "compact" as const, segmentBytes: 400, indexIntervalBytes: 100 };

function testClock(start = 1_000_000): { t: number; now(): number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

type Hook = (op: StorageOp) => void | Promise<void>;

/** A log on a SimStorage seen through a hook the test can set at any time (called before each operation). */
async function hookedLog(options: LogOptions, sim = new SimStorage({ seed: 3 })) {
  const state: { hook: Hook | undefined; hold: Promise<void> | undefined } = { hook: undefined, hold: undefined };
  const storage = new HookedStorage(sim, async (op, run) => {
    // Held: a roll flush waits at its directory sync, so the recovery point stays where it is.
    if (op.kind === "syncDir" && state.hold !== undefined) await state.hold;
    await state.hook?.(op);
    return run();
  });
  const dir = await LogDir.open(storage, { log: options });
  const log = await dir.log(NAME);
  return { sim, storage, dir, log, state };
}

/** Appends `n` records, one per append, over `keys` keys; timestamps from `clock` if given. */
async function fill(log: Log, n: number, keys: number, model: PlainRecord[], clock?: { t: number }): Promise<void> {
  for (let i = 0; i < n; i++) {
    const offset = log.endOffset;
    const key = `key-${offset % keys}`;
    const timestamp = clock?.t ?? Date.now();
    await log.append([{ key, value: `value-${offset}`, timestamp }]);
    model.push({ offset, timestamp, key, value: `value-${offset}`, headers: [] });
  }
}

/** Cleaning everything below `cleanEnd`: the latest record of each key there, and all from it on. */
function latestBelow(model: readonly PlainRecord[], cleanEnd: number): PlainRecord[] {
  const last = new Map<string | null, number>();
  for (const r of model) if (r.offset < cleanEnd) last.set(r.key, r.offset);
  return model.filter((r) => r.offset >= cleanEnd || last.get(r.key) === r.offset);
}

/** Any compaction of `model` (as far as some clean point): every record appended, the latest of each key present. */
function expectCompactionOf(records: readonly PlainRecord[], model: readonly PlainRecord[]): void {
  const byOffset = new Map(model.map((r) => [r.offset, r]));
  for (const r of records) expect(r).toEqual(byOffset.get(r.offset));
  const latest = new Map<string | null, number>();
  for (const r of model) latest.set(r.key, r.offset);
  const present = new Set(records.map((r) => r.offset));
  for (const [key, offset] of latest) expect(present.has(offset), `latest of ${key} at ${offset}`).toBe(true);
}

/** Waits until the roll flushes made everything below the active segment durable. */
async function rollFlushed(log: Log): Promise<void> {
  await log.waitFor(log.segmentBaseOffsets.at(-1)! - 1, { durable: true, signal: AbortSignal.timeout(5000) });
}

function cleaner(log: Log) {
  const c = backgroundCleanerOf(log);
  expect(c).toBeDefined();
  return c!;
}

async function cleanedLeftovers(storage: { list(d: string): Promise<string[]> }): Promise<string[]> {
  return (await storage.list(NAME)).filter((n) => n.endsWith(".cleaned") || n.endsWith(".swap"));
}

afterEach(() => {
  vi.useRealTimers();
});

describe("background cleaning: when", () => {
  it("after rolls alone (no flush()), cleans without compact() once the dirty ratio reaches minCleanableDirtyRatio", async () => {
    const { dir, log } = await hookedLog(SMALL);
    const model: PlainRecord[] = [];
    await fill(log, 60, 4, model);
    await rollFlushed(log);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBeGreaterThan(0);
    expect(await readAll(log)).toEqual(latestBelow(model, cleaner(log).last!.cleanPoint));
    await dir.close();
  });

  it("a log whose cleanable part is dirty enough is cleaned once its rolls are durable, not before", async () => {
    const h = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 0.9 });
    const { dir, log } = h;
    let release!: () => void;
    h.state.hold = new Promise((resolve) => (release = resolve)); // the roll flushes wait
    const model: PlainRecord[] = [];
    await fill(log, 80, 5, model);
    // Nothing is wholly below the recovery point, so nothing is cleanable yet.
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(0);
    h.state.hold = undefined;
    release();
    await log.flush(); // (it waits for the roll flushes: one look at the cleaner, all durable)
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(1); // never cleaned: the ratio is 1
    const cleanPoint = cleaner(log).last!.cleanPoint;
    // Now the clean part is large: dirty data below 90% of the cleanable range waits.
    await fill(log, 12, 5, model);
    await rollFlushed(log);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(1);
    expect(cleaner(log).last!.cleanPoint).toBe(cleanPoint);
    await dir.close();
  });

  it("maxCompactionLagMs cleans a dirty segment whatever the ratio once its oldest record waited that long", async () => {
    const clock = testClock();
    const { dir, log } = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 1, maxCompactionLagMs: 10_000, clock });
    const model: PlainRecord[] = [];
    await fill(log, 60, 5, model, clock);
    await log.flush();
    await cleaner(log).idle(); // cleaned (ratio 1): now a clean part, the ratio can never reach 1 again
    const cleanPoint = cleaner(log).last!.cleanPoint;
    expect(cleanPoint).toBeGreaterThan(0);
    await fill(log, 20, 5, model, clock);
    await log.flush();
    await cleaner(log).idle();
    const passes = cleaner(log).passes;
    expect(log.segmentBaseOffsets.at(-1)).toBeGreaterThan(cleanPoint); // dirty closed segments exist
    clock.t += 9_999;
    await fill(log, 8, 5, model, clock); // rolls: a look, still not due
    await log.flush();
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(passes);
    clock.t += 2;
    await fill(log, 8, 5, model, clock);
    await log.flush();
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(passes + 1);
    expect(cleaner(log).last!.cleanPoint).toBeGreaterThan(cleanPoint);
    expectCompactionOf(await readAll(log), model);
    await dir.close();
  });

  it("minCompactionLagMs: nothing younger is cleaned; the timer cleans once it is old enough (fake timers)", async () => {
    vi.useFakeTimers({ now: 5_000_000, toFake: ["Date", "setTimeout", "clearTimeout"] });
    const { dir, log } = await hookedLog({ ...SMALL, minCompactionLagMs: 60_000 });
    const model: PlainRecord[] = [];
    await fill(log, 60, 4, model);
    await log.flush();
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(0);
    expect(await readAll(log)).toEqual(model);
    await vi.advanceTimersByTimeAsync(59_000);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1_001);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(1);
    expect(await readAll(log)).toEqual(latestBelow(model, log.segmentBaseOffsets.at(-1)!));
    await dir.close();
  });

  it("maxCompactionLagMs on a quiet log: the timer cleans when the lag runs out (fake timers)", async () => {
    vi.useFakeTimers({ now: 5_000_000, toFake: ["Date", "setTimeout", "clearTimeout"] });
    const { dir, log } = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 1, maxCompactionLagMs: 30_000 });
    const model: PlainRecord[] = [];
    await fill(log, 60, 4, model);
    await log.flush();
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(1);
    await fill(log, 30, 4, model);
    await log.flush();
    await cleaner(log).idle();
    const passes = cleaner(log).passes;
    await vi.advanceTimersByTimeAsync(29_000);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(passes);
    await vi.advanceTimersByTimeAsync(1_001);
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(passes + 1);
    expectCompactionOf(await readAll(log), model);
    await dir.close();
  });

  it("at open: a reopened log that is due is cleaned without an append", async () => {
    const sim = new SimStorage({ seed: 5 });
    const first = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 1 }, sim);
    const model: PlainRecord[] = [];
    await fill(first.log, 60, 4, model);
    await first.log.flush();
    await cleaner(first.log).idle();
    expect(cleaner(first.log).passes).toBe(1);
    await fill(first.log, 60, 4, model);
    await first.dir.close();
    const again = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 0.3 }, sim);
    await cleaner(again.log).idle();
    expect(cleaner(again.log).passes).toBe(1);
    expectCompactionOf(await readAll(again.log), model);
    await again.dir.close();
  });

  it("backgroundCleaning: false (Kafka's log.cleaner.enable) leaves cleaning to compact()", async () => {
    const { dir, log } = await hookedLog({ ...SMALL, backgroundCleaning: false });
    const model: PlainRecord[] = [];
    await fill(log, 60, 4, model);
    await log.flush();
    await cleaner(log).idle();
    expect(cleaner(log).passes).toBe(0);
    expect(await readAll(log)).toEqual(model);
    const result = await log.compact();
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    expect(await readAll(log)).toEqual(latestBelow(model, result.cleanPoint));
    await dir.close();
  });

  it("a log without compact in its policy never cleans in the background: it has no cleaner", async () => {
    const { dir, log } = await hookedLog({ segmentBytes: 400 });
    const model: PlainRecord[] = [];
    await fill(log, 60, 4, model);
    await log.flush();
    // Its cleaner is not even loaded (log.ts, openLog): nothing of compaction runs for it.
    expect(backgroundCleanerOf(log)).toBeUndefined();
    expect(await readAll(log)).toEqual(model);
    await dir.close();
  });
});

/**
 * A log with many small segments and little to reclaim in each, so a cleaning has several groups:
 * the roll flushes are held while it fills (nothing durable, nothing cleanable) until `release()`,
 * so the first cleaning comes at the test's flush and covers them all.
 */
async function manyGroups(options: LogOptions = {}) {
  const h = await hookedLog({ ...SMALL, ...options });
  let release!: () => void;
  h.state.hold = new Promise((resolve) => (release = resolve));
  const model: PlainRecord[] = [];
  await fill(h.log, 120, 40, model);
  expect(h.log.recoveryPoint).toBe(0);
  return {
    ...h,
    model,
    release: () => {
      h.state.hold = undefined;
      release();
    },
  };
}

/** Sets a hook that runs `act` once, when the background cleaner creates its first `.log.cleaned`. */
function onFirstCleaned(h: { state: { hook: Hook | undefined } }, act: () => void): { opened: number } {
  const seen = { opened: 0 };
  h.state.hook = (op) => {
    if (op.kind === "open" && op.create === true && op.path.endsWith(".log.cleaned")) {
      if (seen.opened++ === 0) act();
    }
  };
  return seen;
}

describe("background cleaning: the bound and what runs beside it", () => {
  it("an append made while a group is being rewritten completes before the next group's rewrite starts", async () => {
    const h = await manyGroups();
    let appended = false;
    let openedWhenAppended = -1;
    const seen = onFirstCleaned(h, () => {
      void h.log.append([{ key: "during", value: "x" }]).then(() => {
        appended = true;
        openedWhenAppended = seen.opened;
      });
    });
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    expect(seen.opened).toBeGreaterThanOrEqual(3); // several groups were rewritten, one per turn
    expect(appended).toBe(true);
    expect(openedWhenAppended).toBe(1); // it waited for the group in progress only
    await h.dir.close();
  });

  it("truncateTo into the cleanable range between two steps ends the pass: no record lost, none back", async () => {
    const h = await manyGroups();
    const cut = 70;
    onFirstCleaned(h, () => {
      // Queued behind the group in progress: then appends with other keys refill the cut range.
      void h.log.truncateTo(cut);
      for (let i = 0; i < 30; i++) void h.log.append([{ key: `new-${i}`, value: `n${i}`, timestamp: 7 }]);
      void h.log.flush();
    });
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    expect(cleaner(h.log).abandoned).toBeGreaterThanOrEqual(1);
    const model = h.model.filter((r) => r.offset < cut);
    for (let i = 0; i < 30; i++)
      model.push({ offset: cut + i, timestamp: 7, key: `new-${i}`, value: `n${i}`, headers: [] });
    const left = await readAll(h.log);
    expectCompactionOf(left, model);
    expect(await cleanedLeftovers(h.storage)).toEqual([]);
    await h.dir.close();
    const again = await LogDir.open(h.sim, { log: SMALL });
    const reopened = await again.log(NAME);
    await cleaner(reopened).idle(); // (it may clean further at open)
    expectCompactionOf(await readAll(reopened), model);
    await again.close();
  });

  it("a truncation inside the last cleanable segment, refilled by appends, ends the pass before its key map is used", async () => {
    const h = await manyGroups();
    let cut = 0;
    onFirstCleaned(h, () => {
      // The segment holding `cut` stays (as the active one); the map holds offsets above the cut.
      cut = h.log.segmentBaseOffsets.at(-2)! + 1;
      void h.log.truncateTo(cut);
      for (let i = 0; i < 30; i++) void h.log.append([{ key: `new-${i}`, value: `n${i}`, timestamp: 7 }]);
      void h.log.flush();
    });
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    const model = h.model.filter((r) => r.offset < cut);
    for (let i = 0; i < 30; i++)
      model.push({ offset: cut + i, timestamp: 7, key: `new-${i}`, value: `n${i}`, headers: [] });
    expectCompactionOf(await readAll(h.log), model);
    await h.dir.close();
  });

  it("deleteRecordsBefore and retention between two steps: the pass stops or goes on, nothing resurrected", async () => {
    const h = await manyGroups({ cleanupPolicy: "compact,delete" });
    let start = 0;
    onFirstCleaned(h, () => {
      start = h.log.segmentBaseOffsets[2]!;
      void h.log.deleteRecordsBefore(start);
    });
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    const left = await readAll(h.log);
    expect(left[0]!.offset).toBeGreaterThanOrEqual(start);
    const model = h.model.filter((r) => r.offset >= start);
    // Every record present was appended; the latest of each key that had one at or after the start is there.
    expectCompactionOf(left, model);
    expect(await cleanedLeftovers(h.storage)).toEqual([]);
    await h.dir.close();
  });

  it("close() while a background cleaning is in progress resolves, leaves no .cleaned, and the next open reads the same", async () => {
    const h = await manyGroups();
    let closed: Promise<void> | undefined;
    onFirstCleaned(h, () => {
      closed = h.dir.close();
    });
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    expect(closed).toBeDefined();
    await closed;
    expect(h.log.status).toBe("closed");
    expect(await cleanedLeftovers(h.sim)).toEqual([]);
    const again = await LogDir.open(h.sim, { log: SMALL });
    const log = await again.log(NAME);
    expect(again.clean).toBe(true);
    expectCompactionOf(await readAll(log), h.model);
    await again.close();
  });

  it("compact() while a background cleaning is in progress takes over and cleans everything", async () => {
    const h = await manyGroups();
    let result: Promise<unknown> | undefined;
    onFirstCleaned(h, () => {
      result = h.log.compact();
    });
    h.release();
    await h.log.flush();
    await result;
    await cleaner(h.log).idle();
    const cleanEnd = h.log.segmentBaseOffsets.at(-1)!;
    expect(await readAll(h.log)).toEqual(latestBelow(h.model, cleanEnd));
    await h.dir.close();
  });

  it("a failed fsync during a background cleaning fails the log, as any failed fsync does", async () => {
    const h = await manyGroups();
    h.state.hook = (op) => {
      if (op.kind === "sync" && op.path.endsWith(".cleaned")) throw Object.assign(new Error("EIO"), { code: "EIO" });
    };
    h.release();
    await h.log.flush();
    await cleaner(h.log).idle();
    expect(h.log.status).toBe("failed");
    expect(h.log.cleaningError).toBeDefined();
    const err = await h.log.append([{ key: "k", value: "v" }]).catch((e: unknown) => e);
    expect(isPagelogError(err, ErrorCode.FAILED)).toBe(true);
    h.state.hook = undefined;
    await h.dir.close().catch(() => undefined);
    const again = await LogDir.open(h.sim, { log: SMALL });
    expectCompactionOf(await readAll(await again.log(NAME)), h.model);
    await again.close();
  });

  it("a damaged segment found by a background cleaning leaves the log open and is kept in cleaningError", async () => {
    const h = await manyGroups();
    // Damage one byte inside the second segment's first batch, below the log (its CRC then fails).
    h.release();
    await h.log.flush(); // (cleans once, in the background)
    await cleaner(h.log).idle();
    const base = h.log.segmentBaseOffsets[1]!;
    await h.dir.close();
    const path = `${NAME}/${String(base).padStart(20, "0")}.log`;
    const file = await h.sim.open(path);
    const byte = await file.read(70, 1);
    await file.write(70, new Uint8Array([byte[0]! ^ 0xff]));
    await file.sync();
    await file.close();
    const again = await hookedLog({ ...SMALL, minCleanableDirtyRatio: 0 }, h.sim);
    const model: PlainRecord[] = [];
    await fill(again.log, 60, 40, model);
    await again.log.flush();
    await cleaner(again.log).idle();
    expect(again.log.status).toBe("open");
    expect(String(again.log.cleaningError)).toContain("corrupt");
    expect(isPagelogError(again.log.cleaningError, ErrorCode.CORRUPT)).toBe(true);
    expect(await cleanedLeftovers(again.sim)).toEqual([]);
    await again.log.append([{ key: "k", value: "still open" }]);
    await again.dir.close();
  });
});

describe("the bounded offset map (cleanerDedupeBufferBytes)", () => {
  it("takes a batch only if its new keys fit, and any batch when empty", () => {
    const bytes = (key: string) => new TextEncoder().encode(key);
    /** Adds one batch of [key, offset] records at or after `from`, as the cleaner's scan does. */
    const addBatch = (map: OffsetMap, records: Array<[string, number]>, from: number): boolean => {
      map.startBatch(records.length);
      for (const [key, offset] of records) if (offset >= from) map.add(bytes(key), 0, key.length, offset);
      return map.endBatch();
    };
    const latest = (map: OffsetMap, key: string) => map.latest(bytes(key), 0, key.length);
    const map = new OffsetMap(2 * (2 + MAP_ENTRY_OVERHEAD));
    expect(
      addBatch(
        map,
        [
          ["aa", 0],
          ["bb", 1],
          ["cc", 2],
        ],
        0,
      ),
    ).toBe(true); // empty: taken whole
    expect(map.size).toBe(3);
    expect(addBatch(map, [["aa", 3]], 0)).toBe(true); // no new key: fits
    expect(latest(map, "aa")).toBe(3);
    expect(
      addBatch(
        map,
        [
          ["aa", 5],
          ["dd", 4],
        ],
        0,
      ),
    ).toBe(false); // a new key past the capacity: refused whole
    expect(latest(map, "dd")).toBe(-1);
    expect(latest(map, "aa")).toBe(3); // (and what it changed undone)
    expect(map.size).toBe(3);
    const small = new OffsetMap(2 * (2 + MAP_ENTRY_OVERHEAD));
    expect(
      addBatch(
        small,
        [
          ["aa", 0],
          ["aa", 1],
          ["bb", 2],
        ],
        1,
      ),
    ).toBe(true); // below `from`: not counted
    expect(small.bytes).toBe(2 * (2 + MAP_ENTRY_OVERHEAD));
    expect(addBatch(small, [["cc", 3]], 0)).toBe(false);
  });

  it("is exact on many keys: grows, never confuses two keys, undoes a refused batch whole", () => {
    const enc = new TextEncoder();
    const map = new OffsetMap(1 << 30);
    const truth = new Map<string, number>();
    let offset = 0;
    for (let round = 0; round < 3; round++) {
      for (let b = 0; b < 200; b++) {
        const keys = Array.from(
          { length: 50 },
          (_, i) => `k${(b * 50 + i * 7 + round * 13) % 6000}${"x".repeat(i % 3)}`,
        );
        map.startBatch(keys.length);
        for (const key of keys) {
          const bytes = enc.encode(`..${key}..`); // the key inside a larger buffer, as in a batch
          map.add(bytes, 2, bytes.length - 2, offset);
          truth.set(key, offset++);
        }
        expect(map.endBatch()).toBe(true);
      }
    }
    expect(map.size).toBe(truth.size);
    for (const [key, at] of truth) expect(map.latest(enc.encode(key), 0, key.length)).toBe(at);
    expect(map.latest(enc.encode("absent"), 0, 6)).toBe(-1);
    // A full map refuses a batch with new keys and is left exactly as it was.
    const full = new OffsetMap(10 * (3 + MAP_ENTRY_OVERHEAD));
    map.startBatch(0);
    full.startBatch(10);
    for (let i = 0; i < 10; i++) full.add(enc.encode(`a${i}x`), 0, 3, i);
    expect(full.endBatch()).toBe(true);
    full.startBatch(20);
    for (let i = 0; i < 10; i++) full.add(enc.encode(`a${i}x`), 0, 3, 100 + i);
    for (let i = 0; i < 10; i++) full.add(enc.encode(`b${i}x`), 0, 3, 200 + i);
    expect(full.endBatch()).toBe(false);
    expect(full.size).toBe(10);
    for (let i = 0; i < 10; i++) expect(full.latest(enc.encode(`a${i}x`), 0, 3)).toBe(i);
    for (let i = 0; i < 10; i++) expect(full.latest(enc.encode(`b${i}x`), 0, 3)).toBe(-1);
  });

  it("a tiny map cleans only up to where it filled; the next cleanings go on from there to the end", async () => {
    const h = await hookedLog({ ...SMALL, cleanerDedupeBufferBytes: 120, minCleanableDirtyRatio: 1 });
    const model: PlainRecord[] = [];
    await fill(h.log, 80, 6, model);
    h.state.hook = undefined;
    const cleanEnd = h.log.segmentBaseOffsets.at(-1)!;
    const points: number[] = [];
    for (let i = 0; i < 100; i++) {
      await h.log.flush();
      const r = await h.log.compact();
      if (r.segmentsCleaned === 0 && r.cleanPoint === points.at(-1)) break;
      points.push(r.cleanPoint);
      // After each partial cleaning: every key's latest below the clean point, everything above it.
      expect(await readAll(h.log)).toEqual(latestBelow(model, r.cleanPoint));
    }
    expect(points.length).toBeGreaterThan(2); // it took several passes
    expect(points.at(-1)).toBe(cleanEnd);
    for (let i = 1; i < points.length; i++) expect(points[i]!).toBeGreaterThan(points[i - 1]!);
    await h.dir.close();
  });

  it("in the background a full map leads to the next pass at once, until the cleanable part is clean", async () => {
    const h = await hookedLog({ ...SMALL, cleanerDedupeBufferBytes: 120, minCleanableDirtyRatio: 0 });
    const model: PlainRecord[] = [];
    await fill(h.log, 80, 6, model);
    await h.log.flush();
    await cleaner(h.log).idle();
    expect(h.log.cleaningError).toBeUndefined();
    expect(cleaner(h.log).passes).toBeGreaterThan(2);
    expect(await readAll(h.log)).toEqual(latestBelow(model, h.log.segmentBaseOffsets.at(-1)!));
    await h.dir.close();
  });
});
