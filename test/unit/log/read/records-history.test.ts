/**
 * A `records()` iterator hands out one history: every record it yields is the one the log holds
 * at that offset when it is yielded, offsets one after another. When what it was reading is
 * truncated, deleted or closed under it, its next step is a PagelogError, never records of two
 * histories spliced together and never a quiet end. And it takes offsets as read() does: at
 * the end is an empty iteration, past it or below the start is PAGELOG_OFFSET_OUT_OF_RANGE.
 */
import * as fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log, LogRecord } from "../../../../src/log/log.js";
import { expectCode, freshLog, makeTempDir, NAME } from "../helpers.js";

const text = (r: LogRecord): string => new TextDecoder().decode(r.value!);
const labels = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, i) => `${prefix}-${from + i}`);

/** Appends `prefix-<offset>` for each offset in [from, to), `perBatch` records a batch. */
async function appendLabels(
  log: Log,
  prefix: string,
  from: number,
  to: number,
  perBatch = 1,
  timestamp?: number,
): Promise<void> {
  expect(log.endOffset).toBe(from);
  for (let at = from; at < to; at += perBatch) {
    const count = Math.min(perBatch, to - at);
    await log.append(
      Array.from({ length: count }, (_, i) => ({
        value: `${prefix}-${at + i}`,
        ...(timestamp === undefined ? {} : { timestamp }),
      })),
    );
  }
}

/** `count` steps of the iterator: their values (failing if it ends first). */
async function take(it: AsyncGenerator<LogRecord>, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const step = await it.next();
    expect(step.done, `step ${i}`).toBe(false);
    out.push(text(step.value as LogRecord));
  }
  return out;
}

/** The rest of the iterator's values; rejects with what the iterator throws. */
async function drain(it: AsyncGenerator<LogRecord>): Promise<string[]> {
  const out: string[] = [];
  for (let step = await it.next(); step.done !== true; step = await it.next()) out.push(text(step.value));
  return out;
}

async function whole(log: Log): Promise<string[]> {
  return drain(log.records());
}

describe("records(): one history, or an error", () => {
  it("a truncation below what it handed out, then a re-append: PAGELOG_TRUNCATED, not two histories", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10);
    const it = log.records({ from: 0 });
    expect(await take(it, 7)).toEqual(labels("old", 0, 7));
    await log.truncateTo(5);
    await appendLabels(log, "new", 5, 15);
    const err = await expectCode(() => drain(it), ErrorCode.TRUNCATED);
    expect(err.message).toContain("5");
    // The generator is finished; the log holds one history.
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(await whole(log)).toEqual([...labels("old", 0, 5), ...labels("new", 5, 15)]);
    await dir.close();
  });

  it("a truncation below what it handed out with nothing re-appended: an error, not a quiet end", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10, 5);
    const it = log.records();
    expect(await take(it, 4)).toEqual(labels("old", 0, 4));
    await log.truncateTo(2);
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    await dir.close();
  });

  it("an iterator that had handed out everything is told when the end it reached is cut", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 6, 3);
    const it = log.records();
    expect(await take(it, 6)).toEqual(labels("old", 0, 6));
    await log.truncateTo(5);
    await appendLabels(log, "new", 5, 7);
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    await dir.close();
  });

  it("a truncation above what it handed out drops the records it had read ahead and goes on in the new history", async () => {
    for (const perBatch of [1, 4]) {
      const { dir, log } = await freshLog();
      // With 4 a batch, the cut at 6 falls inside the batch [4, 8): its records 4 and 5 live on.
      await appendLabels(log, "old", 0, 10, perBatch);
      const it = log.records({ from: 0 });
      expect(await take(it, 3)).toEqual(labels("old", 0, 3));
      await log.truncateTo(6);
      await appendLabels(log, "new", 6, 15, perBatch);
      expect(await drain(it), `${perBatch} a batch`).toEqual([...labels("old", 3, 6), ...labels("new", 6, 15)]);
      await dir.close();
    }
  });

  it("a truncation exactly at its next offset: it goes on with what was appended after the cut", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10, 2);
    const it = log.records({ from: 0, to: 12 });
    expect(await take(it, 5)).toEqual(labels("old", 0, 5));
    await log.truncateTo(5);
    await appendLabels(log, "new", 5, 20, 3);
    expect(await drain(it)).toEqual(labels("new", 5, 12));
    await dir.close();
  });

  it("several truncations between two steps: the lowest one decides", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10);
    const it = log.records();
    expect(await take(it, 3)).toEqual(labels("old", 0, 3));
    await log.truncateTo(8);
    await appendLabels(log, "mid", 8, 10);
    await log.truncateTo(2);
    await appendLabels(log, "new", 2, 10);
    await log.truncateTo(9); // above the position again: the cut at 2 still happened
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    await dir.close();
  });

  it("a truncation that fails half way (EIO) still ends an iterator it reached: the cut counts from its start", async () => {
    const { sim, dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10, 5);
    await log.flush();
    const it = log.records();
    const ahead = log.records();
    expect(await take(it, 7)).toEqual(labels("old", 0, 7));
    expect(await take(ahead, 1)).toEqual(["old-0"]);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.truncateTo(3), ErrorCode.IO);
    expect(log.status).toBe("failed");
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    // Below the cut, reads of a failed log still serve what is there.
    expect(await take(ahead, 2)).toEqual(["old-1", "old-2"]);
    await expect(dir.close()).rejects.toBeDefined();
  });

  it("a truncation queued before the iteration's first step is part of the history it reads", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10);
    void log.truncateTo(4);
    void log.append([{ value: "new-4" }]);
    expect(await drain(log.records({ from: 2 }))).toEqual(["old-2", "old-3", "new-4"]);
    // Called before the iteration, a cut below `from` makes `from` past the end, as read() says.
    void log.truncateTo(1);
    await expectCode(() => log.records({ from: 3 }).next(), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.read(3), ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("appends called before the iteration are read: its first step keeps call order", async () => {
    const { dir, log } = await freshLog();
    void log.append([{ value: "a-0" }, { value: "a-1" }]);
    void log.append([{ value: "a-2" }]);
    expect(await drain(log.records())).toEqual(labels("a", 0, 3));
    void log.append([{ value: "a-3" }]);
    expect(await drain(log.records({ from: 3 }))).toEqual(["a-3"]);
    await dir.close();
  });

  it("deleteRecordsBefore past its next offset: PAGELOG_OFFSET_OUT_OF_RANGE, not deleted records", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10, 10); // one batch: everything is read ahead at once
    const it = log.records();
    expect(await take(it, 3)).toEqual(labels("old", 0, 3));
    await log.deleteRecordsBefore(5);
    await expectCode(() => it.next(), ErrorCode.OFFSET_OUT_OF_RANGE);
    // Up to its next offset is harmless.
    const other = log.records({ from: 5 });
    expect(await take(other, 2)).toEqual(["old-5", "old-6"]);
    await log.deleteRecordsBefore(7);
    expect(await drain(other)).toEqual(labels("old", 7, 10));
    await dir.close();
  });

  it("retention deleting the segment under it: PAGELOG_OFFSET_OUT_OF_RANGE, never the deleted bytes", async () => {
    const clock = { now: () => 0 }; // nothing expires while appending (retention also runs at each roll)
    const { dir, log } = await freshLog({ segmentBytes: 200, retentionMs: 1000, clock });
    await appendLabels(log, "old", 0, 12, 1, 100);
    expect(log.segmentCount).toBeGreaterThan(2);
    const it = log.records();
    const kept = log.records({ from: log.segmentBaseOffsets.at(-1)! });
    expect(await take(it, 1)).toEqual(["old-0"]); // the rest of the first segment is read ahead
    clock.now = () => 1_000_000;
    await log.applyRetention();
    expect(log.segmentCount).toBe(1);
    await expectCode(() => it.next(), ErrorCode.OFFSET_OUT_OF_RANGE);
    // An iterator in the segment that stays goes on.
    expect(await drain(kept)).toEqual(labels("old", log.startOffset, 12));
    await dir.close();
  });

  it("close under an iterator: PAGELOG_CLOSED, also for the records it had read ahead", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 10, 10);
    const it = log.records();
    expect(await take(it, 2)).toEqual(labels("old", 0, 2));
    await log.close();
    await expectCode(() => it.next(), ErrorCode.CLOSED);
    await dir.close();
  });

  it("return() and break end it cleanly; later truncations do not reach a finished iterator", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 6);
    const it = log.records();
    expect(await take(it, 2)).toEqual(["old-0", "old-1"]);
    expect(await it.return()).toEqual({ done: true, value: undefined });
    for await (const r of log.records()) if (r.offset === 3) break;
    await log.truncateTo(0);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("on a real file system: truncation and retention under iterators", async () => {
    const root = await makeTempDir();
    try {
      const dir = await LogDir.open(root);
      const log = await dir.log(NAME, { segmentBytes: 400 });
      await appendLabels(log, "old", 0, 20, 2);
      const cut = log.records();
      const ahead = log.records();
      expect(await take(cut, 8)).toEqual(labels("old", 0, 8));
      expect(await take(ahead, 2)).toEqual(labels("old", 0, 2));
      await log.truncateTo(5);
      await appendLabels(log, "new", 5, 20, 2);
      await expectCode(() => cut.next(), ErrorCode.TRUNCATED);
      expect(await drain(ahead)).toEqual([...labels("old", 2, 5), ...labels("new", 5, 20)]);
      const behind = log.records();
      expect(await take(behind, 1)).toEqual(["old-0"]);
      await log.deleteRecordsBefore(log.segmentBaseOffsets[2]!);
      expect(log.segmentBaseOffsets[0]).toBeGreaterThan(0);
      await expectCode(() => behind.next(), ErrorCode.OFFSET_OUT_OF_RANGE);
      await dir.close();
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

describe("records(), read() and readBatches() agree on offsets (Kafka's fetch rule)", () => {
  it("at the end: nothing; past the end or below the start: PAGELOG_OFFSET_OUT_OF_RANGE", async () => {
    const { dir, log } = await freshLog();
    await appendLabels(log, "old", 0, 2);
    // At the log end offset: a valid fetch that returns nothing.
    expect(await drain(log.records({ from: 2 }))).toEqual([]);
    expect(await log.read(2)).toEqual([]);
    expect((await log.readBatches(2)).length).toBe(0);
    // Past it: out of range, whatever `to` says.
    for (const options of [{ from: 5 }, { from: 3 }, { from: 5, to: 9 }, { from: 5, to: 1 }]) {
      await expectCode(() => log.records(options).next(), ErrorCode.OFFSET_OUT_OF_RANGE);
    }
    await expectCode(() => log.read(5), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.readBatches(5), ErrorCode.OFFSET_OUT_OF_RANGE);
    // Below the start offset.
    await appendLabels(log, "old", 2, 6);
    await log.deleteRecordsBefore(3);
    await expectCode(() => log.records({ from: 1 }).next(), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.read(1), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.readBatches(1), ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(await drain(log.records())).toEqual(labels("old", 3, 6));
    expect(await drain(log.records({ from: 3, to: 5 }))).toEqual(labels("old", 3, 5));
    await dir.close();
  });
});
