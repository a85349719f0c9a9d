/*
 * Reading a broker's transactions (issue 34, item 4). The segments are written by hand, as a
 * broker writes them: transactional batches (attribute bit 4) of a producer id, then a control
 * batch (bit 5) whose record's key is `version int16, type int16` (0 ABORT, 1 COMMIT). A reader
 * gets what Kafka's consumer gets: never a control record; at `read_committed` (the default) no
 * record of an aborted transaction and nothing at or past the last stable offset (the first
 * offset of a transaction with no marker yet); at `read_uncommitted` every other record.
 */
import { describe, expect, it } from "vitest";
import { encodeBatch } from "../../../../src/format/api.js";
import type { Isolation } from "../../../../src/log/read/log-read.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { expectTypeError, NAME, segPath, writeFile } from "../helpers.js";
import { typedLog } from "../../../../src/log/topic/typed-log.js";

/** One batch of the hand-made log, or a roll: the batches after it go to a new segment. */
type Step =
  | { plain: string[] }
  | { idempotent: number; values: string[] }
  | { tx: number; values: string[] }
  | { marker: "commit" | "abort"; producer: number }
  | "roll";

const ABORT = 0;
const COMMIT = 1;

function controlKey(type: number): Uint8Array {
  return new Uint8Array([0, 0, 0, type]); // version 0, then the type
}

/** A broker's transaction marker: a control batch of one record. */
function marker(kind: "commit" | "abort", producerId: number, baseOffset: number): Uint8Array {
  const key = controlKey(kind === "commit" ? COMMIT : ABORT);
  // Its value: version int16, coordinator epoch int32 (a reader ignores it).
  return encodeBatch([{ key, value: new Uint8Array(6) }], {
    baseOffset,
    timestamp: 1_000 + baseOffset,
    producerId,
    producerEpoch: 0,
    isTransactional: true,
    isControl: true,
  });
}

/** Writes `steps` as segment files of partition NAME on a fresh SimStorage; returns it and the end offset. */
async function brokerLog(steps: readonly Step[]): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 34 });
  await sim.mkdir(NAME);
  const segments: { base: number; bytes: Uint8Array[] }[] = [{ base: 0, bytes: [] }];
  let offset = 0;
  for (const step of steps) {
    if (step === "roll") {
      segments.push({ base: offset, bytes: [] });
      continue;
    }
    let batch: Uint8Array;
    const timestamp = 1_000 + offset;
    if ("plain" in step) {
      batch = encodeBatch(
        step.plain.map((value) => ({ key: value, value })),
        { baseOffset: offset, timestamp },
      );
    } else if ("idempotent" in step) {
      batch = encodeBatch(
        step.values.map((value) => ({ key: value, value })),
        { baseOffset: offset, timestamp, producerId: step.idempotent, producerEpoch: 0, baseSequence: 0 },
      );
    } else if ("tx" in step) {
      batch = encodeBatch(
        step.values.map((value) => ({ key: value, value })),
        {
          baseOffset: offset,
          timestamp,
          producerId: step.tx,
          producerEpoch: 0,
          baseSequence: 0,
          isTransactional: true,
        },
      );
    } else {
      batch = marker(step.marker, step.producer, offset);
    }
    segments.at(-1)!.bytes.push(batch);
    offset += "plain" in step ? step.plain.length : "values" in step ? step.values.length : 1;
  }
  for (const { base, bytes } of segments) {
    const size = bytes.reduce((n, b) => n + b.length, 0);
    const file = new Uint8Array(size);
    let at = 0;
    for (const b of bytes) {
      file.set(b, at);
      at += b.length;
    }
    await writeFile(sim, segPath(base, ".log"), 0, file, { create: true, sync: true });
  }
  await sim.syncDir(NAME);
  return sim;
}

/** Opens the hand-made log (pagelog recovers it: no clean-shutdown marker) and runs `body`. */
async function withLog<T>(sim: SimStorage, body: (log: Log) => Promise<T>): Promise<T> {
  const dir = await LogDir.open(sim);
  try {
    return await body(await dir.log(NAME));
  } finally {
    await dir.close();
  }
}

const text = (bytes: Uint8Array | null): string => new TextDecoder().decode(bytes ?? undefined);

/** What `records()` yields, as `offset:value`. */
async function iterated(log: Log, isolation?: Isolation, from?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const r of log.records({ ...(isolation && { isolation }), ...(from !== undefined && { from }) }))
    out.push(`${r.offset}:${text(r.value)}`);
  return out;
}

/** What `read()` returns, read after read from `from`, as `offset:value`. */
async function readOneByOne(log: Log, isolation?: Isolation, from = log.startOffset): Promise<string[]> {
  const out: string[] = [];
  for (let at = from; at < log.endOffset;) {
    const got = await log.read(at, { maxRecords: 1, ...(isolation && { isolation }) });
    if (got.length === 0) break;
    out.push(`${got[0]!.offset}:${text(got[0]!.value)}`);
    at = got[0]!.offset + 1;
  }
  return out;
}

/** Both read paths, which must agree. */
async function bothPaths(log: Log, isolation?: Isolation, from?: number): Promise<string[]> {
  const viaRecords = await iterated(log, isolation, from);
  expect(await readOneByOne(log, isolation, from)).toEqual(viaRecords);
  return viaRecords;
}

describe("isolation: what a reader gets of a broker's transactions", () => {
  it("a committed transaction: its records are read, its commit marker never", async () => {
    const sim = await brokerLog([
      { plain: ["a"] },
      { tx: 7, values: ["t1", "t2"] },
      { marker: "commit", producer: 7 },
      { plain: ["b"] },
    ]);
    await withLog(sim, async (log) => {
      const committed = ["0:a", "1:t1", "2:t2", "4:b"];
      expect(await bothPaths(log)).toEqual(committed);
      expect(await bothPaths(log, "read_committed")).toEqual(committed);
      expect(await bothPaths(log, "read_uncommitted")).toEqual(committed);
    });
  });

  it("an aborted transaction: read_committed skips its records, read_uncommitted yields them; neither the marker", async () => {
    const sim = await brokerLog([
      { plain: ["a"] },
      { tx: 7, values: ["x1", "x2"] },
      { marker: "abort", producer: 7 },
      { tx: 7, values: ["t3"] },
      { marker: "commit", producer: 7 },
      { plain: ["b"] },
    ]);
    await withLog(sim, async (log) => {
      expect(await bothPaths(log)).toEqual(["0:a", "4:t3", "6:b"]);
      expect(await bothPaths(log, "read_uncommitted")).toEqual(["0:a", "1:x1", "2:x2", "4:t3", "6:b"]);
      // A read at an aborted record's offset, or at a marker's, gives what follows it.
      expect((await log.read(2, { maxRecords: 1 }))[0]?.offset).toBe(4);
      expect((await log.read(5)).map((r) => r.offset)).toEqual([6]);
      expect((await log.read(3, { isolation: "read_uncommitted" })).map((r) => r.offset)).toEqual([4, 6]);
    });
  });

  it("interleaved producers: one's abort skips only its own batches", async () => {
    const sim = await brokerLog([
      { tx: 1, values: ["p1-a"] },
      { tx: 2, values: ["p2-a"] },
      { plain: ["n"] },
      { tx: 1, values: ["p1-b"] },
      { idempotent: 3, values: ["i"] },
      { tx: 2, values: ["p2-b"] },
      { marker: "abort", producer: 2 },
      { tx: 2, values: ["p2-c"] },
      { marker: "commit", producer: 1 },
      { marker: "commit", producer: 2 },
    ]);
    await withLog(sim, async (log) => {
      expect(await bothPaths(log)).toEqual(["0:p1-a", "2:n", "3:p1-b", "4:i", "7:p2-c"]);
      expect(await bothPaths(log, "read_uncommitted")).toEqual([
        "0:p1-a",
        "1:p2-a",
        "2:n",
        "3:p1-b",
        "4:i",
        "5:p2-b",
        "7:p2-c",
      ]);
    });
  });

  it("a transaction that spans a segment roll, read whole and from its middle", async () => {
    const sim = await brokerLog([
      { plain: ["a"] },
      { tx: 9, values: ["x1", "x2"] },
      "roll",
      { plain: ["b"] },
      { tx: 9, values: ["x3"] },
      "roll",
      { tx: 9, values: ["x4"] },
      { marker: "abort", producer: 9 },
      { plain: ["c"] },
    ]);
    await withLog(sim, async (log) => {
      expect(log.segmentCount).toBe(3);
      expect(await bothPaths(log)).toEqual(["0:a", "3:b", "7:c"]);
      // From the middle of the aborted transaction: in its first segment, its second, its third.
      expect(await bothPaths(log, undefined, 2)).toEqual(["3:b", "7:c"]);
      expect(await bothPaths(log, undefined, 4)).toEqual(["7:c"]);
      expect(await bothPaths(log, undefined, 5)).toEqual(["7:c"]);
      expect(await bothPaths(log, "read_uncommitted", 2)).toEqual(["2:x2", "3:b", "4:x3", "5:x4", "7:c"]);
    });
  });

  it("a read from the middle of a transaction finds its fate on a fresh open", async () => {
    for (const from of [2, 3, 4]) {
      const sim = await brokerLog([
        { plain: ["a"] },
        { tx: 5, values: ["x1"] },
        { plain: ["b"] },
        "roll",
        { tx: 5, values: ["x2"] },
        { plain: ["c"] },
        { marker: "abort", producer: 5 },
      ]);
      // The first read of this log starts past the transaction's first batch.
      await withLog(sim, async (log) =>
        expect(await iterated(log, undefined, from)).toEqual(["2:b", "4:c"].slice(from > 2 ? 1 : 0)),
      );
    }
  });

  it("an open transaction at the end: read_committed stops at its first offset, read_uncommitted reads on", async () => {
    const sim = await brokerLog([
      { plain: ["a"] },
      { tx: 4, values: ["t1"] },
      { marker: "commit", producer: 4 },
      { tx: 4, values: ["o1"] },
      { plain: ["b"] },
      "roll",
      { tx: 4, values: ["o2"] },
      { plain: ["c"] },
    ]);
    await withLog(sim, async (log) => {
      expect(await bothPaths(log)).toEqual(["0:a", "1:t1"]);
      // At or past the last stable offset (3), a read gives nothing, as at the end.
      expect(await log.read(3)).toEqual([]);
      expect(await log.read(5)).toEqual([]);
      expect(await iterated(log, undefined, 4)).toEqual([]);
      expect(await bothPaths(log, "read_uncommitted")).toEqual(["0:a", "1:t1", "3:o1", "4:b", "5:o2", "6:c"]);
    });
  });

  it("a follower at the last stable offset waits for the marker, then yields the committed records", async () => {
    const sim = await brokerLog([{ plain: ["a"] }, { tx: 4, values: ["o1"] }]);
    // A broker goes on writing the files; pagelog follows them read-only.
    const reader = await LogDir.open(sim, { readOnly: true, pollMs: 5 });
    try {
      const log = await reader.log(NAME);
      const stop = new AbortController();
      const got: string[] = [];
      const follower = (async () => {
        try {
          for await (const r of log.records({ follow: true, signal: stop.signal })) {
            got.push(`${r.offset}:${text(r.value)}`);
            if (got.length === 3) stop.abort();
          }
        } catch (err) {
          if (!stop.signal.aborted) throw err;
        }
      })();
      const segment = segPath(0, ".log");
      const append = async (bytes: Uint8Array): Promise<void> =>
        writeFile(sim, segment, (await sim.stat(segment))!.size, bytes, { sync: true });
      await append(encodeBatch([{ value: "b" }], { baseOffset: 2, timestamp: 2 })); // past the open transaction
      await new Promise((r) => setTimeout(r, 100));
      expect(got).toEqual(["0:a"]);
      await append(marker("commit", 4, 3));
      await follower;
      expect(got).toEqual(["0:a", "1:o1", "2:b"]);
    } finally {
      await reader.close();
    }
  });

  it("a truncation below a marker reopens its transaction: read_committed stops there again", async () => {
    const sim = await brokerLog([
      { plain: ["a"] },
      { tx: 6, values: ["x"] },
      { marker: "abort", producer: 6 },
      { plain: ["b"] },
    ]);
    await withLog(sim, async (log) => {
      expect(await bothPaths(log)).toEqual(["0:a", "3:b"]);
      await log.truncateTo(2); // the abort marker and b are gone: x's transaction has no end
      expect(await bothPaths(log)).toEqual(["0:a"]);
      await log.append([{ value: "c" }]);
      expect(await bothPaths(log)).toEqual(["0:a"]);
      expect(await bothPaths(log, "read_uncommitted")).toEqual(["0:a", "1:x", "2:c"]);
    });
  });

  it("a typed log passes the isolation on", async () => {
    const sim = await brokerLog([{ tx: 2, values: ["x"] }, { marker: "abort", producer: 2 }, { plain: ["a"] }]);
    await withLog(sim, async (log) => {
      const typed = typedLog<string, string>(log, { key: "utf8", value: "utf8" });
      const values = async (isolation: Isolation): Promise<(string | null)[]> => {
        const out: (string | null)[] = [];
        for await (const r of typed.records({ isolation })) out.push(r.value);
        return out;
      };
      expect(await values("read_committed")).toEqual(["a"]);
      expect(await values("read_uncommitted")).toEqual(["x", "a"]);
      expect((await typed.read(0)).map((r) => r.value)).toEqual(["a"]);
    });
  });

  it("a .txnindex of garbage changes nothing: pagelog finds aborted transactions by their markers", async () => {
    const steps: Step[] = [
      { plain: ["a"] },
      { tx: 3, values: ["x"] },
      { marker: "abort", producer: 3 },
      { plain: ["b"] },
    ];
    for (const readOnly of [false, true]) {
      const sim = await brokerLog(steps);
      // Kafka's entry is version int16, producer id, first, last and last stable offsets (int64):
      // here a torn one, then one naming a producer and range that aborted nothing.
      const junk = new Uint8Array(34 + 20).fill(0xff);
      await writeFile(sim, `${NAME}/${"0".repeat(20)}.txnindex`, 0, junk, { create: true, sync: true });
      const dir = await LogDir.open(sim, { readOnly });
      try {
        expect(await bothPaths(await dir.log(NAME))).toEqual(["0:a", "3:b"]);
      } finally {
        await dir.close();
      }
    }
  });

  it("a batch flagged control whose records are not control records is read as data, never skipped unseen", async () => {
    // A marker without its 4-byte key, and data records with the control bit set (as a damaged
    // attribute whose CRC matches would be): skipping them would lose records without a word.
    const markerWithoutKey = encodeBatch([{ key: new Uint8Array([0, 0]), value: "m" }], {
      baseOffset: 2,
      timestamp: 2,
      producerId: 3,
      producerEpoch: 0,
      isTransactional: true,
      isControl: true,
    });
    const dataMarkedControl = encodeBatch(
      [
        { key: "k2", value: "v2" },
        { key: null, value: "v3" },
      ],
      { baseOffset: 2, timestamp: 2, isControl: true },
    );
    for (const [bad, values] of [
      [markerWithoutKey, ["2:m"]],
      [dataMarkedControl, ["2:v2", "3:v3"]],
    ] as const) {
      const sim = await brokerLog([{ plain: ["a"] }, { idempotent: 3, values: ["x"] }]);
      const segment = segPath(0, ".log");
      await writeFile(sim, segment, (await sim.stat(segment))!.size, bad, { sync: true });
      await withLog(sim, async (log) => {
        for (const isolation of ["read_committed", "read_uncommitted"] as const)
          expect(await bothPaths(log, isolation)).toEqual(["0:a", "1:x", ...values]);
      });
    }
  });

  it("a log of pagelog's own reads the same at every isolation", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim);
    try {
      const log = await dir.log(NAME);
      await log.append([{ value: "a" }, { value: "b" }]);
      await log.append([{ value: "c" }]);
      for (const isolation of [undefined, "read_committed", "read_uncommitted"] as const)
        expect(await bothPaths(log, isolation)).toEqual(["0:a", "1:b", "2:c"]);
    } finally {
      await dir.close();
    }
  });

  it("a bad isolation is a TypeError naming it, from read() and records()", async () => {
    const sim = await brokerLog([{ plain: ["a"] }]);
    await withLog(sim, async (log) => {
      for (const bad of ["READ_COMMITTED", "committed", 1, null, true]) {
        await expectTypeError(() => log.read(0, { isolation: bad as Isolation }), "isolation must be");
        await expectTypeError(() => log.records({ isolation: bad as Isolation }).next(), "isolation must be");
      }
    });
  });
});
