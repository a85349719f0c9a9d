/**
 * `records()` hands out a hand-written iterator, not an async generator: it must keep a
 * generator's protocol. Calls are answered in order, one at a time; the options are checked at
 * the first next(); a failure, return() or throw() ends it, and every call after that is done.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { appendBatches, expectCode, freshLog } from "../helpers.js";

describe("records() iterator protocol", () => {
  it("answers next() calls made at once in order, each with its own record; a queued return() ends it after them", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 3, 4);
    const iterator = log.records();
    const calls = [iterator.next(), iterator.next(), iterator.next(), iterator.return(), iterator.next()];
    const results = await Promise.all(calls);
    expect(results.slice(0, 3).map((r) => (r.done === true ? "done" : r.value.offset))).toEqual([0, 1, 2]);
    expect(results[3]).toEqual({ done: true, value: undefined });
    expect(results[4]).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("a follower's next() calls pending at the end get one record each, in order, when records arrive", async () => {
    const { dir, log } = await freshLog();
    const iterator = log.records({ follow: true });
    const pending = Array.from({ length: 6 }, () => iterator.next());
    await appendBatches(log, 2, 3);
    const results = await Promise.all(pending);
    expect(results.map((r) => (r.done === true ? "done" : r.value.offset))).toEqual([0, 1, 2, 3, 4, 5]);
    const closing = iterator.return();
    expect(await closing).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("is its own async iterator and yields every record across reads, in offset order", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 20, 7);
    const iterator = log.records({ from: 5, to: 131 });
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator);
    const offsets: number[] = [];
    for await (const record of iterator) offsets.push(record.offset);
    expect(offsets).toEqual(Array.from({ length: 126 }, (_, i) => 5 + i));
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("checks its options at the first next(), not at records(); after the rejection it is done", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 1, 2);
    const iterator = log.records({ from: -1 });
    await expect(iterator.next()).rejects.toThrow(TypeError);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("throw() rejects with its argument and ends it, before the first next() or in the middle", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2, 3);
    const unstarted = log.records();
    const reason = new Error("stop here");
    await expect(unstarted.throw(reason)).rejects.toBe(reason);
    expect(await unstarted.next()).toEqual({ done: true, value: undefined });
    const started = log.records();
    expect((await started.next()).value?.offset).toBe(0);
    await expect(started.throw(reason)).rejects.toBe(reason);
    expect(await started.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("return() before the first next() reads nothing: a closed log does not make it fail", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 1, 2);
    const iterator = log.records();
    await dir.close();
    expect(await iterator.return()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("a truncation below what it handed out fails the next step (from read-ahead too); then it is done", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 4, 5);
    const iterator = log.records();
    for (let i = 0; i < 8; i++) expect((await iterator.next()).value?.offset).toBe(i);
    // Records 8..19 are read ahead already; the cut takes records handed out.
    await log.truncateTo(6);
    await expectCode(() => iterator.next(), ErrorCode.TRUNCATED);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });

  it("a truncation above its position drops what was read ahead from the cut on, and it goes on in the log as it is", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 4, 5);
    const iterator = log.records();
    for (let i = 0; i < 3; i++) expect((await iterator.next()).value?.offset).toBe(i);
    await log.truncateTo(7);
    const rest: number[] = [];
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) rest.push(r.value.offset);
    expect(rest).toEqual([3, 4, 5, 6]);
    await dir.close();
  });

  it("an abort fails the next step even with records read ahead", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 2, 5);
    const controller = new AbortController();
    const iterator = log.records({ signal: controller.signal });
    expect((await iterator.next()).value?.offset).toBe(0);
    const reason = new Error("enough");
    controller.abort(reason);
    await expect(iterator.next()).rejects.toBe(reason);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await dir.close();
  });
});
