/**
 * `{ durable: true }` on read, readBatches and records: only what is below the recovery point,
 * the records a power cut cannot take back. An offset at or above it reads as the end does;
 * outside [start, end] is out of range as ever. A durable follower waits for the flush (an
 * explicit one or the flush policy's) that moves the recovery point, not for the append.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { readBatchHeader } from "../../../../src/format/index.js";
import type { LogRecord } from "../../../../src/log/log.js";
import { batchSize } from "../../../../src/log/options/log-arguments.js";
import { appendBatches, expectCode, expectTypeError, freshLog, openSim, NAME, pending, plain } from "../helpers.js";

/** [baseOffset, lastOffset] of every batch in back-to-back batch bytes. */
function batchRanges(bytes: Uint8Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let at = 0; at < bytes.length; at += batchSize(bytes, at)) {
    const h = readBatchHeader(bytes, at);
    out.push([h.baseOffset, h.lastOffset]);
  }
  return out;
}

async function offsets(it: AsyncIterable<LogRecord>): Promise<number[]> {
  const out: number[] = [];
  for await (const r of it) out.push(r.offset);
  return out;
}

describe("durable reads", () => {
  it("read({ durable }) returns nothing at or above the recovery point; everything below it", async () => {
    const { dir, log } = await freshLog();
    const model = await appendBatches(log, 2, 3); // 0..5
    await log.flush();
    model.push(...(await appendBatches(log, 2, 2))); // 6..9, not flushed
    expect(log.recoveryPoint).toBe(6);
    expect((await log.read(0, { durable: true })).map(plain)).toEqual(model.slice(0, 6));
    expect((await log.read(4, { durable: true })).map((r) => r.offset)).toEqual([4, 5]);
    expect(await log.read(6, { durable: true })).toEqual([]);
    expect(await log.read(8, { durable: true })).toEqual([]);
    expect(await log.read(10, { durable: true })).toEqual([]); // the end
    expect((await log.read(2, { durable: true, maxRecords: 2 })).map((r) => r.offset)).toEqual([2, 3]);
    await expectCode(() => log.read(11, { durable: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
    // Without durable, the same read sees the unflushed records.
    expect((await log.read(6)).map((r) => r.offset)).toEqual([6, 7, 8, 9]);
    await log.flush();
    expect((await log.read(6, { durable: true })).map(plain)).toEqual(model.slice(6));
    await log.deleteRecordsBefore(3);
    await expectCode(() => log.read(2, { durable: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("readBatches({ durable }): only whole batches whose last offset is below the recovery point", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 3, 4); // batches [0,3] [4,7] [8,11]
    await log.flush();
    await appendBatches(log, 2, 4); // [12,15] [16,19] unflushed
    expect(batchRanges(await log.readBatches(0, { durable: true }))).toEqual([
      [0, 3],
      [4, 7],
      [8, 11],
    ]);
    expect(batchRanges(await log.readBatches(5, { durable: true }))).toEqual([
      [4, 7],
      [8, 11],
    ]);
    expect((await log.readBatches(12, { durable: true })).length).toBe(0);
    expect((await log.readBatches(20, { durable: true })).length).toBe(0);
    expect(batchRanges(await log.readBatches(12))).toEqual([
      [12, 15],
      [16, 19],
    ]);
    await expectCode(() => log.readBatches(21, { durable: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("records({ durable }) ends at the recovery point", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 4);
    await log.flush();
    await appendBatches(log, 3);
    expect(await offsets(log.records({ durable: true }))).toEqual([0, 1, 2, 3]);
    expect(await offsets(log.records({ durable: true, from: 2, to: 6 }))).toEqual([2, 3]);
    expect(await offsets(log.records({ durable: true, from: 5 }))).toEqual([]);
    expect(await offsets(log.records())).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await dir.close();
  });

  it("a durable follower waits for the flush, not the append", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2);
    const it = log.records({ follow: true, durable: true });
    const first = it.next();
    expect(await pending(first)).toBe(true); // nothing durable yet
    await log.flush();
    expect(((await first).value as LogRecord).offset).toBe(0);
    expect(((await it.next()).value as LogRecord).offset).toBe(1);
    const third = it.next();
    await appendBatches(log, 3);
    expect(await pending(third)).toBe(true); // appended, not durable
    await log.flush();
    expect(((await third).value as LogRecord).offset).toBe(2);
    await it.return(undefined);
    await dir.close();
  });

  it("a durable follower is woken by the flush policy (flushMessages) too", async () => {
    const { dir, log } = await freshLog({ flushMessages: 3 });
    const it = log.records({ follow: true, durable: true });
    const first = it.next();
    await appendBatches(log, 2);
    expect(await pending(first)).toBe(true);
    await appendBatches(log, 1); // the third record: the policy flushes
    expect(log.recoveryPoint).toBe(3);
    expect(((await first).value as LogRecord).offset).toBe(0);
    expect(((await it.next()).value as LogRecord).offset).toBe(1);
    expect(((await it.next()).value as LogRecord).offset).toBe(2);
    const fourth = it.next();
    await appendBatches(log, 1);
    expect(await pending(fourth)).toBe(true);
    // A pending step blocks return() (as any async generator's does): the close ends it.
    await dir.close();
    await expectCode(() => fourth, ErrorCode.CLOSED);
  });

  it("after a reopen everything is durable; a truncation leaves the records below it durable", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 5);
    await dir.close();
    const again = await openSim(sim);
    const reopened = await again.log(NAME);
    expect((await reopened.read(0, { durable: true })).length).toBe(5);
    await appendBatches(reopened, 3);
    await reopened.truncateTo(6); // durable when it resolves: the recovery point is the new end
    expect(reopened.recoveryPoint).toBe(6);
    expect((await reopened.read(0, { durable: true })).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    await again.close();
  });

  it("a failed log's flush policy never moves the recovery point past what a failed fsync lost", async () => {
    // Found by the durable-follower property: after the failed fsync, an append group refused
    // with PAGELOG_FAILED still ran the flush policy, whose fsync "succeeded" over the pages the
    // failure had marked clean, and the recovery point claimed records a power cut then took.
    const { sim, dir, log } = await freshLog({ flushMessages: 1 });
    await appendBatches(log, 2);
    expect(log.recoveryPoint).toBe(2);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.append([{ value: "lost" }]), ErrorCode.IO);
    expect(log.status).toBe("failed");
    await expectCode(() => log.append([{ value: "refused" }]), ErrorCode.FAILED);
    await expectCode(() => log.append([{ value: "refused" }]), ErrorCode.FAILED);
    expect(log.recoveryPoint).toBe(2);
    expect((await log.read(0, { durable: true })).map((r) => r.offset)).toEqual([0, 1]);
    await expect(dir.close()).rejects.toBeDefined();
  });

  it("durable must be a boolean (a TypeError naming it) on read and readBatches", async () => {
    const { dir, log } = await freshLog();
    await expectTypeError(() => log.read(0, { durable: 1 } as never), "durable");
    await expectTypeError(() => log.readBatches(0, { durable: "yes" } as never), "durable");
    await expectTypeError(() => log.read(0, { durabel: true } as never), "durable");
    await dir.close();
  });
});
