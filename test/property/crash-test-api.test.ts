/**
 * `crashTest` from pagelog/testing: pagelog's own Log passes it, a small correct log written
 * from scratch passes it, and each classic mistake in that small log is caught with a seed
 * that replays it.
 *
 * Replay a failure with the command it prints: PAGELOG_SEED=<base seed> npx vitest run test/property/crash-test-api.test.ts
 */
import { describe, expect, it } from "vitest";
import { fileSeed } from "../support/seed.js";
import { size } from "../support/budget.js";
import { crc32c } from "../../src/format/index.js";
import type { Storage, StorageFile } from "../../src/storage/storage.js";
import { crashTest, CrashTestError, pagelogAdapter } from "../../src/testing.js";
import type { AdapterLog, CrashTestAdapter, CrashTestSummary } from "../../src/testing.js";

// One seed for the file, from PAGELOG_SEED (test/support/seed.ts); a failure prints its replay.
const { seed: SEED, replay } = fileSeed(import.meta.url);
const RUNS = size("crashTestRuns");

/** Runs crashTest and, on an unexpected violation, fails with the seed and the replay command. */
async function mustPass(adapter: CrashTestAdapter, schedules: number): Promise<CrashTestSummary> {
  try {
    return await crashTest(adapter, { seed: SEED, schedules });
  } catch (err) {
    if (err instanceof CrashTestError) throw new Error(`${err.message}\n\nWhole test (seed ${SEED}): ${replay}`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// A small log a reader might write for the chapter: one file of records
//   [u32 length][u32 crc32c(length bytes ++ value)][value]
// with switches that each put back one classic mistake.

interface Mistakes {
  /** flush() and close() never fsync: the page cache is trusted. */
  noFsync?: boolean;
  /** Recovery trusts every length that fits in the file, without checking the CRC. */
  noCrc?: boolean;
  /** The log file's directory entry is never fsynced after the file is created. */
  noDirSync?: boolean;
  /** Recovery truncates the torn tail in the page cache only, without an fsync before appending. */
  noDurableTruncate?: boolean;
}

const HEADER = 8; // u32 length + u32 crc
const FILE = "log.bin";

class SmallLog implements AdapterLog {
  #end: number;
  constructor(
    readonly file: StorageFile,
    readonly mistakes: Mistakes,
    readonly values: Uint8Array[],
    end: number,
  ) {
    this.#end = end;
  }

  static async open(storage: Storage, mistakes: Mistakes): Promise<SmallLog> {
    const existed = (await storage.stat(FILE)) !== null;
    const file = await storage.open(FILE, { create: true });
    if (!existed && !mistakes.noDirSync) await storage.syncDir("");
    const size = await file.size();
    const bytes = await file.read(0, size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const values: Uint8Array[] = [];
    let at = 0;
    while (at + HEADER <= size) {
      const length = view.getUint32(at);
      if (at + HEADER + length > size) break;
      if (
        !mistakes.noCrc &&
        view.getUint32(at + 4) !==
          checksum(bytes.subarray(at, at + 4), bytes.subarray(at + HEADER, at + HEADER + length))
      )
        break;
      values.push(bytes.slice(at + HEADER, at + HEADER + length));
      at += HEADER + length;
    }
    if (at < size) {
      await file.truncate(at);
      // Without this fsync the cut lives only in the page cache: a later crash can bring back the
      // old tail behind new records.
      if (!mistakes.noDurableTruncate) await file.sync();
    }
    return new SmallLog(file, mistakes, values, at);
  }

  async append(values: Uint8Array[]): Promise<void> {
    const size = values.reduce((n, v) => n + HEADER + v.length, 0);
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    let at = 0;
    for (const v of values) {
      view.setUint32(at, v.length);
      view.setUint32(at + 4, checksum(out.subarray(at, at + 4), v));
      out.set(v, at + HEADER);
      at += HEADER + v.length;
    }
    await this.file.write(this.#end, out);
    this.#end += size;
    this.values.push(...values);
  }

  async flush(): Promise<void> {
    if (!this.mistakes.noFsync) await this.file.sync();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.file.close();
  }

  async readAll(): Promise<Uint8Array[]> {
    return [...this.values];
  }
}

function checksum(lengthBytes: Uint8Array, value: Uint8Array): number {
  const both = new Uint8Array(lengthBytes.length + value.length);
  both.set(lengthBytes);
  both.set(value, lengthBytes.length);
  return crc32c(both);
}

function smallLog(mistakes: Mistakes): CrashTestAdapter {
  const name = Object.keys(mistakes).join("+") || "correct";
  return { name: `small log (${name})`, open: (storage) => SmallLog.open(storage, mistakes) };
}

describe("crashTest (pagelog/testing)", () => {
  it(`pagelog's Log passes ${RUNS} schedules (flush policy off)`, async () => {
    const summary = await mustPass(pagelogAdapter(), RUNS);
    console.log(
      `crashTest pagelog: seed ${SEED}, ${summary.schedules} schedules, ${summary.powerCuts} power cuts, ${summary.recordsRecovered} records recovered`,
    );
    expect(summary.violations).toEqual([]);
    expect(summary.powerCuts).toBeGreaterThanOrEqual(2 * RUNS);
  });

  it(`pagelog's Log passes ${Math.ceil(RUNS / 3)} schedules with flushMessages 1 and tiny segments`, async () => {
    const summary = await mustPass(
      pagelogAdapter({ flushMessages: 1, segmentBytes: 200, indexIntervalBytes: 0 }),
      Math.ceil(RUNS / 3),
    );
    expect(summary.violations).toEqual([]);
  });

  it(`pagelog's Log passes ${Math.ceil(RUNS / 3)} schedules with maxOpenFiles 2 (files evicted and reopened all the time)`, async () => {
    const summary = await mustPass(
      pagelogAdapter({ segmentBytes: 200, indexIntervalBytes: 0 }, { maxOpenFiles: 2 }),
      Math.ceil(RUNS / 3),
    );
    expect(summary.violations).toEqual([]);
  });

  it(`a small correct log written from scratch passes ${RUNS} schedules`, async () => {
    const summary = await mustPass(smallLog({}), RUNS);
    expect(summary.violations).toEqual([]);
  });

  it("replays: the same seed gives the same summary", async () => {
    const a = await crashTest(pagelogAdapter(), { seed: SEED, schedules: 5 });
    const b = await crashTest(pagelogAdapter(), { seed: SEED, schedules: 5 });
    expect(b).toEqual(a);
  });

  it("reports progress and validates its options", async () => {
    const seen: number[] = [];
    await crashTest(pagelogAdapter(), {
      seed: SEED,
      schedules: 3,
      maxOps: 5,
      onProgress: (p) => seen.push(p.schedules),
    });
    expect(seen).toEqual([1, 2, 3]);
    await expect(crashTest(pagelogAdapter(), { schedules: -1 })).rejects.toThrow(TypeError);
    await expect(crashTest({} as CrashTestAdapter)).rejects.toThrow(TypeError);
  });

  const broken: Array<[string, Mistakes]> = [
    ["flush and close never fsync", { noFsync: true }],
    ["recovery skips the CRC check", { noCrc: true }],
    ["the new file's directory entry is never fsynced", { noDirSync: true }],
    ["recovery's truncation is not made durable before appending", { noDurableTruncate: true }],
  ];
  for (const [what, mistakes] of broken) {
    it(`catches a naive log: ${what}`, async () => {
      const adapter = smallLog(mistakes);
      const summary = await crashTest(adapter, { seed: SEED, schedules: 20_000, throwOnViolation: false });
      const [violation] = summary.violations;
      expect(violation, `not caught in ${summary.schedules} schedules (seed ${SEED}): ${replay}`).toBeDefined();
      console.log(
        `crashTest caught "${what}" after ${summary.schedules} schedule(s); schedule seed ${violation!.seed}:\n${violation!.message.split("\n")[0]}`,
      );
      // The violation replays alone from its own seed.
      const again = await crashTest(adapter, { seed: violation!.seed, schedules: 1, throwOnViolation: false });
      expect(again.violations[0]?.message).toBe(violation!.message);
      // And by default it throws, with the seed and the replay call in the message.
      await expect(crashTest(adapter, { seed: violation!.seed, schedules: 1 })).rejects.toThrow(
        new RegExp(`seed: ${violation!.seed}, schedules: 1`),
      );
    });
  }
});
