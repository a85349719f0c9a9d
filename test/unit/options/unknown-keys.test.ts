/**
 * Every public options object refuses a key it does not know: a misspelled option is a TypeError
 * naming the key and the known ones, never a silent default (`LogDir.open(sim, { maxOpenFile: 4 })`
 * used to run with 128 descriptors). An undefined value of a known key still means the default.
 */
import { describe, expect, it } from "vitest";
import {
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  encodeBatchAsync,
  Segment,
  validateBatch,
} from "../../../src/format.js";
import { HandlePool, LogDir, SimStorage } from "../../../src/index.js";
import { crashTest, pagelogAdapter } from "../../../src/testing.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { makeTempDir, NAME } from "../log/helpers.js";

/**
 * An option given as undefined, as a JavaScript caller may: it counts as absent. (Typed callers
 * leave the key out: the option types do not take undefined under exactOptionalPropertyTypes.)
 */
const ABSENT = undefined as never;

async function expectUnknown(
  action: () => unknown,
  key: string,
  known: readonly string[],
  nearest?: string,
): Promise<void> {
  const err: unknown = await (async () => action())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a TypeError for ${key}`).toBeInstanceOf(TypeError);
  const message = (err as TypeError).message;
  expect(message).toContain(`unknown option ${JSON.stringify(key)}`);
  expect(message).toContain(`known: ${known.join(", ")}`);
  if (nearest !== undefined) expect(message).toContain(`did you mean ${JSON.stringify(nearest)}`);
}

const LOG_KEYS = [
  "segmentBytes",
  "segmentMs",
  "indexIntervalBytes",
  "maxIndexBytes",
  "maxBatchBytes",
  "indexCacheBytes",
  "flushMessages",
  "flushMs",
  "retentionBytes",
  "retentionMs",
  "retentionCheckIntervalMs",
  "cleanupPolicy",
  "minCleanableDirtyRatio",
  "deleteRetentionMs",
  "minCompactionLagMs",
  "maxCompactionLagMs",
  "cleanerDedupeBufferBytes",
  "backgroundCleaning",
  "crc32c",
  "clock",
  "policies",
];
const ENCODE_KEYS = [
  "baseOffset",
  "partitionLeaderEpoch",
  "producerId",
  "producerEpoch",
  "baseSequence",
  "isTransactional",
  "isControl",
  "logAppendTime",
  "timestamp",
  "maxBatchBytes",
  "crc32c",
];
const SEGMENT_OPTIONS = { indexIntervalBytes: 4096, maxIndexBytes: 1024, maxBatchBytes: 1 << 20 };
const never = undefined as never;

describe("unknown options are TypeErrors naming the key and the known ones", () => {
  it("LogDir.open, its log defaults and dir.log()", async () => {
    const sim = new SimStorage({ seed: 1 });
    await expectUnknown(
      () => LogDir.open(sim, { maxOpenFile: 4 } as never),
      "maxOpenFile",
      ["log", "checkpointIntervalMs", "maxOpenFiles"],
      "maxOpenFiles",
    );
    await expectUnknown(
      () => LogDir.open(sim, { checkpointInterval: 5 } as never),
      "checkpointInterval",
      ["log", "checkpointIntervalMs", "maxOpenFiles"],
      "checkpointIntervalMs",
    );
    await expectUnknown(() => LogDir.open(sim, { maxOpenFile: undefined } as never), "maxOpenFile", ["log"]);
    await expectUnknown(() => LogDir.open(sim, { log: { flushMessage: 1 } as never }), "flushMessage", LOG_KEYS);
    expect(await sim.list("")).toEqual([]); // refused before the lock was taken
    const dir = await LogDir.open(sim, { maxOpenFiles: ABSENT, checkpointIntervalMs: ABSENT, log: ABSENT });
    await expectUnknown(() => dir.log(NAME, { segmentByte: 100 } as never), "segmentByte", LOG_KEYS, "segmentBytes");
    await dir.close();
  });

  it("LogDir.open's maxOpenFiles is the pool's bound (the key that was misspelled works when spelled)", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 2 }), { maxOpenFiles: 4 });
    expect(dir.storage.maxOpenFiles).toBe(4);
    await dir.close();
  });

  it("a log's read, readBatches and records", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 3 }));
    const log = await dir.log(NAME);
    await log.append([{ value: "a" }]);
    await expectUnknown(
      () => log.read(0, { maxRecord: 1 } as never),
      "maxRecord",
      ["maxBytes", "maxRecords"],
      "maxRecords",
    );
    await expectUnknown(() => log.readBatches(0, { maxByte: 1 } as never), "maxByte", ["maxBytes"], "maxBytes");
    await expectUnknown(() => log.records({ form: 0 } as never).next(), "form", ["from", "to", "signal"]);
    expect((await log.read(0, { maxRecords: 1, maxBytes: ABSENT })).length).toBe(1);
    await dir.close();
  });

  it("SimStorage, its injectFault and open", async () => {
    const keys = ["seed", "sectorSize", "pageSize", "writeback", "traceLimit"];
    await expectUnknown(() => new SimStorage({ pageSise: 512 } as never), "pageSise", keys, "pageSize");
    await expectUnknown(() => new SimStorage({ seed: 1, writeBack: 0.5 } as never), "writeBack", keys, "writeback");
    expect(new SimStorage({ pageSize: ABSENT, seed: ABSENT }).options.pageSize).toBe(4096);
    const sim = new SimStorage({ seed: 4 });
    await expectUnknown(
      () => sim.injectFault({ op: "sync", code: "EIO", time: 2 } as never),
      "time",
      ["op", "path", "code", "times"],
      "times",
    );
    await expectUnknown(() => sim.open("f", { creat: true } as never), "creat", ["create", "readOnly"], "create");
    await expectUnknown(
      () => sim.open("f", { readonly: true } as never),
      "readonly",
      ["create", "readOnly"],
      "readOnly",
    );
    expect(() => sim.writeback({ page: 1 } as never)).toThrow(
      /unknown option "page" \(did you mean "pages"\?\); known: pages, path/,
    );
    expect(() => sim.scheduleCrash({ afterOp: 1 } as never)).toThrow(/unknown option "afterOp".*known: afterOps/);
    expect(await sim.list("")).toEqual([]);
  });

  it("HandlePool and its open; FsStorage's open", async () => {
    const sim = new SimStorage({ seed: 5 });
    await expectUnknown(() => new HandlePool(sim, { maxOpenFile: 2 } as never), "maxOpenFile", ["maxOpenFiles"]);
    const pool = new HandlePool(sim, { maxOpenFiles: ABSENT });
    await expectUnknown(() => pool.open("f", { creat: true } as never), "creat", ["create", "readOnly"], "create");
    const fs = await FsStorage.open(await makeTempDir());
    await expectUnknown(() => fs.open("f", { creat: true } as never), "creat", ["create", "readOnly"], "create");
    expect(await fs.list("")).toEqual([]);
    await fs.close();
  });

  it("crashTest, with an adapter or with policies only; pagelogAdapter's two options objects", async () => {
    const keys = ["schedules", "seed", "maxOps", "throwOnViolation", "failFast", "onProgress", "policies"];
    let opened = 0;
    const adapter = pagelogAdapter();
    const counting = {
      name: "counting",
      open: (...args: Parameters<typeof adapter.open>) => (opened++, adapter.open(...args)),
    };
    await expectUnknown(() => crashTest(counting, { schedule: 2 } as never), "schedule", keys, "schedules");
    await expectUnknown(() => crashTest({ policies: {}, failfast: false } as never), "failfast", keys, "failFast");
    expect(opened).toBe(0); // nothing ran
    await expectUnknown(() => pagelogAdapter({ segmentByte: 1 } as never), "segmentByte", LOG_KEYS, "segmentBytes");
    await expectUnknown(() => pagelogAdapter({}, { maxOpenFile: 2 } as never), "maxOpenFile", ["maxOpenFiles"]);
    const summary = await crashTest(adapter, { seed: 1, schedules: 1, onProgress: ABSENT, policies: ABSENT });
    expect(summary.schedules).toBe(1);
  });

  it("encodeBatch, encodeBatchAsync, decodeBatch, decodeBatchSync and validateBatch", async () => {
    const records = [{ value: "v" }];
    await expectUnknown(
      () => encodeBatch(records, { baseOffset: 0, timestmp: 1 } as never),
      "timestmp",
      ENCODE_KEYS,
      "timestamp",
    );
    await expectUnknown(
      () => encodeBatchAsync(records, { baseOffset: 0, compresion: "gzip" } as never),
      "compresion",
      [...ENCODE_KEYS, "compression"],
      "compression",
    );
    const bytes = encodeBatch(records, { baseOffset: 0, timestamp: 1, producerId: ABSENT });
    // compression is encodeBatchAsync's own: encodeBatch never sees it, whichever codec.
    for (const compression of ["none", "gzip"] as const) {
      const batch = await encodeBatchAsync(records, { baseOffset: 0, timestamp: 1, compression });
      expect((await decodeBatch(batch)).records.length).toBe(1);
    }
    const decodeKeys = ["verifyCrc", "crc32c", "maxDecompressedBytes"];
    await expectUnknown(() => decodeBatch(bytes, { verifyCRC: false } as never), "verifyCRC", decodeKeys, "verifyCrc");
    await expectUnknown(() => decodeBatchSync(bytes, { crc: never } as never), "crc", decodeKeys);
    await expectUnknown(
      () => validateBatch(bytes, 0, bytes.length, { maxBatchBytes: 1 << 20, maxBatchByte: 1 } as never),
      "maxBatchByte",
      ["maxBatchBytes", "crc32c"],
      "maxBatchBytes",
    );
    expect(validateBatch(bytes, 0, bytes.length, { maxBatchBytes: 1 << 20, crc32c: ABSENT }).ok).toBe(true);
  });

  it("Segment.open and a segment's recover", async () => {
    const sim = new SimStorage({ seed: 6 });
    await sim.mkdir(NAME);
    const keys = ["indexIntervalBytes", "maxIndexBytes", "maxBatchBytes", "crc32c", "policies"];
    await expectUnknown(
      () => Segment.open(sim, NAME, 0, { ...SEGMENT_OPTIONS, maxIndexByte: 1 } as never),
      "maxIndexByte",
      keys,
    );
    const segment = await Segment.open(sim, NAME, 0, SEGMENT_OPTIONS);
    await expectUnknown(
      () => segment.recover({ minNextOfset: 1 } as never),
      "minNextOfset",
      ["minNextOffset", "endOffset"],
      "minNextOffset",
    );
    await expectUnknown(() => segment.flush({ forced: true } as never), "forced", ["force", "indexes"], "force");
    await segment.close();
  });
});
