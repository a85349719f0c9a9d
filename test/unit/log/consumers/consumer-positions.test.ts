/**
 * Consumer positions (`dir.consumer(name)`): commit, committed, position(log); their argument
 * checks; surviving reopens and power cuts; concurrent commits sharing writes; commits after
 * close; failed writes; hostile bytes in the positions file; a committed offset past the end.
 */
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import {
  CONSUMER_OFFSET_CHECKPOINT,
  consumerDir,
  consumerFile,
} from "../../../../src/log/checkpoints/consumer-files.js";
import { MAX_POSITIONS_BYTES } from "../../../../src/log/checkpoints/position-files.js";
import { keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";
import { CountingStorage } from "../../../../src/bench/counting-storage.js";
import { appendBatches, expectCode, expectTypeError, NAME, readText, writeFile } from "../helpers.js";

const encoder = new TextEncoder();

async function putFile(sim: SimStorage, path: string, text: string): Promise<void> {
  await writeFile(sim, path, 0, encoder.encode(text), { create: true, sync: true, truncate: 0 });
  await sim.syncDir("");
}

describe("consumer positions: the API", () => {
  it("commits, reads back, and keeps one offset per consumer and partition", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim);
    const billing = dir.consumer("billing");
    expect(dir.consumer("billing")).toBe(billing);
    expect(billing.name).toBe("billing");
    expect(billing.committed("orders-0")).toBeUndefined();
    await billing.commit("orders-0", 42);
    await billing.commit("orders-1", 0);
    await dir.consumer("audit.v2_x-1").commit("orders-0", 7);
    expect(billing.committed("orders-0")).toBe(42);
    expect(billing.committed("orders-1")).toBe(0);
    expect(dir.consumer("audit.v2_x-1").committed("orders-0")).toBe(7);
    expect(dir.consumer("other").committed("orders-0")).toBeUndefined();
    // A later commit moves it, backwards too (a consumer that goes back to re-read).
    await billing.commit("orders-0", 40);
    expect(billing.committed("orders-0")).toBe(40);
    await dir.close();
    // One file per consumer, Kafka's checkpoint text with the consumer's lines only.
    expect(await readText(sim, consumerFile("billing"))).toBe("0\n2\nbilling orders 0 40\nbilling orders 1 0\n");
    expect(await readText(sim, consumerFile("audit.v2_x-1"))).toBe("0\n1\naudit.v2_x-1 orders 0 7\n");
    expect(await sim.list("")).not.toContain(CONSUMER_OFFSET_CHECKPOINT);
  });

  it("survives a clean reopen and a power cut right after the commit resolved", async () => {
    let sim = new SimStorage({ seed: 2 });
    let dir = await LogDir.open(sim);
    await dir.consumer("c").commit("t-3", Number.MAX_SAFE_INTEGER);
    await dir.close();
    dir = await LogDir.open(sim);
    expect(dir.consumer("c").committed("t-3")).toBe(Number.MAX_SAFE_INTEGER);
    await dir.consumer("c").commit("t-3", 5);
    await dir.consumer("d").commit("t-4", 9);
    sim = sim.crash(keepNothing); // only what was fsynced survives
    dir = await LogDir.open(sim);
    expect(dir.consumer("c").committed("t-3")).toBe(5);
    expect(dir.consumer("d").committed("t-4")).toBe(9);
    await dir.close();
  });

  it("refuses bad names, partitions and offsets with a TypeError naming them", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 3 }));
    for (const bad of ["", "a b", "x/y", ".", "..", "é", "a".repeat(250), 5, undefined, null])
      expect(() => dir.consumer(bad as string), String(bad)).toThrow(/consumer name/);
    expect(dir.consumer("a".repeat(249)).name).toHaveLength(249);
    const c = dir.consumer("c");
    for (const bad of ["orders", "orders-x", "-1", "a b-0", "orders-2147483648", "", 3, null]) {
      await expectTypeError(() => c.commit(bad as string, 1), "partition");
      expect(() => c.committed(bad as string)).toThrow(TypeError);
    }
    for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 53, "1", null, undefined, 1n])
      await expectTypeError(() => c.commit("orders-0", bad as number), "offset");
    expect(() => c.position({} as never)).toThrow(TypeError);
    expect(c.committed("orders-0")).toBeUndefined(); // nothing of the bad calls was kept
    await dir.close();
  });

  it("refuses commits and reads once the directory is closed; commits made before close() are written", async () => {
    const sim = new SimStorage({ seed: 4 });
    const dir = await LogDir.open(sim);
    const c = dir.consumer("c");
    const before = c.commit("orders-0", 3);
    const closing = dir.close();
    await expectCode(() => c.commit("orders-0", 4), ErrorCode.CLOSED);
    await before;
    await closing;
    await expectCode(() => c.commit("orders-0", 5), ErrorCode.CLOSED);
    expect(() => c.committed("orders-0")).toThrow(/closed/);
    expect(() => dir.consumer("c")).toThrow(/closed/);
    const again = await LogDir.open(sim);
    expect(again.clean).toBe(true);
    expect(again.consumer("c").committed("orders-0")).toBe(3);
    await again.close();
  });
});

describe("consumer positions: a read-only directory", () => {
  it("reads the positions of its open, commits its own consumers, and is PAGELOG_LOCKED on the writer's", async () => {
    const sim = new SimStorage({ seed: 15 });
    const writer = await LogDir.open(sim);
    await writer.consumer("c").commit("orders-0", 7);
    const before = await readText(sim, consumerFile("c"));
    const reader = await LogDir.open(sim, { readOnly: true });
    const c = reader.consumer("c");
    expect(c.committed("orders-0")).toBe(7);
    expect(c.committed("orders-1")).toBeUndefined();
    // The writer's directory holds c's lock (it committed c): the reader's commit would be a second writer.
    const locked = await expectCode(() => c.commit("orders-0", 8), ErrorCode.LOCKED);
    expect(locked.message).toContain("consumers/c/lock");
    await reader.consumer("new").commit("orders-0", 1);
    expect(reader.consumer("new").committed("orders-0")).toBe(1);
    expect(c.committed("orders-0")).toBe(7);
    await reader.close();
    expect(await readText(sim, consumerFile("c"))).toBe(before);
    expect(await readText(sim, consumerFile("new"))).toBe("0\n1\nnew orders 0 1\n");
    await writer.close();
  });
});

describe("consumer positions: concurrent commits share writes", () => {
  it("64 commits in flight over consumers and partitions cost at most two writes per consumer", async () => {
    const sim = new SimStorage({ seed: 5 });
    const counter = new CountingStorage(sim);
    const dir = await LogDir.open(counter);
    const consumers = ["a", "b", "c", "d"].map((n) => dir.consumer(n));
    // Each consumer's first write makes its directory and takes its lock: not counted.
    for (const consumer of consumers) await consumer.commit("p-0", 0);
    const syncsBefore = counter.syncs;
    const commits: Promise<void>[] = [];
    for (let i = 0; i < 64; i++) commits.push(consumers[i % 4]!.commit(`p-${i % 8}`, 100 + i));
    await Promise.all(commits);
    // Per consumer (its own file), one write was in flight for its first commit and one queued
    // took the others: each write is one file fsync and one directory fsync.
    expect(counter.syncs - syncsBefore).toBeLessThanOrEqual(4 * 4);
    expect(counter.syncs - syncsBefore).toBeGreaterThanOrEqual(4 * 2);
    // Each (consumer, partition) got several commits: the last one made wins.
    for (let c = 0; c < 4; c++) {
      for (let p = 0; p < 8; p++) {
        const last = Math.max(...[...Array(64).keys()].filter((i) => i % 4 === c && i % 8 === p));
        if (Number.isFinite(last)) expect(consumers[c]!.committed(`p-${p}`)).toBe(100 + last);
      }
    }
    await dir.close();
  });

  it("a new directory's first commits, made together while the positions part loads, keep call order", async () => {
    const sim = new SimStorage({ seed: 16 });
    const dir = await LogDir.open(sim);
    const [c, d] = [dir.consumer("c"), dir.consumer("d")];
    const log = await dir.log("orders-0");
    expect(c.position(log).state).toBe("none");
    const commits = [c.commit("orders-0", 1), d.commit("orders-0", 5), c.commit("orders-0", 2), c.refresh()];
    expect(c.committed("orders-0")).toBeUndefined(); // nothing durable yet
    await Promise.all(commits);
    expect([c.committed("orders-0"), d.committed("orders-0")]).toEqual([2, 5]);
    // Past the log's end (it is empty), as a store made before the log was opened would say.
    expect(c.position(log).state).toBe("ahead-of-log");
    await dir.close();
    const again = await LogDir.open(sim);
    expect([again.consumer("c").committed("orders-0"), again.consumer("d").committed("orders-0")]).toEqual([2, 5]);
    await again.close();
  });

  it("committed() shows only durable values: not a value whose write is still running", async () => {
    const sim = new SimStorage({ seed: 6 });
    const dir = await LogDir.open(sim);
    const c = dir.consumer("c");
    await c.commit("orders-0", 1);
    const pending = c.commit("orders-0", 2);
    expect(c.committed("orders-0")).toBe(1);
    await pending;
    expect(c.committed("orders-0")).toBe(2);
    await dir.close();
  });
});

describe("consumer positions: failed writes", () => {
  it("a failed fsync rejects the commit, keeps the durable value, and refuses later commits", async () => {
    let sim = new SimStorage({ seed: 7 });
    const dir = await LogDir.open(sim);
    const c = dir.consumer("c");
    await c.commit("orders-0", 1);
    sim.injectFault({ op: "sync", path: `${consumerFile("c")}.tmp`, code: "EIO" });
    const a = c.commit("orders-0", 2);
    const b = c.commit("orders-1", 2); // shares the failed write
    await expectCode(() => a, ErrorCode.IO);
    await expectCode(() => b, ErrorCode.IO);
    expect(c.committed("orders-0")).toBe(1);
    expect(c.committed("orders-1")).toBeUndefined();
    await expectCode(() => c.commit("orders-0", 3), ErrorCode.FAILED);
    expect(c.committed("orders-0")).toBe(1);
    await dir.close();
    sim = sim.crash(keepNothing);
    const again = await LogDir.open(sim);
    expect(again.consumer("c").committed("orders-0")).toBe(1);
    await again.close();
  });

  it("a failed directory fsync after the rename rejects too, and committed() keeps the last durable value", async () => {
    const sim = new SimStorage({ seed: 8 });
    const dir = await LogDir.open(sim);
    const c = dir.consumer("c");
    await c.commit("orders-0", 1);
    sim.injectFault({ op: "syncDir", path: consumerDir("c"), code: "EIO" });
    await expectCode(() => c.commit("orders-0", 2), ErrorCode.IO);
    expect(c.committed("orders-0")).toBe(1);
    await expectCode(() => c.commit("orders-0", 3), ErrorCode.FAILED);
  });

  it("a full disk rejects the commit and leaves the positions usable", async () => {
    const sim = new SimStorage({ seed: 9 });
    const dir = await LogDir.open(sim);
    const c = dir.consumer("c");
    await c.commit("orders-0", 1);
    sim.injectFault({ op: "write", path: `${consumerFile("c")}.tmp`, code: "ENOSPC" });
    await expectCode(() => c.commit("orders-0", 2), ErrorCode.NO_SPACE);
    expect(c.committed("orders-0")).toBe(1);
    await c.commit("orders-0", 3);
    expect(c.committed("orders-0")).toBe(3);
    await dir.close();
  });

  it("the temp file a crash leaves is removed at open, and only that one", async () => {
    const sim = new SimStorage({ seed: 10 });
    await putFile(sim, `${CONSUMER_OFFSET_CHECKPOINT}.tmp`, "0\n1\nc t 0 99\n");
    await putFile(sim, "other.tmp", "x");
    const dir = await LogDir.open(sim);
    expect(dir.consumer("c").committed("t-0")).toBeUndefined();
    expect(await sim.list("")).not.toContain(`${CONSUMER_OFFSET_CHECKPOINT}.tmp`);
    expect(await sim.list("")).toContain("other.tmp");
    await dir.close();
  });
});

describe("consumer positions: hostile bytes in the file are never read as no positions", () => {
  const cases: [string, string][] = [
    ["torn (no final newline)", "0\n1\nc orders 0 5"],
    ["a count that does not match", "0\n2\nc orders 0 5\n"],
    ["an unknown version", "1\n1\nc orders 0 5\n"],
    ["a line of three fields", "0\n1\norders 0 5\n"],
    ["a bad consumer name", "0\n1\nc/d orders 0 5\n"],
    ["a partition past int32", "0\n1\nc orders 2147483648 5\n"],
    ["an offset past 2^53", "0\n1\nc orders 0 9007199254740993\n"],
    ["a negative offset", "0\n1\nc orders 0 -5\n"],
    ["a repeated position", "0\n2\nc orders 0 5\nc orders 0 6\n"],
    ["a name too long for a partition directory", `0\n1\nc ${"t".repeat(249)} 123456 5\n`],
    ["empty", ""],
    ["not UTF-8", "\u0000"],
  ];
  for (const [what, text] of cases) {
    it(`${what}: the open succeeds, dir.consumer() throws PAGELOG_CORRUPT, the file is left as it was`, async () => {
      const sim = new SimStorage({ seed: 11 });
      const bytes = what === "not UTF-8" ? new Uint8Array([0x30, 0x0a, 0xff, 0x0a]) : encoder.encode(text);
      await writeFile(sim, CONSUMER_OFFSET_CHECKPOINT, 0, bytes, { create: true, sync: true });
      await sim.syncDir("");
      const dir = await LogDir.open(sim);
      const err = await expectCode(() => dir.consumer("c"), ErrorCode.CORRUPT);
      expect(err.path).toBe(CONSUMER_OFFSET_CHECKPOINT);
      // The logs are not held hostage by it.
      const log = await dir.log(NAME);
      await appendBatches(log, 2);
      await dir.close();
      const f = await sim.open(CONSUMER_OFFSET_CHECKPOINT);
      expect(await f.read(0, 1 << 16)).toEqual(bytes);
      await f.close();
    });
  }

  it("a directory where the file should be is refused the same way", async () => {
    const sim = new SimStorage({ seed: 12 });
    await sim.mkdir(CONSUMER_OFFSET_CHECKPOINT);
    const dir = await LogDir.open(sim);
    await expectCode(() => dir.consumer("c"), ErrorCode.CORRUPT);
    await dir.close();
  });

  describe("on the real file system", () => {
    let root: string | undefined;
    afterEach(() => {
      if (root !== undefined) rmSync(root, { recursive: true, force: true });
      root = undefined;
    });

    it("a sparse 3 GiB file is refused by its size, unread", async () => {
      root = mkdtempSync(join(tmpdir(), "pagelog-positions-"));
      const file = join(root, CONSUMER_OFFSET_CHECKPOINT);
      writeFileSync(file, "0\n1\nc orders 0 5\n");
      truncateSync(file, 3 * 2 ** 30);
      const started = Date.now();
      const dir = await LogDir.open(root);
      const err = await expectCode(() => dir.consumer("c"), ErrorCode.CORRUPT);
      expect(err.message).toContain(`more than the ${MAX_POSITIONS_BYTES}`);
      await dir.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(statSync(file).size).toBe(3 * 2 ** 30);
    });
  });
});

describe("consumer positions: a committed offset against its log", () => {
  it("none, ok, behind-start, and ok again once committed", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 13 }));
    const log = await dir.log(NAME, { segmentBytes: 200 });
    const c = dir.consumer("c");
    expect(c.position(log)).toEqual({
      partition: NAME,
      committed: undefined,
      state: "none",
      startOffset: 0,
      endOffset: 0,
    });
    await appendBatches(log, 10);
    await c.commit(NAME, 10);
    expect(c.position(log).state).toBe("ok"); // caught up
    await c.commit(NAME, 2);
    await log.deleteRecordsBefore(5);
    expect(c.position(log)).toMatchObject({ committed: 2, state: "behind-start", startOffset: 5, endOffset: 10 });
    await c.commit(NAME, 5);
    expect(c.position(log).state).toBe("ok");
    await dir.close();
  });

  it("past the end after a power cut took unflushed records: ahead-of-log, even once appends refill the offsets", async () => {
    let sim = new SimStorage({ seed: 14 });
    let dir = await LogDir.open(sim);
    let log = await dir.log(NAME);
    await appendBatches(log, 4);
    await log.flush();
    await appendBatches(log, 6); // never flushed: the power cut takes these
    await dir.consumer("c").commit(NAME, 10); // processed and committed all ten
    sim = sim.crash(keepNothing);
    dir = await LogDir.open(sim);
    log = await dir.log(NAME);
    const c = dir.consumer("c");
    expect(log.endOffset).toBe(4);
    expect(c.committed(NAME)).toBe(10); // never silently reset
    expect(c.position(log)).toEqual({
      partition: NAME,
      committed: 10,
      state: "ahead-of-log",
      startOffset: 0,
      endOffset: 4,
    });
    await expectCode(async () => {
      for await (const r of log.records({ from: 10 })) void r;
    }, ErrorCode.OFFSET_OUT_OF_RANGE);
    // New records take offsets 4..11: resuming at 10 would skip six of them, so it stays ahead-of-log.
    await appendBatches(log, 8);
    expect(c.position(log)).toMatchObject({ committed: 10, state: "ahead-of-log", endOffset: 12 });
    // Another consumer committed below the end is not affected.
    await dir.consumer("d").commit(NAME, 3);
    expect(dir.consumer("d").position(log).state).toBe("ok");
    // The consumer decides and commits: from then on it is judged on its new offset.
    await c.commit(NAME, 4);
    expect(c.position(log)).toMatchObject({ committed: 4, state: "ok" });
    await dir.close();
  });
});
