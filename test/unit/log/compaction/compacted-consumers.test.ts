/**
 * Consumers of a compacted log (issue 22, Deliver 5, with issue 21's consumer features): a
 * follower (`records({ follow: true })`) steps over the cleaner's gaps and then follows new
 * appends; a bounded iteration whose `to` lies in a gap stops there; a read-only open reads
 * across the gaps (it takes the clean point from `cleaner-offset-checkpoint` too); and durable
 * reads count by offset, not by record, so a gap never lets a record past the recovery point out.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log, LogRecord } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, freshLog, plain, readAll } from "../helpers.js";

/**
 * `n` single-record batches, flushed: every sixth with a key of its own (the cleaner keeps it),
 * the others over two keys (it keeps the latest of each), so the cleaned part has gaps.
 */
async function fill(log: Log, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const o = log.endOffset;
    await log.append([{ key: o % 6 === 1 ? `u${o}` : `k${o % 2}`, value: `v${o}` }]);
  }
  await log.flush();
}

/** The offsets a compaction skipped: some neighbours in `offsets` more than one apart. */
function gapsIn(offsets: readonly number[]): number {
  return offsets.slice(1).filter((o, i) => o > offsets[i]! + 1).length;
}

// compact() cleans, when the test says: the rolls' flushes would let a background cleaning run first.
const OPTIONS = { cleanupPolicy: "compact", segmentBytes: 300, backgroundCleaning: false } as const;

describe("consumers of a compacted log", () => {
  it("a follower reads across the compacted range, then follows new appends", async () => {
    const { dir, log } = await freshLog(OPTIONS);
    await fill(log, 40);
    // One follower is already reading when the cleaner runs, one starts after it.
    const early = log.records({ follow: true });
    const first = (await early.next()).value as LogRecord;
    expect(first.offset).toBe(0);
    const result = await log.compact();
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    const left = await readAll(log);
    expect(gapsIn(left.map((r) => r.offset))).toBeGreaterThan(0);

    const late = log.records({ from: log.startOffset, follow: true });
    const seen: LogRecord[] = [];
    for (let i = 0; i < left.length; i++) seen.push((await late.next()).value as LogRecord);
    expect(seen.map(plain)).toEqual(left);
    // At the end it waits; the next append wakes it, at the log's end offset.
    const end = log.endOffset;
    const waiting = late.next();
    await log.append([{ key: "k-new", value: "after" }]);
    const next = (await waiting).value as LogRecord;
    expect([next.offset, new TextDecoder().decode(next.value!)]).toEqual([end, "after"]);

    // The early follower: offsets only grow, every record still in the log past what it had read
    // ahead is handed out, and it reaches the new append too.
    const got = [first.offset];
    while (got[got.length - 1]! < end) got.push(((await early.next()).value as LogRecord).offset);
    expect(got.every((o, i) => i === 0 || o > got[i - 1]!)).toBe(true);
    const readAhead = log.segmentBaseOffsets[1]!; // its first read held the first segment's records
    for (const r of left) if (r.offset >= readAhead) expect(got).toContain(r.offset);
    await early.return();
    await late.return();
    await dir.close();
  });

  it("a bounded iteration whose `to` lies in a gap yields nothing at or past it", async () => {
    const { dir, log } = await freshLog(OPTIONS);
    await fill(log, 40);
    await log.compact();
    const offsets = (await readAll(log)).map((r) => r.offset);
    const i = offsets.findIndex((o, k) => k > 0 && o > offsets[k - 1]! + 1);
    const to = offsets[i - 1]! + 1; // the first offset of a gap, with a record after it
    const bounded: number[] = [];
    for await (const r of log.records({ to })) bounded.push(r.offset);
    expect(bounded).toEqual(offsets.filter((o) => o < to));
    await dir.close();
  });

  it("a read-only open of a compacted log reads across its gaps, and follows the writer", async () => {
    const sim = new SimStorage({ seed: 5 });
    const writer = await LogDir.open(sim);
    const log = await writer.log(NAME, OPTIONS);
    await fill(log, 40);
    await log.compact();
    await writer.checkpoint();
    const left = await readAll(log);
    expect(gapsIn(left.map((r) => r.offset))).toBeGreaterThan(0);

    const reader = await LogDir.open(sim, { readOnly: true, pollMs: 5 });
    const ro = await reader.log(NAME);
    expect(await readAll(ro)).toEqual(left);
    expect((await ro.read(left[1]!.offset - 1)).map(plain)[0]).toEqual(left[1]);
    // A follower on the read-only log: across the gaps, then what the writer appends later.
    const follower = ro.records({ follow: true });
    const seen = [];
    for (let i = 0; i < left.length; i++) seen.push(plain((await follower.next()).value as LogRecord));
    expect(seen).toEqual(left);
    const end = log.endOffset;
    const waiting = follower.next();
    await log.append([{ key: "k-new", value: "later" }]);
    await log.flush();
    expect(((await waiting).value as LogRecord).offset).toBe(end);
    await follower.return();
    await reader.close();
    await writer.close();
  });

  it("durable reads stop at the recovery point even where gaps make records fewer than offsets", async () => {
    const sim = new SimStorage({ seed: 7 });
    // Checkpoints only when asked: the reader's recovery point stays where the first one put it.
    const writer = await LogDir.open(sim, { checkpointIntervalMs: -1 });
    // Segments of 13 records: the cleaned first one keeps offsets 1 and 7, either side of 5.
    const log = await writer.log(NAME, { ...OPTIONS, segmentBytes: 1000 });
    await fill(log, 5);
    await writer.checkpoint();
    await fill(log, 37);
    await log.compact();
    const reader = await LogDir.open(sim, { readOnly: true });
    const ro = await reader.log(NAME);
    const limit = ro.recoveryPoint;
    expect(limit).toBe(5);
    const all = await readAll(ro);
    expect(gapsIn(all.filter((r) => r.offset < limit + 10).map((r) => r.offset))).toBeGreaterThan(0);
    expect(all.some((r) => r.offset >= limit && r.offset < log.segmentBaseOffsets[1]!)).toBe(true);
    const below = all.filter((r) => r.offset < limit);
    expect((await ro.read(ro.startOffset, { durable: true })).map(plain)).toEqual(below);
    const durable = [];
    for await (const r of ro.records({ durable: true })) durable.push(plain(r));
    expect(durable).toEqual(below);
    await reader.close();
    await writer.close();
  });
});
