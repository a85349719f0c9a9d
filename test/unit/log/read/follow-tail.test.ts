/**
 * A follower of the end fed from memory (state/written-tail.ts, read/follow-tail.ts): it is
 * handed the batches the writer of this process just wrote instead of reading them back, and it
 * still keeps every follower guarantee: a truncation below what it yielded ends it, one at or
 * above its position puts it on the new history (never a batch the cut removed), a failed write
 * is never yielded, a roll changes nothing, a close ends it. Each test counts the `.log` reads,
 * so that it also fails if the follower quietly went back to the file.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log, LogRecord } from "../../../../src/log/log.js";
import type { LogOptions } from "../../../../src/log/options/log-options.js";
import { WrittenTail, TAIL_BYTES } from "../../../../src/log/state/written-tail.js";
import { loadFollower } from "../../../../src/log/read/door-follower.js";
import { loadRecords } from "../../../../src/log/read/door-records.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { expectCode, expectedAt, NAME, pending, plain, recordAt } from "../helpers.js";

// The follower's part loads on a follower's first wait (door-follower.ts), and the iterator's body
// on its first next() (door-records.ts): both loaded here first, so that no test's first append
// races their load (an append written before it would be read back from the file once, as for any
// writer nobody followed yet). The lazy loads themselves: follow.test.ts, first-use-doors.test.ts.
beforeAll(() => Promise.all([loadFollower(), loadRecords()]));

const text = (r: LogRecord): string => new TextDecoder().decode(r.value!);

/** A log on a SimStorage whose `.log` data reads are counted. */
async function countedLog(
  options: LogOptions = {},
): Promise<{ sim: SimStorage; dir: LogDir; log: Log; reads: () => number }> {
  const sim = new SimStorage({ seed: 41 });
  let reads = 0;
  const storage = new HookedStorage(sim, async (op, run) => {
    if (op.kind === "read" && op.path.endsWith(".log")) reads++;
    return run();
  });
  const dir = await LogDir.open(storage);
  const log = await dir.log(NAME, options);
  return { sim, dir, log, reads: () => reads };
}

/** Lets a follower reach the end and wait there. */
async function settleDown(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function take(it: AsyncGenerator<LogRecord>, count: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (let i = 0; i < count; i++) {
    const step = await it.next();
    expect(step.done, `step ${i}`).toBe(false);
    out.push(step.value as LogRecord);
  }
  return out;
}

describe("a follower fed from the writer's memory", () => {
  it("is handed each append's batch, byte for byte what the file holds, with no read of the file", async () => {
    const { dir, log, reads } = await countedLog();
    const it = log.records({ follow: true });
    const first = it.next();
    await settleDown();
    for (let i = 0; i < 20; i++)
      await log.append([recordAt(2 * i, undefined, 300), recordAt(2 * i + 1, undefined, 300)]);
    const got = [(await first).value as LogRecord, ...(await take(it, 39))];
    expect(reads()).toBe(0); // handed from memory, every one
    expect(got.map(plain)).toEqual(Array.from({ length: 40 }, (_, i) => expectedAt(i, undefined, 300)));
    await it.return(undefined);
    // And what it was handed is what a reader of the file gets.
    const back: LogRecord[] = [];
    for await (const r of log.records()) back.push(r);
    expect(back.map(plain)).toEqual(got.map(plain));
    expect(reads()).toBeGreaterThan(0);
    await dir.close();
  });

  it("a writer nobody follows keeps nothing; a follower that ended lets it stop keeping", () => {
    const tail = new WrittenTail();
    expect(tail.wanted).toBe(false);
    tail.want();
    expect(tail.wanted).toBe(true);
    // The writes of TAIL_BYTES and more after the follower last looked: kept no longer.
    const bytes = new Uint8Array(TAIL_BYTES + 1);
    tail.written([{ bytes, header: { baseOffset: 0, lastOffset: 0 } as never }], true);
    expect(tail.wanted).toBe(false);
    expect(tail.batchesFrom(0, 1, 1 << 20)).toBeUndefined(); // and it held nothing
  });

  it("never hands out batches of memory the writer reuses, nor a tail short of the end", () => {
    const tail = new WrittenTail();
    const batch = (base: number, last: number) => ({
      bytes: new Uint8Array(10),
      header: { baseOffset: base, lastOffset: last } as never,
    });
    tail.want();
    tail.written([batch(0, 4), batch(5, 9)], true);
    expect(tail.batchesFrom(6, 11, 1 << 20)).toBeUndefined(); // a write it did not see
    expect(tail.batchesFrom(0, 10, 10)?.length).toBe(1); // about maxBytes, at least one batch
    expect(tail.batchesFrom(0, 10, 1 << 20)).toBeUndefined(); // handed out once only
    expect(tail.batchesFrom(6, 10, 1 << 20)?.length).toBe(1);
    expect(tail.batchesFrom(6, 10, 1 << 20)).toBeUndefined();
    tail.written([batch(12, 13)], true); // not after the last: it starts again
    expect(tail.batchesFrom(9, 14, 1 << 20)).toBeUndefined();
    expect(tail.batchesFrom(12, 14, 1 << 20)?.length).toBe(1);
    tail.written([batch(14, 15)], false); // pooled memory: the tail empties
    expect(tail.batchesFrom(12, 16, 1 << 20)).toBeUndefined();
    expect(tail.batchesFrom(14, 16, 1 << 20)).toBeUndefined();
  });

  it("hands each batch out once: records changed in place reach no other follower", async () => {
    const { dir, log, reads } = await countedLog();
    const a = log.records({ follow: true });
    const b = log.records({ follow: true });
    const firstA = a.next();
    const firstB = b.next();
    await settleDown();
    await log.append([recordAt(0, undefined, 50), recordAt(1, undefined, 50)]);
    const got = [(await firstA).value as LogRecord, (await a.next()).value as LogRecord];
    for (const r of got) r.value!.fill(0x21); // a caller decoding in place
    const other = [(await firstB).value as LogRecord, (await b.next()).value as LogRecord];
    expect(other.map(plain)).toEqual([expectedAt(0, undefined, 50), expectedAt(1, undefined, 50)]);
    expect(reads()).toBe(1); // the first was handed the memory, the second read the file
    await a.return(undefined);
    await b.return(undefined);
    await dir.close();
  });

  it("a truncation at or above its position: it goes on in the new history, never a batch the cut removed", async () => {
    const { dir, log, reads } = await countedLog();
    const it = log.records({ follow: true });
    const first = it.next();
    await settleDown();
    for (let i = 0; i < 10; i++) await log.append([{ value: `old-${i}` }]);
    const got = [text((await first).value as LogRecord)];
    for (let i = 1; i < 6; i++) got.push(text((await it.next()).value as LogRecord)); // 6..9 were handed ahead
    expect(reads()).toBe(0);
    await log.truncateTo(6);
    // The same offsets again, other bytes: the memory of the old 6..9 must not be handed out.
    for (let i = 6; i < 10; i++) await log.append([{ value: `new-${i}` }]);
    for (let i = 6; i < 10; i++) got.push(text((await it.next()).value as LogRecord));
    expect(got).toEqual([...Array.from({ length: 6 }, (_, i) => `old-${i}`), "new-6", "new-7", "new-8", "new-9"]);
    await it.return(undefined);
    await dir.close();
  });

  it("a truncation below what it yielded ends it with PAGELOG_OFFSET_OUT_OF_RANGE, even when the end comes back", async () => {
    const { dir, log, reads } = await countedLog();
    const it = log.records({ follow: true });
    const first = it.next();
    await settleDown();
    for (let i = 0; i < 8; i++) await log.append([recordAt(i)]);
    await first;
    await take(it, 7);
    expect(reads()).toBe(0);
    const step = it.next();
    expect(await pending(step)).toBe(true);
    await log.truncateTo(4);
    for (let i = 4; i < 10; i++) await log.append([{ value: `new-${i}` }]);
    await expectCode(() => step, ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("a write that failed is never yielded: what the log holds, then PAGELOG_FAILED", async () => {
    const { sim, dir, log, reads } = await countedLog();
    const it = log.records({ follow: true });
    const first = it.next();
    await settleDown();
    for (let i = 0; i < 3; i++) await log.append([recordAt(i, undefined, 100)]);
    expect(plain((await first).value as LogRecord)).toEqual(expectedAt(0, undefined, 100));
    expect(reads()).toBe(0);
    sim.injectFault({ op: "write", code: "EIO" });
    await expectCode(() => log.append([recordAt(3, undefined, 100)]), ErrorCode.IO);
    expect(log.status).toBe("failed");
    const rest: number[] = [];
    const err = await (async () => {
      try {
        for (;;) rest.push(((await it.next()).value as LogRecord).offset);
      } catch (e) {
        return e;
      }
    })();
    expect(rest).toEqual([1, 2]);
    await expectCode(() => Promise.reject(err), ErrorCode.FAILED);
    await expect(dir.close()).rejects.toBeDefined();
  });

  it("across segment rolls: every offset once, in order, still from memory", async () => {
    const { dir, log, reads } = await countedLog({ segmentBytes: 4096 });
    const total = 300;
    const it = log.records({ follow: true, to: total });
    const first = it.next();
    await settleDown();
    for (let at = 0; at < total; at += 3) await log.append([0, 1, 2].map((i) => recordAt(at + i, undefined, 100)));
    const seen = [(await first).value as LogRecord];
    for await (const r of it) seen.push(r);
    expect(seen.map(plain)).toEqual(Array.from({ length: total }, (_, i) => expectedAt(i, undefined, 100)));
    expect(log.segmentCount).toBeGreaterThan(5);
    expect(reads()).toBe(0);
    await dir.close();
  });

  it("a close ends it with PAGELOG_CLOSED, whatever it was handed ahead", async () => {
    const { dir, log, reads } = await countedLog();
    const it = log.records({ follow: true });
    const first = it.next();
    await settleDown();
    for (let i = 0; i < 5; i++) await log.append([recordAt(2 * i), recordAt(2 * i + 1)]);
    await first; // 1..9 are ahead
    expect(reads()).toBe(0);
    await dir.close();
    await expectCode(() => it.next(), ErrorCode.CLOSED);
  });
});
