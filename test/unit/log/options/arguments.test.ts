/**
 * Every public method's arguments: a wrong type, NaN, ±Infinity, a fraction, a negative, an
 * unsafe integer, null or a non-object is a TypeError naming the argument, before any I/O; and
 * each input field is read exactly once (a getter answering differently each time cannot make
 * a batch disagree with its own size).
 */
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { encodeBatch, encodeBatchAsync } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, expectTypeError, freshLog, makeTempDir, plain, recordAt } from "../helpers.js";

const BAD_COUNTS: unknown[] = [
  "2",
  1.5,
  0,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  null,
  {},
  true,
];
const BAD_OFFSETS: unknown[] = [
  "0",
  1.5,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  null,
  {},
  10n,
];

async function seeded() {
  const { sim, dir, log } = await freshLog();
  await log.append([recordAt(0), recordAt(1), recordAt(2)]);
  return { sim, dir, log };
}

describe("arguments: reads", () => {
  it("read: offset, maxRecords and maxBytes of the wrong kind are TypeErrors naming them", async () => {
    const { log } = await seeded();
    for (const bad of BAD_COUNTS) {
      await expectTypeError(() => log.read(0, { maxRecords: bad as number }), "maxRecords");
      await expectTypeError(() => log.read(0, { maxBytes: bad as number }), "maxBytes");
      await expectTypeError(() => log.readBatches(0, { maxBytes: bad as number }), "maxBytes");
    }
    for (const bad of BAD_OFFSETS) {
      await expectTypeError(() => log.read(bad as number), "offset");
      await expectTypeError(() => log.readBatches(bad as number), "offset");
    }
    for (const bad of [null, "x", 5, [1]]) {
      await expectTypeError(() => log.read(0, bad as never), "read options");
      await expectTypeError(() => log.readBatches(0, bad as never), "readBatches options");
    }
    // The good ones still work.
    expect((await log.read(0, { maxRecords: 2 })).map((r) => r.offset)).toEqual([0, 1]);
    expect((await log.read(0, { maxRecords: 2 ** 53 - 1, maxBytes: 1 })).length).toBe(3);
  });

  it("records: from, to and signal of the wrong kind are TypeErrors naming them (to is never ignored)", async () => {
    const { log } = await seeded();
    const drain = async (options: unknown) => {
      for await (const _ of log.records(options as never)) void _;
    };
    for (const bad of BAD_OFFSETS) {
      await expectTypeError(() => drain({ from: bad }), "from");
      await expectTypeError(() => drain({ to: bad }), "to");
    }
    await expectTypeError(() => drain({ to: "zzz" }), "to");
    for (const bad of [null, {}, "x", 1]) await expectTypeError(() => drain({ signal: bad }), "signal");
    for (const bad of [null, "x", 5]) await expectTypeError(() => drain(bad), "records options");
    const some: number[] = [];
    for await (const r of log.records({ from: 1, to: 2 })) some.push(r.offset);
    expect(some).toEqual([1]);
  });

  it("truncateTo, deleteRecordsBefore and offsetForTimestamp check their argument", async () => {
    const { log } = await seeded();
    for (const bad of BAD_OFFSETS) {
      await expectTypeError(() => log.truncateTo(bad as number), "offset");
      await expectTypeError(() => log.deleteRecordsBefore(bad as number), "offset");
    }
    for (const bad of ["1", 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, null, {}]) {
      await expectTypeError(() => log.offsetForTimestamp(bad as number), "timestamp");
    }
    expect(log.endOffset).toBe(3); // nothing was cut
    expect(log.startOffset).toBe(0);
  });
});

describe("arguments: append", () => {
  it("records and every field of the wrong kind are TypeErrors naming the field; nothing is written", async () => {
    const { log } = await seeded();
    const cases: Array<[unknown, string]> = [
      ["x", "records"],
      [null, "records"],
      [{ length: 1, 0: { value: "a" } }, "records"],
      [[null], "records[0]"],
      [["x"], "records[0]"],
      [[[]], "records[0]"],
      [[{}], "records[0].value"],
      [[{ value: 5 }], "records[0].value"],
      [[{ value: new Uint16Array(2) }], "records[0].value"],
      [[{ value: "a" }, { value: "b", key: 5 }], "records[1].key"],
      [[{ value: "a", timestamp: "1" }], "records[0].timestamp"],
      [[{ value: "a", timestamp: 1.5 }], "records[0].timestamp"],
      [[{ value: "a", timestamp: null }], "records[0].timestamp"],
      [[{ value: "a", timestamp: Number.NaN }], "records[0].timestamp"],
      [[{ value: "a", timestamp: 2 ** 53 }], "records[0].timestamp"],
      [[{ value: "a", headers: 5 }], "records[0].headers"],
      [[{ value: "a", headers: "h" }], "records[0].headers"],
      [[{ value: "a", headers: [null] }], "records[0].headers[0]"],
      [[{ value: "a", headers: [{ key: 1, value: "v" }] }], "records[0].headers[0].key"],
      [[{ value: "a", headers: [{ key: "k", value: 1 }] }], "records[0].headers[0].value"],
      [[{ value: "a", headers: [{ key: "k" }] }], "records[0].headers[0].value"],
      [[{ value: "a", headers: { k: 5 } }], 'records[0].headers["k"]'],
    ];
    for (const [records, mention] of cases) await expectTypeError(() => log.append(records as never), mention);
    await expect(log.append([])).rejects.toThrow(RangeError);
    expect(log.endOffset).toBe(3);
  });

  it("a value, key, headers or timestamp getter is read exactly once: different bytes on each read cannot break a batch", async () => {
    const { log } = await seeded();
    const reads = { key: 0, value: 0, headers: 0, timestamp: 0 };
    const record = {
      get key() {
        return "k".repeat(++reads.key * 7);
      },
      get value() {
        return new Uint8Array(++reads.value * 100).fill(reads.value);
      },
      get headers() {
        reads.headers++;
        return [{ key: "h".repeat(reads.headers), value: "x".repeat(reads.headers * 50) }];
      },
      get timestamp() {
        return 1_000 + ++reads.timestamp * 2 ** 40;
      },
    };
    const { baseOffset } = await log.append([record, recordAt(4)]);
    expect(reads).toEqual({ key: 1, value: 1, headers: 1, timestamp: 1 });
    const [got] = await log.read(baseOffset, { maxRecords: 1 });
    expect(plain(got!)).toEqual({
      offset: 3,
      timestamp: 1_000 + 2 ** 40,
      key: "k".repeat(7),
      value: "\u0001".repeat(100),
      headers: [{ key: "h", value: "x".repeat(50) }],
    });
    // encodeBatch (the format layer's public encoder) reads each field once too.
    Object.assign(reads, { key: 0, value: 0, headers: 0, timestamp: 0 });
    expect(() => encodeBatch([record], { baseOffset: 0, timestamp: 0 })).not.toThrow();
    expect(reads).toEqual({ key: 1, value: 1, headers: 1, timestamp: 1 });
  });

  it("encodeBatch / encodeBatchAsync: a maxBatchBytes or options of the wrong kind is a TypeError naming it", async () => {
    for (const bad of ["100", 1.5, 0, Number.NaN, null]) {
      expect(() => encodeBatch([{ value: "a" }], { baseOffset: 0, maxBatchBytes: bad as number })).toThrow(
        /maxBatchBytes/,
      );
      await expect(
        encodeBatchAsync([{ value: "a" }], { baseOffset: 0, compression: "gzip", maxBatchBytes: bad as number }),
      ).rejects.toThrow(/maxBatchBytes/);
    }
    await expect(encodeBatchAsync([{ value: "a" }], null as never)).rejects.toThrow(TypeError);
  });

  it("changing the record objects after append() was called does not change what is written", async () => {
    const { log } = await seeded();
    const record = { key: "k", value: "before", headers: [{ key: "h", value: "1" }] };
    const appending = log.append([record]);
    record.value = "after";
    record.headers[0]!.value = "2";
    record.headers.push({ key: "extra", value: "3" });
    await appending;
    const [got] = await log.read(3);
    expect(plain(got!).value).toBe("before");
    expect(plain(got!).headers).toEqual([{ key: "h", value: "1" }]);
  });
});

describe("arguments: append's headers and strings", () => {
  it("headers as a Map or a Set, and strings with a lone surrogate, are TypeErrors; nothing is appended", async () => {
    const { dir, log } = await freshLog();
    await expectTypeError(() => log.append([{ value: "x", headers: new Map([["k", "v"]]) as never }]), "headers");
    await expectTypeError(() => log.append([{ value: "x", headers: new Set() as never }]), "headers");
    await expectTypeError(() => log.append([{ value: "x", headers: [{ key: "a\uD800", value: "v" }] }]), "key");
    await expectTypeError(() => log.append([{ value: "x", headers: { "a\uD800": "v" } }]), "headers key");
    await expectTypeError(() => log.append([{ key: "\uDC00", value: "x" }]), "records[0].key");
    await expectTypeError(() => log.append([{ value: "ok" }, { value: "x\uD800" }]), "records[1].value");
    expect(log.endOffset).toBe(0);
    await log.append([{ value: "x", headers: { "a😀": "v" } }]);
    const [got] = await log.read(0);
    expect(plain(got!).headers).toEqual([{ key: "a😀", value: "v" }]);
    await dir.close();
  });
});

describe("arguments: LogDir.open and log()", () => {
  it("log(name, options): options null, a string, an array or an unknown option is a TypeError; null option values too", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim);
    for (const bad of [null, "x", 5, [1]]) await expectTypeError(() => dir.log(NAME, bad as never), "log options");
    await expectTypeError(() => dir.log(NAME, { segmentByte: 1000 } as never), "segmentByte");
    for (const option of [
      "segmentBytes",
      "segmentMs",
      "indexIntervalBytes",
      "maxIndexBytes",
      "maxBatchBytes",
      "flushMessages",
      "flushMs",
      "retentionBytes",
      "retentionMs",
    ]) {
      for (const bad of [null, "100", 100.5, Number.NaN, Number.POSITIVE_INFINITY, -2, 2 ** 53, {}]) {
        await expectTypeError(() => dir.log(NAME, { [option]: bad }), option);
      }
    }
    for (const bad of [null, 5, "f"]) await expectTypeError(() => dir.log(NAME, { crc32c: bad } as never), "crc32c");
    for (const bad of [null, 5, {}, { now: 1 }])
      await expectTypeError(() => dir.log(NAME, { clock: bad } as never), "clock");
    expect(await sim.list("")).not.toContain(NAME); // nothing was created
    await dir.close();
  });

  it("LogDir.open: options and options.log of the wrong kind are TypeErrors naming them", async () => {
    const sim = new SimStorage({ seed: 2 });
    for (const bad of [null, "x", [1]]) await expectTypeError(() => LogDir.open(sim, bad as never), "options");
    for (const bad of [null, "x", 5])
      await expectTypeError(() => LogDir.open(sim, { log: bad as never }), "option log");
    await expectTypeError(() => LogDir.open(sim, { log: { flushMs: "5" } as never }), "flushMs");
    for (const bad of [null, 5, {}, undefined]) await expectTypeError(() => LogDir.open(bad as never), "LogDir.open");
    await (await LogDir.open(sim)).close();
  });

  it("names: a topic of 249 characters with a partition whose directory name passes 255 bytes is refused before any I/O", async () => {
    const sim = new SimStorage({ seed: 3 });
    const dir = await LogDir.open(sim);
    const topic = "t".repeat(249);
    await expectTypeError(() => dir.log(`${topic}-123456`), "255");
    await expectTypeError(() => dir.log(`${topic}-2147483647`), "255");
    await expectTypeError(() => dir.log(`${"t".repeat(250)}-0`), "249");
    expect(await sim.list("")).toEqual([".lock"]);
    await dir.close();
    // The longest allowed name works on a real file system.
    const root = await makeTempDir();
    try {
      const real = await LogDir.open(root);
      const log = await real.log(`${topic}-12345`);
      await log.append([{ value: "v" }]);
      await real.close();
      expect(await fs.readdir(nodePath.join(root, `${topic}-12345`))).toContain("00000000000000000000.log");
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
