/**
 * `records({ follow: true })` and `waitFor`: a follower at the end is woken by the append itself
 * (no timer, no polling), goes on in offset order across rolls with no gap and no duplicate,
 * holds at most one read ahead, never holds up the log's other calls, and ends loudly: a close
 * is PAGELOG_CLOSED from the pending step, an abort the signal's reason, a truncation below what
 * it yielded or a start moved past it PAGELOG_OFFSET_OUT_OF_RANGE, a failed log PAGELOG_FAILED.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { LogRecord } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import {
  appendBatches,
  expectCode,
  expectTypeError,
  freshLog,
  NAME,
  pending,
  plain,
  recordAt,
  expectedAt,
} from "../helpers.js";

const text = (r: LogRecord): string => new TextDecoder().decode(r.value!);

async function take(it: AsyncGenerator<LogRecord>, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const step = await it.next();
    expect(step.done, `step ${i}`).toBe(false);
    out.push((step.value as LogRecord).offset);
  }
  return out;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("records({ follow: true })", () => {
  it("waits at the end and is woken by the append itself: no timer is armed or advanced", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2);
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "setImmediate", "queueMicrotask"] as never });
    const it = log.records({ follow: true });
    expect(await take(it, 2)).toEqual([0, 1]);
    const step = it.next();
    let got: IteratorResult<LogRecord> | undefined;
    void step.then((r) => (got = r));
    for (let i = 0; i < 100; i++) await Promise.resolve();
    expect(got).toBeUndefined(); // waiting at the end
    expect(vi.getTimerCount()).toBe(0); // and not by a timer: nothing to poll with
    await log.append([recordAt(2)]);
    const r = await step;
    expect(r.done).toBe(false);
    expect(plain(r.value as LogRecord)).toEqual(expectedAt(2));
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
    await it.return(undefined);
    await dir.close();
  });

  it("starting at the end of an empty log, it yields each append as it comes", async () => {
    const { dir, log } = await freshLog();
    const it = log.records({ from: 0, follow: true });
    const first = it.next();
    expect(await pending(first)).toBe(true);
    await log.append([recordAt(0), recordAt(1)]);
    expect(plain((await first).value as LogRecord)).toEqual(expectedAt(0));
    expect(plain((await it.next()).value as LogRecord)).toEqual(expectedAt(1));
    const third = it.next();
    expect(await pending(third)).toBe(true);
    await log.append([recordAt(2)]);
    expect(((await third).value as LogRecord).offset).toBe(2);
    await it.return(undefined);
    await dir.close();
  });

  it("keeps up with a concurrent writer across segment rolls: every offset once, in order", async () => {
    const { dir, log } = await freshLog({ segmentBytes: 4096 });
    const total = 600;
    const seen: number[] = [];
    const follower = (async () => {
      for await (const r of log.records({ follow: true, to: total })) {
        expect(text(r)).toBe(`v${r.offset}`.padEnd(100, "x"));
        seen.push(r.offset);
      }
    })();
    for (let at = 0; at < total;) {
      const n = 1 + (at % 7);
      const batch = Array.from({ length: Math.min(n, total - at) }, (_, i) => recordAt(at + i, undefined, 100));
      // Some appends are awaited, some overlap (one group), as a service's would.
      const p = log.append(batch);
      if (at % 3 === 0) await p;
      at += batch.length;
    }
    await follower; // ends at `to`
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(log.segmentCount).toBeGreaterThan(5);
    await dir.close();
  });

  it("`to` with follow: waits until the log reaches it, then ends", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2);
    const it = log.records({ from: 1, to: 4, follow: true });
    expect(await take(it, 1)).toEqual([1]);
    const next = it.next();
    expect(await pending(next)).toBe(true);
    await appendBatches(log, 1, 5); // offsets 2..6
    expect(((await next).value as LogRecord).offset).toBe(2);
    expect(await take(it, 1)).toEqual([3]);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    // `to` at or below `from`: nothing, at once.
    const none = log.records({ from: 5, to: 5, follow: true });
    expect(await none.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("a waiting follower holds up no other call", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 3);
    const it = log.records({ from: 3, follow: true });
    const step = it.next();
    expect(await pending(step)).toBe(true);
    expect((await log.read(0)).length).toBe(3);
    await log.flush();
    expect(await log.offsetForTimestamp(0)).toBe(0);
    await log.truncateTo(3); // at its position: not an error
    await log.deleteRecordsBefore(1);
    expect(await pending(step)).toBe(true);
    await log.append([recordAt(3)]);
    expect(((await step).value as LogRecord).offset).toBe(3);
    await it.return(undefined);
    await dir.close();
  });

  it("a log close wakes a waiting follower with PAGELOG_CLOSED (log.close() and LogDir.close())", async () => {
    for (const closer of ["log", "dir"] as const) {
      const { dir, log } = await freshLog();
      await appendBatches(log, 1);
      const it = log.records({ follow: true });
      await take(it, 1);
      const step = it.next();
      expect(await pending(step)).toBe(true);
      await (closer === "log" ? log.close() : dir.close());
      await expectCode(() => step, ErrorCode.CLOSED);
      expect(await it.next()).toEqual({ done: true, value: undefined });
      if (closer === "log") await dir.close();
    }
  });

  it("an abort ends a waiting follower with the signal's reason; an aborted signal at once", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2);
    const controller = new AbortController();
    const it = log.records({ follow: true, signal: controller.signal });
    await take(it, 2);
    const step = it.next();
    expect(await pending(step)).toBe(true);
    controller.abort();
    const err: unknown = await step.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe("AbortError");
    expect(err).toBe(controller.signal.reason);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    const reason = new Error("stop");
    const aborted = log.records({ follow: true, signal: AbortSignal.abort(reason) });
    await expect(aborted.next()).rejects.toBe(reason);
    // The log goes on; a new follower works.
    await log.append([recordAt(2)]);
    expect(await take(log.records({ from: 2, follow: true }), 1)).toEqual([2]);
    await dir.close();
  });

  it("a truncation below what it yielded is PAGELOG_OFFSET_OUT_OF_RANGE, even while it waits", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 5);
    const it = log.records({ follow: true });
    await take(it, 5);
    const step = it.next();
    expect(await pending(step)).toBe(true);
    await log.truncateTo(3);
    const err = await expectCode(() => step, ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(err.message).toContain("3");
    // The non-follow rule is unchanged: PAGELOG_TRUNCATED.
    await appendBatches(log, 3);
    const bounded = log.records();
    await take(bounded, 5);
    await log.truncateTo(2);
    await expectCode(() => bounded.next(), ErrorCode.TRUNCATED);
    await dir.close();
  });

  it("a truncation at or above its position drops the read-ahead and it goes on in the new history", async () => {
    const { dir, log } = await freshLog();
    for (let i = 0; i < 10; i++) await log.append([{ value: `old-${i}` }]);
    const it = log.records({ follow: true });
    const got: string[] = [];
    for (let i = 0; i < 3; i++) got.push(text((await it.next()).value as LogRecord)); // 3..9 are read ahead
    await log.truncateTo(6);
    for (let i = 3; i < 6; i++) got.push(text((await it.next()).value as LogRecord));
    const step = it.next();
    expect(await pending(step)).toBe(true);
    await log.append([{ value: "new-6" }]);
    got.push(text((await step).value as LogRecord));
    expect(got).toEqual(["old-0", "old-1", "old-2", "old-3", "old-4", "old-5", "new-6"]);
    await it.return(undefined);
    await dir.close();
  });

  it("the start moved past its position (deleteRecordsBefore, retention) is PAGELOG_OFFSET_OUT_OF_RANGE, never a skip", async () => {
    const { dir, log } = await freshLog({ segmentBytes: 2000 });
    await appendBatches(log, 4);
    const it = log.records({ follow: true });
    await take(it, 4);
    const step = it.next();
    expect(await pending(step)).toBe(true);
    // Both queued before the follower's read runs: it wakes to a start past its position.
    void log.append([recordAt(4), recordAt(5), recordAt(6)]);
    await log.deleteRecordsBefore(6);
    await expectCode(() => step, ErrorCode.OFFSET_OUT_OF_RANGE);

    // Retention by size after a roll, while a follower lags behind.
    const small = await dir.log("retained-0", { segmentBytes: 1024, retentionBytes: 1024 });
    await appendBatches(small, 2, 1, 300);
    const lagging = small.records({ follow: true });
    await take(lagging, 1);
    await appendBatches(small, 20, 1, 300);
    expect(small.startOffset).toBeGreaterThan(2);
    await expectCode(() => take(lagging, 5), ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("a follower far behind a big log holds at most one read ahead (bounded memory)", async () => {
    const sim = new SimStorage({ seed: 9 });
    let bytesRead = 0;
    const storage = new HookedStorage(sim, async (op, run) => {
      const result = await run();
      if (op.kind === "read" && op.path.endsWith(".log"))
        bytesRead += typeof result === "number" ? result : (result as Uint8Array).length;
      return result;
    });
    const dir = await LogDir.open(storage, { log: { segmentBytes: 4 << 20 } });
    const log = await dir.log(NAME);
    for (let b = 0; b < 160; b++) await log.append(Array.from({ length: 25 }, (_, i) => recordAt(b * 25 + i, 1, 4000)));
    expect(log.size).toBeGreaterThan(15 << 20);
    bytesRead = 0;
    const it = log.records({ follow: true });
    await take(it, 1);
    const afterOne = bytesRead;
    expect(afterOne).toBeGreaterThan(0);
    expect(afterOne).toBeLessThanOrEqual(2.5 * (1 << 20)); // one 1 MiB read (and the segment's read-ahead)
    await take(it, 200); // within what was read: no more reads
    expect(bytesRead).toBe(afterOne);
    await take(it, 2000);
    // ~8 MB handed out: read as it goes, never the whole 16 MB log at once.
    expect(bytesRead).toBeLessThanOrEqual(2200 * 4000 + 3 * (1 << 20));
    await it.return(undefined);
    await dir.close();
  });

  it("a follower of a streaming writer reads its appends in groups, not one read per append", async () => {
    const sim = new SimStorage({ seed: 11 });
    let reads = 0;
    const storage = new HookedStorage(sim, async (op, run) => {
      if (op.kind === "read" && op.path.endsWith(".log")) reads++;
      return run();
    });
    const dir = await LogDir.open(storage);
    const log = await dir.log(NAME);
    // The gathering's time cap on a clock that stands still: what ends it is the writer stopping.
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] as never });
    const appends = 60;
    const follower = (async () => {
      const seen: number[] = [];
      for await (const r of log.records({ follow: true, to: appends * 10 })) seen.push(r.offset);
      return seen;
    })();
    // Let the follower reach the end and wait there before the writer starts.
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    reads = 0;
    for (let b = 0; b < appends; b++)
      await log.append(Array.from({ length: 10 }, (_, i) => recordAt(b * 10 + i, undefined, 200)));
    const seen = await follower;
    expect(seen).toEqual(Array.from({ length: appends * 10 }, (_, i) => i)); // no gap, no duplicate
    // Woken after every append, it would read once per append (60 reads); gathering, a few.
    expect(reads).toBeLessThanOrEqual(3);
    vi.useRealTimers();
    await dir.close();
  });

  it("a writer that waits for its follower after each append gets each record without gathering", async () => {
    const { dir, log } = await freshLog();
    const it = log.records({ follow: true });
    for (let i = 0; i < 20; i++) {
      const step = it.next();
      await log.append([recordAt(i)]);
      // No append is coming: the follower reads at once, with no timer to wait for.
      expect(plain((await step).value as LogRecord)).toEqual(expectedAt(i));
    }
    await it.return(undefined);
    await dir.close();
  });

  it("a follower gathering the appends of a streaming writer ends with PAGELOG_CLOSED at a close", async () => {
    const { dir, log } = await freshLog();
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] as never });
    const it = log.records({ follow: true });
    const step = it.next();
    await log.append([recordAt(0)]);
    // An append always in flight when the follower looks: it keeps gathering (the clock stands still).
    const writing = log.append([recordAt(1)]);
    const closing = dir.close();
    await writing;
    const first = await step.then(
      (r) => r,
      (err: unknown) => err,
    );
    // Either it read before the close (then its next step ends) or the close ended its wait.
    if (!(first instanceof Error)) await expectCode(() => it.next(), ErrorCode.CLOSED);
    else await expectCode(() => Promise.reject(first), ErrorCode.CLOSED);
    await closing;
    vi.useRealTimers();
  });

  it("in a failed log it yields what the log holds, then PAGELOG_FAILED instead of waiting for ever", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 3);
    const it = log.records({ follow: true });
    await take(it, 1);
    const waiting = log.records({ from: 3, follow: true });
    const step = waiting.next();
    expect(await pending(step)).toBe(true);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    expect(log.status).toBe("failed");
    await expectCode(() => step, ErrorCode.FAILED); // woken by the failure
    expect(await take(it, 2)).toEqual([1, 2]);
    await expectCode(() => it.next(), ErrorCode.FAILED);
    await expect(dir.close()).rejects.toBeDefined();
  });

  it("argument errors: follow and durable must be booleans (TypeErrors naming them)", async () => {
    const { dir, log } = await freshLog();
    await expectTypeError(() => log.records({ follow: "yes" } as never).next(), "follow");
    await expectTypeError(() => log.records({ follow: 1 } as never).next(), "follow");
    await expectTypeError(() => log.records({ durable: "true" } as never).next(), "durable");
    await expectTypeError(() => log.records({ folow: true } as never).next(), "follow");
    await dir.close();
  });
});

describe("waitFor(offset)", () => {
  it("resolves once the log holds the offset (end > offset), at once if it does, with the end it saw", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2);
    expect(await log.waitFor(1)).toBe(2);
    const later = log.waitFor(4);
    expect(await pending(later)).toBe(true);
    await appendBatches(log, 1, 2); // end 4: offset 4 not there yet
    expect(await pending(later)).toBe(true);
    await appendBatches(log, 1, 3); // end 7
    expect(await later).toBe(7);
    await dir.close();
  });

  it("durable: resolves once a flush moves the recovery point past the offset", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 3);
    const durable = log.waitFor(2, { durable: true });
    expect(await pending(durable)).toBe(true);
    await appendBatches(log, 1);
    expect(await pending(durable)).toBe(true);
    await log.flush();
    expect(await durable).toBe(4);
    await dir.close();
  });

  it("rejects on close (PAGELOG_CLOSED), abort (the reason) and failure (PAGELOG_FAILED); a truncation does not end it", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 3);
    const closed = log.waitFor(10);
    const controller = new AbortController();
    const aborted = log.waitFor(10, { signal: controller.signal });
    const failed = log.waitFor(3, { durable: true });
    await log.truncateTo(1);
    expect(await pending(closed)).toBe(true);
    controller.abort();
    await expect(aborted).rejects.toBe(controller.signal.reason);
    await appendBatches(log, 1);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    await expectCode(() => failed, ErrorCode.FAILED);
    expect(await pending(closed)).toBe(false); // a failed log never grows: it ended too
    await expectCode(() => closed, ErrorCode.FAILED);
    await expect(dir.close()).rejects.toBeDefined();

    const other = await freshLog();
    const waiting = other.log.waitFor(0);
    await other.dir.close();
    await expectCode(() => waiting, ErrorCode.CLOSED);
    await expectCode(() => other.log.waitFor(0), ErrorCode.CLOSED);
  });

  it("argument errors are TypeErrors naming the argument", async () => {
    const { dir, log } = await freshLog();
    await expectTypeError(() => log.waitFor(-1), "offset");
    await expectTypeError(() => log.waitFor(1.5), "offset");
    await expectTypeError(() => log.waitFor(0, { durable: "yes" } as never), "durable");
    await expectTypeError(() => log.waitFor(0, { signal: {} } as never), "signal");
    await expectTypeError(() => log.waitFor(0, { durabel: true } as never), "durable");
    await dir.close();
  });
});
