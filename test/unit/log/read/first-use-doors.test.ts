/*
 * The three doors the browser-bundle test cannot make fail in its realm (docs/entry-points.md,
 * "Lazy parts"): the transaction walk needs a broker's transactional batch, gzip and the
 * compressed batches' part need a compressed one (and gzip `CompressionStream`). Each part is mocked to fail to load once (as a chunk a page failed to
 * fetch), in a fresh module registry: that call fails, nothing else does, and the next call loads
 * the real part. And the records iterator's body, whose door serves two calls (the browser-bundle
 * test fails it for `records()`; here `waitFor()` too), loaded inside an iteration's first read:
 * that read keeps its place among the log's calls while the part loads.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeBatch, encodeBatchAsync } from "../../../../src/format/api.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, segPath, writeFile } from "../helpers.js";

const WALK = "../../../../src/log/read/transaction-walk.js";
const GZIP = "../../../../src/format/gzip.js";
const COMPRESSED = "../../../../src/format/compressed/decode-compressed.js";
const BODY = "../../../../src/log/read/records-body.js";
const LOG_DIR = "../../../../src/log/log-dir.js";

afterEach(() => {
  vi.doUnmock(WALK);
  vi.doUnmock(GZIP);
  vi.doUnmock(COMPRESSED);
  vi.doUnmock(BODY);
  vi.resetModules();
});

/**
 * In a fresh module registry, makes the next load of `module` fail, as a chunk a page failed to
 * fetch would; the later ones load it. Returns how many failures are still to come (1 until the
 * part is first asked for).
 */
function failOnce(module: string): () => number {
  vi.resetModules();
  let failures = 1;
  vi.doMock(module, async (real) => {
    if (failures-- > 0) throw new Error("chunk not loaded");
    return real();
  });
  return () => failures;
}

/** A broker's partition: a committed transaction of producer 7 (two records, then its marker). */
async function committedTransaction(): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 32 });
  await sim.mkdir(NAME);
  const txn = { producerId: 7, producerEpoch: 0, baseSequence: 0, isTransactional: true };
  const data = encodeBatch(
    [
      { key: "a", value: "1" },
      { key: "b", value: "2" },
    ],
    { baseOffset: 0, timestamp: 1_000, ...txn },
  );
  const commit = encodeBatch([{ key: new Uint8Array([0, 0, 0, 1]), value: new Uint8Array(6) }], {
    baseOffset: 2,
    timestamp: 1_002,
    ...txn,
    isControl: true,
  });
  const file = new Uint8Array(data.length + commit.length);
  file.set(data, 0);
  file.set(commit, data.length);
  await writeFile(sim, segPath(0, ".log"), 0, file, { create: true, sync: true });
  await sim.syncDir(NAME);
  return sim;
}

describe("a lazy part that fails to load", () => {
  it("the transaction walk: that read fails, the log does not, the next read loads it", async () => {
    const sim = await committedTransaction();
    failOnce(WALK);
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const dir = await LogDir.open(sim);
    const log = await dir.log(NAME);
    await expect(log.read(0)).rejects.toThrow(); // vitest wraps the factory's "chunk not loaded"
    expect(log.status).toBe("open");
    expect((await log.read(0)).map((r) => r.offset)).toEqual([0, 1]); // the marker is never a record
    await dir.close();
  });

  it("gzip: that decode fails, the next one loads it", async () => {
    const batch = await encodeBatchAsync([{ value: "zipped" }], { baseOffset: 0, compression: "gzip" });
    failOnce(GZIP);
    const { decodeBatch } = await import("../../../../src/format/checked/batch-functions.js");
    await expect(decodeBatch(batch)).rejects.toThrow(); // vitest wraps the factory's "chunk not loaded"
    const decoded = await decodeBatch(batch);
    expect(new TextDecoder().decode(decoded.records[0]!.value!)).toBe("zipped");
  });

  it("the compressed batches: that read fails, the log does not, the next read loads it", async () => {
    // A broker's segment of one gzip batch (pagelog's appends write none).
    const sim = new SimStorage({ seed: 34 });
    await sim.mkdir(NAME);
    const batch = await encodeBatchAsync([{ value: "zipped" }, { value: "too" }], {
      baseOffset: 0,
      compression: "gzip",
    });
    await writeFile(sim, segPath(0, ".log"), 0, batch, { create: true, sync: true });
    await sim.syncDir(NAME);
    failOnce(COMPRESSED);
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const dir = await LogDir.open(sim);
    const log = await dir.log(NAME);
    await expect(log.read(0)).rejects.toThrow(); // vitest wraps the factory's "chunk not loaded"
    expect(log.status).toBe("open");
    const records = await log.read(0);
    expect(records.map((r) => [r.offset, new TextDecoder().decode(r.value!)])).toEqual([
      [0, "zipped"],
      [1, "too"],
    ]);
    await dir.close();
  });

  it("the records iterator's body: that next() fails and ends its iteration, the log does not, the next iteration loads it", async () => {
    failOnce(BODY);
    const { LogDir } = await import(LOG_DIR);
    const dir = await LogDir.open(new SimStorage({ seed: 33 }));
    const log = await dir.log(NAME);
    await log.append([{ value: "a" }, { value: "b" }]);
    const failed = log.records();
    await expect(failed.next()).rejects.toThrow(); // vitest wraps the factory's "chunk not loaded"
    expect(await failed.next()).toEqual({ done: true, value: undefined }); // a failure ends it
    expect(log.status).toBe("open");
    const offsets: number[] = [];
    for await (const record of log.records()) offsets.push(record.offset);
    expect(offsets).toEqual([0, 1]);
    await dir.close();
  });

  it("waitFor's wait: a record already there answers without it; that wait fails, the next one loads it", async () => {
    const failures = failOnce(BODY);
    const { LogDir } = await import(LOG_DIR);
    const dir = await LogDir.open(new SimStorage({ seed: 34 }));
    const log = await dir.log(NAME);
    await log.append([{ value: "a" }]);
    expect(await log.waitFor(0)).toBe(1); // there: nothing loads
    expect(failures()).toBe(1);
    await expect(log.waitFor(1)).rejects.toThrow();
    const waiting = log.waitFor(1);
    await log.append([{ value: "b" }]);
    expect(await waiting).toBe(2);
    expect(log.status).toBe("open");
    await dir.close();
  });

  it("an iteration's first read is queued at its first next(), before the body loads: a call made after it comes after it", async () => {
    vi.resetModules(); // the body not loaded yet: its load (a real import()) runs inside that read
    const { LogDir } = await import(LOG_DIR);
    const dir = await LogDir.open(new SimStorage({ seed: 35 }));
    const log = await dir.log(NAME);
    await log.append([{ value: "a" }]);
    // From the end: the read at the call finds nothing (the end is 1), so the iteration is done.
    const atEnd = log.records({ from: 1 });
    const first = atEnd.next();
    const appended = log.append([{ value: "b" }]); // not awaited: queued after that read
    expect(await first).toEqual({ done: true, value: undefined });
    expect((await appended).baseOffset).toBe(1);
    // Each later read takes the end as it runs: an iteration started now reads the append.
    const offsets: number[] = [];
    for await (const record of log.records()) offsets.push(record.offset);
    expect(offsets).toEqual([0, 1]);
    const follower = log.records({ from: 2, follow: true });
    const waited = follower.next(); // the body is loaded now; the follower's part is not
    await log.append([{ value: "c" }]);
    expect((await waited).value?.offset).toBe(2);
    await follower.return();
    await dir.close();
  });
});
