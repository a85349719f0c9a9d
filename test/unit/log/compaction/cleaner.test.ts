/**
 * The log cleaner (issue 22, Deliver 2): `log.compact()` keeps the latest record of every key with
 * its offset, timestamp, key, value and headers; never touches the active segment or what lies
 * above the recovery point; keeps tombstones until `deleteRetentionMs` after a cleaning reached
 * them; groups small cleaned segments; writes Kafka's cleaner-offset-checkpoint; and every read
 * path (records, read, readBatches, offsetForTimestamp, reopen) works across the gaps it leaves.
 */
import { describe, expect, it } from "vitest";
import { decodeBatch } from "../../../../src/format/api.js";
import type { Log } from "../../../../src/log/log.js";
import { keepEverything } from "../../../../src/storage/sim-storage.js";
import { NAME, expectTypeError, freshLog, openSim, readAll, readText, type PlainRecord } from "../helpers.js";

function testClock(start = 1_000_000): { now(): number; t: number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

/** Appends `n` records cycling over `keys` keys, one per append; returns the model in order. */
async function appendKeyed(log: Log, n: number, keys: number, tombstoneEvery = 0): Promise<PlainRecord[]> {
  const out: PlainRecord[] = [];
  for (let i = 0; i < n; i++) {
    const offset = log.endOffset;
    // Every 7th key is unique: it survives every cleaning, so gaps open between survivors.
    const key = offset % 7 === 3 ? `unique-${offset}` : `key-${offset % keys}`;
    const value = tombstoneEvery > 0 && offset % tombstoneEvery === tombstoneEvery - 1 ? null : `value-${offset}`;
    const timestamp = 5_000 + offset;
    await log.append([{ key, value, headers: [{ key: "h", value: `h${offset}` }], timestamp }]);
    out.push({ offset, timestamp, key, value, headers: [{ key: "h", value: `h${offset}` }] });
  }
  return out;
}

/**
 * What cleaning `model` up to `cleanEnd` leaves (the cleaner sees only what it cleans, as Kafka's):
 * below it the latest record of each key there, and everything from it on.
 */
function latestBelow(model: readonly PlainRecord[], cleanEnd: number): PlainRecord[] {
  const last = new Map<string | null, number>();
  for (const r of model) if (r.offset < cleanEnd) last.set(r.key, r.offset);
  return model.filter((r) => r.offset >= cleanEnd || last.get(r.key) === r.offset);
}

// No background cleaning: with rolls moving the recovery point it would clean before compact() does.
const SMALL = {
  cleanupPolicy: "compact" as const,
  segmentBytes: 400,
  indexIntervalBytes: 100,
  backgroundCleaning: false,
};

describe("log.compact()", () => {
  it("keeps the latest record of every key, each with its own offset, timestamp, key, value and headers", async () => {
    const { dir, log } = await freshLog(SMALL);
    const model = await appendKeyed(log, 60, 5);
    await log.flush();
    const segmentsBefore = log.segmentCount;
    const result = await log.compact();
    const cleanEnd = log.segmentBaseOffsets.at(-1)!;
    expect(result.cleanPoint).toBe(cleanEnd);
    const expected = latestBelow(model, cleanEnd);
    expect(await readAll(log)).toEqual(expected);
    expect(result.recordsBefore).toBe(cleanEnd);
    expect(result.recordsAfter).toBe(expected.filter((r) => r.offset < cleanEnd).length);
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore);
    expect(result.segmentsCleaned).toBeGreaterThan(0);
    expect(log.segmentCount).toBeLessThanOrEqual(segmentsBefore);
    expect(log.endOffset).toBe(60);
    // Appends go on at the end, offsets never reused.
    expect(await log.append([{ key: "key-0", value: "after" }])).toEqual({ baseOffset: 60, lastOffset: 60 });
    await dir.close();
  });

  it("never cleans the active segment nor anything above the recovery point", async () => {
    const { dir, log } = await freshLog(SMALL);
    const model = await appendKeyed(log, 30, 3);
    await log.flush();
    const durable = log.recoveryPoint;
    model.push(...(await appendKeyed(log, 30, 3))); // not flushed: a power cut could take these back
    const result = await log.compact();
    // The roll flushes made the closed segments durable (compact() waited for them); the active
    // segment's records are not, and were left alone.
    expect(durable).toBeLessThanOrEqual(log.recoveryPoint);
    expect(log.recoveryPoint).toBe(log.segmentBaseOffsets.at(-1));
    expect(result.cleanPoint).toBeLessThanOrEqual(log.recoveryPoint);
    const all = await readAll(log);
    // Every record at or above what was durable is still there.
    const rp = log.recoveryPoint;
    expect(all.filter((r) => r.offset >= rp)).toEqual(model.filter((r) => r.offset >= rp));
    expect(all).toEqual(latestBelow(model, result.cleanPoint));
    await dir.close();
  });

  it("a second cleaning groups the small cleaned segments into fewer, within segmentBytes", async () => {
    const { dir, log } = await freshLog({ ...SMALL, segmentBytes: 2000 });
    const model = await appendKeyed(log, 200, 4);
    await log.flush();
    const first = await log.compact();
    const cleanedPart = (): number => log.segmentBaseOffsets.filter((b) => b < first.cleanPoint).length;
    const after1 = cleanedPart();
    model.push(...(await appendKeyed(log, 100, 4)));
    await log.flush();
    const second = await log.compact();
    expect(cleanedPart()).toBeLessThan(after1);
    expect(second.segmentsAfter).toBeLessThan(second.segmentsCleaned);
    expect(await readAll(log)).toEqual(latestBelow(model, second.cleanPoint));
    expect(log.size).toBeLessThanOrEqual(2000 * log.segmentCount);
    await dir.close();
  });

  it("tombstones stay through the first cleaning and go deleteRetentionMs later", async () => {
    // The records are stamped 5000 + offset: the tombstones' segments are younger than now - 1000.
    const clock = testClock(6000);
    const { dir, log } = await freshLog({ ...SMALL, clock, deleteRetentionMs: 1000 });
    const model = await appendKeyed(log, 40, 4, 8); // every 8th record deletes its key
    const tombstoneKeys = new Set(model.filter((r) => r.value === null).map((r) => r.key));
    expect(tombstoneKeys.size).toBeGreaterThan(0);
    await log.flush();
    await log.compact();
    const tombstones = (await readAll(log)).filter((r) => r.value === null);
    expect(tombstones.length).toBeGreaterThan(0);
    // Not yet: a second cleaning within deleteRetentionMs keeps them (a cleaning needs dirty records).
    model.push(...(await appendKeyed(log, 20, 1_000_000))); // new keys only
    await log.flush();
    await log.compact();
    const kept = (await readAll(log)).filter((r) => r.value === null);
    for (const t of tombstones) expect(kept).toContainEqual(t);
    clock.t += 10_000_000;
    model.push(...(await appendKeyed(log, 20, 1_000_000))); // new keys only
    await log.flush();
    const later = await log.compact();
    expect(later.tombstonesRemoved).toBeGreaterThan(0);
    const left = await readAll(log);
    const below = later.cleanPoint;
    expect(left.filter((r) => r.value === null && r.offset < below)).toEqual([]);
    // Nothing else went: what a cleaning up to there keeps, less the tombstones.
    expect(left).toEqual(latestBelow(model, below).filter((r) => !(r.value === null && r.offset < below)));
    await dir.close();
  });

  it("reads across the gaps: records, read in a gap, readBatches, offsetForTimestamp; raw batches decode", async () => {
    const { dir, log } = await freshLog(SMALL);
    const model = await appendKeyed(log, 50, 3);
    await log.flush();
    await log.compact();
    const left = await readAll(log);
    const gapAt = left.findIndex((r, i) => i > 0 && r.offset !== left[i - 1]!.offset + 1);
    expect(gapAt).toBeGreaterThan(0);
    const inGap = left[gapAt - 1]!.offset + 1;
    expect((await log.read(inGap, { maxRecords: 1 }))[0]!.offset).toBe(left[gapAt]!.offset);
    const fromGap: number[] = [];
    for await (const r of log.records({ from: inGap })) fromGap.push(r.offset);
    expect(fromGap).toEqual(left.slice(gapAt).map((r) => r.offset));
    // offsetForTimestamp: the first record at or after a timestamp, as a scan over what is left.
    for (const ts of [0, 5_000 + inGap, 5_000 + 49, 5_000 + 60]) {
      const scan = left.find((r) => r.timestamp >= ts)?.offset ?? null;
      expect(await log.offsetForTimestamp(ts), String(ts)).toBe(scan);
    }
    const raw = await log.readBatches(0, { maxBytes: 1 << 20 });
    const offsets: number[] = [];
    for (let at = 0; at < raw.length;) {
      const size = 12 + new DataView(raw.buffer, raw.byteOffset + at + 8, 4).getInt32(0);
      const batch = await decodeBatch(raw.subarray(at, at + size)); // CRC checked
      offsets.push(...batch.records.map((r) => r.offset));
      at += size;
    }
    expect(offsets).toEqual(left.slice(0, offsets.length).map((r) => r.offset));
    void model;
    await dir.close();
  });

  it("survives a clean close and a crash: the same records, gaps accepted below the clean point only", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendKeyed(log, 50, 3);
    await log.flush();
    await log.compact();
    const left = await readAll(log);
    const text = await readText(sim, "cleaner-offset-checkpoint");
    expect(text).toBe(`0\n1\norders 0 ${log.segmentBaseOffsets.at(-1)}\n`);
    await dir.close();
    const again = await (await openSim(sim)).log(NAME);
    expect(await readAll(again)).toEqual(left);
    const crashed = sim.crash(keepEverything);
    const recovered = await (await openSim(crashed)).log(NAME, SMALL);
    expect(await readAll(recovered)).toEqual(left);
  });

  it("truncateTo in the cleaned part, in a gap or inside a batch, ends the log exactly there and lowers the clean point", async () => {
    for (const [label, pick] of [
      ["in a gap", (left: PlainRecord[], gapAt: number) => left[gapAt - 1]!.offset + 1],
      ["at a kept record", (left: PlainRecord[], gapAt: number) => left[gapAt]!.offset],
    ] as const) {
      const { sim, dir, log } = await freshLog({ ...SMALL, segmentBytes: 700 });
      // Several records per batch: cleaning leaves gaps inside batches too.
      for (let i = 0; i < 12; i++) {
        const base = log.endOffset;
        await log.append(
          Array.from({ length: 5 }, (_, j) => ({
            key: (base + j) % 7 === 3 ? `u${base + j}` : `k${j % 2}`,
            value: `v${base + j}`,
          })),
        );
        if (i % 4 === 3) await log.flush();
      }
      await log.flush();
      const { cleanPoint } = await log.compact();
      const left = await readAll(log);
      const gapAt = left.findIndex((r, i) => i > 0 && r.offset !== left[i - 1]!.offset + 1 && r.offset < cleanPoint);
      expect(gapAt, label).toBeGreaterThan(0);
      const to = pick(left, gapAt);
      await log.truncateTo(to);
      expect(log.endOffset, label).toBe(to);
      expect(await readAll(log), label).toEqual(left.filter((r) => r.offset < to));
      expect((await log.append([{ key: "k0", value: "new" }])).baseOffset, label).toBe(to);
      expect(await readText(sim, "cleaner-offset-checkpoint"), label).toBe(`0\n1\norders 0 ${to}\n`);
      const expected = await readAll(log);
      await log.flush();
      const recovered = await (await openSim(sim.crash(keepEverything))).log(NAME, SMALL);
      expect(await readAll(recovered), label).toEqual(expected);
      void dir;
    }
  });

  it("a log whose policy does not compact refuses compact() with a TypeError", async () => {
    const { dir, log } = await freshLog();
    await expectTypeError(() => log.compact(), "cleanupPolicy");
    await dir.close();
  });

  it("nothing to clean: an empty result, no file written", async () => {
    const { sim, dir, log } = await freshLog(SMALL);
    await appendKeyed(log, 3, 3);
    const result = await log.compact();
    expect(result).toMatchObject({ segmentsCleaned: 0, bytesBefore: 0, cleanPoint: 0 });
    expect(await sim.stat("cleaner-offset-checkpoint")).toBeNull();
    await dir.close();
  });
});
