/**
 * Appending and reading: size checks, options and names, reads with limits, the records()
 * iterator, raw batches and timestamp lookups (UnifiedLogTest's read/append scenarios).
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { decodeBatch, readBatchHeader } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import type { LogOptions } from "../../../../src/log/options/log-options.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectTypeError,
  expectedAt,
  freshLog,
  openSim,
  plain,
  readAll,
  readFile,
  recordAt,
  segPath,
} from "../helpers.js";

/** Back-to-back batches in a buffer: [baseOffset, lastOffset, size] of each. */
function batchesIn(bytes: Uint8Array): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let at = 0; at < bytes.length;) {
    const h = readBatchHeader(bytes, at);
    out.push([h.baseOffset, h.lastOffset, h.sizeInBytes]);
    at += h.sizeInBytes;
  }
  return out;
}

describe("append", () => {
  it("append: one call is one batch; every record field round-trips (strings, bytes, nulls, header object and array, duplicate header keys)", async () => {
    const clock = { now: () => 5_000 };
    const { log } = await freshLog({ clock });
    const r1 = await log.append([
      { key: "user-1", value: "hello", headers: { source: "web", none: null }, timestamp: 42 },
      {
        key: null,
        value: new Uint8Array([0, 1, 255]),
        headers: [
          { key: "dup", value: "a" },
          { key: "dup", value: new Uint8Array([7]) },
        ],
      },
      { value: null },
    ]);
    expect(r1).toEqual({ baseOffset: 0, lastOffset: 2 });
    expect(batchesIn(await log.readBatches(0))).toHaveLength(1);
    const got = (await log.read(0)).map(plain);
    expect(got[0]).toEqual({
      offset: 0,
      timestamp: 42,
      key: "user-1",
      value: "hello",
      headers: [
        { key: "source", value: "web" },
        { key: "none", value: null },
      ],
    });
    const raw = await log.read(1, { maxRecords: 1 });
    expect(raw[0]!.key).toBeNull();
    expect([...raw[0]!.value!]).toEqual([0, 1, 255]);
    expect(raw[0]!.headers.map((h) => [h.key, [...h.value!]])).toEqual([
      ["dup", [97]],
      ["dup", [7]],
    ]);
    expect(raw[0]!.timestamp).toBe(5_000); // no timestamp given: the log's clock
    expect(got[2]).toMatchObject({ offset: 2, key: null, value: null, headers: [] });
    expect(await log.append([recordAt(3)])).toEqual({ baseOffset: 3, lastOffset: 3 });
  });

  it("append: a batch over maxBatchBytes is PAGELOG_RECORD_TOO_LARGE, appends nothing, and the log keeps working", async () => {
    const { sim, dir, log } = await freshLog({ maxBatchBytes: 300 });
    const model = await appendBatches(log, 2);
    const size = log.size;
    await expectCode(() => log.append([recordAt(2, undefined, 400)]), ErrorCode.RECORD_TOO_LARGE);
    // Many small records that only together exceed the limit.
    await expectCode(
      () => log.append(Array.from({ length: 20 }, (_, i) => recordAt(2 + i))),
      ErrorCode.RECORD_TOO_LARGE,
    );
    expect([log.endOffset, log.size, log.status]).toEqual([2, size, "open"]);
    model.push(...(await appendBatches(log, 2)));
    expect(await readAll(log)).toEqual(model);
    await dir.close();
    expect(dir.recovery.clean).toBe(false); // a fresh directory had no marker
    const after = await (await openSim(sim)).log(NAME, { maxBatchBytes: 300 });
    expect(await readAll(after)).toEqual(model);
  });

  it("append: an empty record list and malformed records are TypeErrors that append nothing", async () => {
    const { log } = await freshLog();
    await appendBatches(log, 1);
    // Programmer mistakes: TypeError or RangeError (an empty batch is a RangeError), never a PagelogError.
    for (const bad of [[], [{}], [{ value: 5 }], [{ value: "v", headers: 3 }], "x", null]) {
      const err: unknown = await log.append(bad as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err instanceof TypeError || err instanceof RangeError, JSON.stringify(bad)).toBe(true);
    }
    expect([log.endOffset, log.status]).toEqual([1, "open"]);
    expect((await log.append([recordAt(1)])).baseOffset).toBe(1);
  });
});

describe("options and names", () => {
  it("options: bad values are TypeErrors naming the option", async () => {
    const bad: Array<[keyof LogOptions, unknown]> = [
      ["segmentBytes", 0],
      ["segmentBytes", 60],
      ["segmentBytes", 2 ** 31],
      ["segmentBytes", 1.5],
      ["segmentBytes", "1024"],
      ["segmentMs", 0],
      ["segmentMs", -1],
      ["indexIntervalBytes", -1],
      ["maxIndexBytes", 11],
      ["maxBatchBytes", 10],
      ["maxBatchBytes", Number.NaN],
      ["flushMessages", 0],
      ["flushMessages", -2],
      ["flushMs", -5],
      ["retentionBytes", -2],
      ["retentionMs", Number.POSITIVE_INFINITY],
      ["crc32c", 42],
      ["clock", {}],
      ["clock", { now: 1 }],
    ];
    const sim = new SimStorage();
    const dir = await openSim(sim);
    for (const [option, value] of bad) {
      await expectTypeError(() => dir.log(NAME, { [option]: value }), option);
      await expectTypeError(() => LogDir.open(new SimStorage(), { log: { [option]: value } }), option);
    }
    // Nothing was created by a refused open.
    expect(await sim.stat(NAME)).toBeNull();
    // -1 is "off" where Kafka has an off.
    const log = await dir.log(NAME, { flushMessages: -1, flushMs: -1, retentionBytes: -1, retentionMs: -1 });
    expect(log.status).toBe("open");
  });

  it("options: the defaults are Kafka's", async () => {
    const { log } = await freshLog();
    expect(log.options).toMatchObject({
      segmentBytes: 1 << 30,
      segmentMs: 7 * 24 * 3600 * 1000,
      indexIntervalBytes: 4096,
      maxIndexBytes: 10 * 1024 * 1024,
      maxBatchBytes: 1048588,
      flushMessages: -1,
      flushMs: -1,
      retentionBytes: -1,
      retentionMs: -1,
    });
  });

  it("options: the directory's defaults apply to each log, and log options override them", async () => {
    const dir = await LogDir.open(new SimStorage(), { log: { segmentBytes: 1000, flushMessages: 5 } });
    const log = await dir.log(NAME, { flushMessages: 1 });
    expect(log.options.segmentBytes).toBe(1000);
    expect(log.options.flushMessages).toBe(1);
  });

  it("log names: ../x, a, a-b, a 250-character topic and other non-partition names are TypeErrors", async () => {
    const dir = await openSim(new SimStorage());
    const bad = [
      "../x",
      "../x-0",
      "a",
      "a-b",
      "a-",
      "-0",
      "a-01",
      "a-2147483648",
      "x/y-0",
      "/abs-0",
      "..-0",
      ".-0",
      "a b-0",
      "a\u0000-0",
      "",
      `${"t".repeat(250)}-0`,
      "ü-0",
    ];
    for (const name of bad) await expectTypeError(() => dir.log(name), "log name");
    await expectTypeError(() => dir.log(42 as unknown as string), "log name");
    expect(await dir.logs()).toEqual([]);
    // A topic may itself contain "-" (Kafka allows it): the partition is after the last one.
    const good = [`${"t".repeat(249)}-0`, "my.topic_v2-A-7", "a--1", "a-2147483647", "x-0"];
    for (const name of good) await dir.log(name);
    expect(await dir.logs()).toEqual([...good].sort());
  });

  it("log names: the same name gives the same Log while it is open", async () => {
    const dir = await openSim(new SimStorage());
    const [a, b] = await Promise.all([dir.log(NAME), dir.log(NAME)]);
    expect(a).toBe(b);
  });
});

describe("read", () => {
  async function threeBatchLog(): Promise<{ log: Log; model: ReturnType<typeof expectedAt>[] }> {
    const { log } = await freshLog({ segmentBytes: 400 });
    const model = await appendBatches(log, 6, 3); // batches of 3, a few segments
    expect(log.segmentCount).toBeGreaterThan(1);
    return { log, model };
  }

  it("read: a tiny maxBytes returns exactly one whole batch", async () => {
    const { log, model } = await threeBatchLog();
    expect((await log.read(0, { maxBytes: 1 })).map(plain)).toEqual(model.slice(0, 3));
    // From inside a batch: the rest of that batch only.
    expect((await log.read(4, { maxBytes: 1 })).map(plain)).toEqual(model.slice(4, 6));
    const raw = await log.readBatches(4, { maxBytes: 1 });
    expect(batchesIn(raw)).toEqual([[3, 5, raw.length]]);
  });

  it("read: maxRecords caps the records returned", async () => {
    const { log, model } = await threeBatchLog();
    expect((await log.read(1, { maxRecords: 1 })).map(plain)).toEqual(model.slice(1, 2));
    expect((await log.read(1, { maxRecords: 4 })).map(plain)).toEqual(model.slice(1, 5));
    for (const bad of [0, -1, Number.NaN]) await expect(log.read(0, { maxRecords: bad })).rejects.toThrow(TypeError);
    for (const bad of [0, -1, 1.5]) await expect(log.read(0, { maxBytes: bad })).rejects.toThrow(TypeError);
  });

  it("read: below the start or past the end is PAGELOG_OFFSET_OUT_OF_RANGE; at the end is empty", async () => {
    const { log, model } = await threeBatchLog();
    expect(await log.read(log.endOffset)).toEqual([]);
    await expectCode(() => log.read(log.endOffset + 1), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.readBatches(log.endOffset + 1), ErrorCode.OFFSET_OUT_OF_RANGE);
    await log.deleteRecordsBefore(7);
    await expectCode(() => log.read(6), ErrorCode.OFFSET_OUT_OF_RANGE);
    await expectCode(() => log.read(0), ErrorCode.OFFSET_OUT_OF_RANGE);
    // The start offset is inside a batch: records below it are not returned.
    expect((await log.read(7)).map(plain)[0]).toEqual(model[7]);
    expect((await readAll(log))[0]).toEqual(model[7]);
    for (const bad of [-1, 0.5, Number.NaN]) await expect(log.read(bad)).rejects.toThrow(TypeError);
  });

  it("readBatches: whole raw batches, byte for byte as on disk, across a segment boundary", async () => {
    const { sim, log } = await freshLog({ segmentBytes: 400 });
    await appendBatches(log, 6, 3);
    const first = await readFile(sim, segPath(0, ".log"));
    const raw = await log.readBatches(0, { maxBytes: 1 << 20 });
    // A read stays in one segment (as Kafka's): exactly the first segment's bytes.
    expect(raw).toEqual(first);
    const second = log.segmentBaseOffsets[1]!;
    const next = await log.readBatches(second);
    expect(batchesIn(next)[0]![0]).toBe(second);
    for (const [, , size] of batchesIn(raw)) expect(size).toBeGreaterThan(0);
    expect((await decodeBatch(raw.subarray(0, batchesIn(raw)[0]![2]))).records.map((r) => r.offset)).toEqual([0, 1, 2]);
  });
});

describe("records()", () => {
  it("records(): from and to bound the iteration, across segments", async () => {
    const { log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 10, 2);
    expect(await readAll(log)).toEqual(model);
    const some: number[] = [];
    for await (const r of log.records({ from: 3, to: 15 })) some.push(r.offset);
    expect(some).toEqual(Array.from({ length: 12 }, (_, i) => 3 + i));
    const none: number[] = [];
    for await (const r of log.records({ from: 20 })) none.push(r.offset);
    expect(none).toEqual([]);
  });

  it("records(): an AbortSignal stops the iteration with the abort reason", async () => {
    const { log } = await freshLog();
    await appendBatches(log, 10);
    const controller = new AbortController();
    const seen: number[] = [];
    const err = await (async () => {
      for await (const r of log.records({ signal: controller.signal })) {
        seen.push(r.offset);
        if (r.offset === 3) controller.abort(new Error("stop here"));
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe("stop here");
    expect(seen).toEqual([0, 1, 2, 3]);
    // An already-aborted signal yields nothing.
    const aborted = AbortSignal.abort();
    await expect(
      (async () => {
        for await (const _ of log.records({ signal: aborted })) throw new Error("yielded");
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
  });

  it("records(): breaking out early leaves the log usable", async () => {
    const { log } = await freshLog();
    await appendBatches(log, 5);
    for await (const r of log.records()) if (r.offset === 1) break;
    expect((await log.append([recordAt(5)])).baseOffset).toBe(5);
  });
});

describe("offsetForTimestamp", () => {
  /** The first offset at or after `from` whose timestamp is >= ts, by a linear scan. */
  const linear = (stamps: number[], ts: number, from = 0): number | null => {
    for (let i = from; i < stamps.length; i++) if (stamps[i]! >= ts) return i;
    return null;
  };

  it("offsetForTimestamp: equals a linear scan, with non-monotonic timestamps, across segments and after deleteRecordsBefore", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 500, indexIntervalBytes: 100 });
    // A wandering sequence: mostly rising, with late records and repeats.
    const stamps: number[] = [];
    let x = 12345;
    for (let i = 0; i < 60; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      stamps.push(1000 + i * 10 + (x % 7 === 0 ? -200 : x % 50));
    }
    for (let i = 0; i < stamps.length; i += 3) {
      await log.append(stamps.slice(i, i + 3).map((ts, j) => recordAt(i + j, ts)));
    }
    expect(log.segmentCount).toBeGreaterThan(2);
    const probes = [0, 999, ...stamps, ...stamps.map((s) => s + 1), 5000];
    for (const ts of probes) expect(await log.offsetForTimestamp(ts), `ts ${ts}`).toBe(linear(stamps, ts));
    await log.deleteRecordsBefore(20);
    for (const ts of probes) expect(await log.offsetForTimestamp(ts), `ts ${ts} from 20`).toBe(linear(stamps, ts, 20));
    // And the same answers from the indexes a reopen loads or rebuilds.
    await dir.close();
    const after = await (await openSim(sim)).log(NAME, { segmentBytes: 500, indexIntervalBytes: 100 });
    for (const ts of probes)
      expect(await after.offsetForTimestamp(ts), `ts ${ts} reopened`).toBe(linear(stamps, ts, 20));
    await expect(after.offsetForTimestamp(1.5)).rejects.toThrow(TypeError);
  });

  it("offsetForTimestamp: an empty log gives null", async () => {
    const { log } = await freshLog();
    expect(await log.offsetForTimestamp(0)).toBeNull();
  });
});
