/**
 * `LogOptions.policies`: a reader's four functions run in the real log's write, read, retention
 * and recovery paths. pagelog's own answers plugged in change nothing; each kind of nonsense
 * (a wrong answer, an answer out of range, a throw) is refused with PAGELOG_POLICY naming the
 * function, before a byte is written on it, and an open it refuses changes no byte.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { kafkaPolicies, recoverHelpers } from "../../../src/course.js";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { encodeBatch } from "../../../src/format/api.js";
import { LogDir } from "../../../src/log/log-dir.js";
import type { LogOptions } from "../../../src/log/options/log-options.js";
import type { CoursePolicies, IndexEntry } from "../../../src/policies/policy-types.js";
import { lookupByPolicy } from "../../../src/segment/policies/lookup-policy.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { concat } from "../../support/bytes.js";
import { seededRandom } from "../../../src/course/cases/case.js";
import { countByPolicy } from "../../../src/log/policies/retention-policy.js";
import { retentionDeleteCount as retentionCount } from "../../../src/log/policies/retention.js";
import { snapshotStorage } from "../../support/storage-snapshot.js";

const NAME = "t-0";
const SEGMENT = `${NAME}/00000000000000000000.log`;

function records(n: number, from = 0) {
  return Array.from({ length: n }, (_, i) => ({ key: `sensor-${from + i}`, value: `reading ${from + i}` }));
}

/** Rejects with PAGELOG_POLICY naming `policy`; returns the error. */
async function refused(promise: Promise<unknown>, policy: string): Promise<PagelogError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PagelogError);
  const e = err as PagelogError;
  expect(e.code).toBe(ErrorCode.POLICY);
  expect(e.policy?.policy).toBe(policy);
  expect(e.message).toMatch(new RegExp(`^your ${policy} `));
  return e;
}

/** A log directory on a fresh SimStorage, with every batch indexed (so lookups have entries). */
async function openLog(storage: SimStorage, options: LogOptions = {}) {
  const dir = await LogDir.open(storage);
  const log = await dir.log(NAME, { indexIntervalBytes: 0, ...options });
  return { dir, log };
}

/** A segment file of `batches` batches of 2 records, written straight to the storage (no checkpoints: recovery walks all of it). */
async function segmentFile(
  storage: SimStorage,
  batches: number,
  damage?: (bytes: Uint8Array, starts: number[]) => Uint8Array,
) {
  const parts = Array.from({ length: batches }, (_, i) =>
    encodeBatch(records(2, 2 * i), { baseOffset: 2 * i, timestamp: 1_700_000_000_000 + i }),
  );
  const starts = parts.map((_, i) => parts.slice(0, i).reduce((n, b) => n + b.length, 0));
  let bytes = concat(parts);
  if (damage !== undefined) bytes = damage(bytes, starts);
  await storage.mkdir(NAME);
  const file = await storage.open(SEGMENT, { create: true });
  await file.write(0, bytes);
  await file.sync();
  await file.close();
  await storage.syncDir(NAME);
  await storage.syncDir("");
  return { bytes, starts };
}

describe("LogOptions.policies: options", () => {
  it("rejects what is not a policies object, an unknown name or a non-function as a TypeError", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    await expect(dir.log(NAME, { policies: 5 as never })).rejects.toThrow(TypeError);
    await expect(dir.log(NAME, { policies: { recover: 1 } as never })).rejects.toThrow(
      /policies\.recover must be a function/,
    );
    await expect(dir.log(NAME, { policies: { recovr() {} } as never })).rejects.toThrow(/unknown policy "recovr"/);
    const log = await dir.log(NAME, { policies: {} });
    expect(log.options.policies).toBeUndefined(); // nothing given: the default paths
    await dir.close();
  });

  it("takes a module namespace with other exports, a default object, or a class instance", async () => {
    const fixture = (name: string) => import(/* @vite-ignore */ `../../fixtures/policies/${name}`);
    class Mine {
      recover = undefined;
      lookup(index: readonly { offset: number; position: number }[], target: number) {
        return kafkaPolicies.lookup(index, target);
      }
    }
    const cases: Array<[unknown, string[]]> = [
      [await fixture("with-extras.mjs"), ["recover"]],
      [await fixture("default-object.mjs"), ["lookup", "recover"]],
      [await fixture("retention-deletes-active.cjs"), ["segmentsToDelete"]],
      [new Mine(), ["lookup"]],
    ];
    for (const [policies, names] of cases) {
      const dir = await LogDir.open(new SimStorage({ seed: 1 }));
      const log = await dir.log(NAME, { policies: policies as never });
      expect(Object.keys(log.options.policies ?? {})).toEqual(names);
      await dir.close();
    }
  });
});

describe("LogOptions.policies: pagelog's own answers plugged in change nothing", () => {
  it("writes the same bytes, reads the same records, recovers the same and deletes the same segments", async () => {
    const run = async (policies?: Partial<CoursePolicies>) => {
      const storage = new SimStorage({ seed: 9 });
      let now = 1_700_000_000_000;
      const clock = { now: () => now };
      const options: LogOptions = { segmentBytes: 400, retentionBytes: 900, clock, ...(policies ? { policies } : {}) };
      const { dir, log } = await openLog(storage, options);
      for (let i = 0; i < 12; i++) {
        await log.append(records(1 + (i % 3), i * 3));
        now += 1000;
      }
      await log.flush();
      const read = [];
      for (let offset = log.startOffset; offset < log.endOffset; offset += 2)
        read.push((await log.read(offset, { maxRecords: 1 })).map((r) => [r.offset, r.value]));
      const ends = [log.startOffset, log.endOffset, log.segmentBaseOffsets.join(",")];
      await log.append(records(2, 99));
      const crashed = storage.crash();
      const again = await openLog(crashed, options);
      const after = [again.log.endOffset, again.log.recovery.bytesTruncated];
      const files = await snapshotStorage(crashed);
      await again.dir.close();
      await dir.close().catch(() => undefined);
      return { read, ends, after, files };
    };
    expect(await run(kafkaPolicies)).toEqual(await run());
  });
});

describe("LogOptions.policies.lookup", () => {
  async function logWithBatches(policies: Partial<CoursePolicies>) {
    const storage = new SimStorage({ seed: 2 });
    const { dir, log } = await openLog(storage, { policies });
    for (let i = 0; i < 10; i++) await log.append(records(3, 3 * i)); // batches at offsets 0, 3, 6, …
    return { dir, log };
  }

  it("a wrong answer (the first entry above the target) fails the read, naming lookup", async () => {
    const firstAbove: CoursePolicies["lookup"] = (index, target) => index.find((e) => e.offset > target) ?? null;
    const { dir, log } = await logWithBatches({ lookup: firstAbove });
    const err = await refused(log.read(4), "lookup");
    expect(err.message).toMatch(/for target 4/);
    expect(err.policy?.returned).toEqual({ offset: 5, position: expect.any(Number) });
    await dir.close();
  });

  it("an entry that is not in the index, a non-object and a throw are refused", async () => {
    for (const [lookup, pattern] of [
      [() => ({ offset: 2, position: 7 }), /not an entry of the index/],
      [() => 3, /expected an entry of the index or null/],
      [() => undefined, /expected an entry of the index or null/],
      [
        () => {
          throw new Error("oops");
        },
        /threw Error: oops/,
      ],
    ] as const) {
      const { dir, log } = await logWithBatches({ lookup: lookup as never });
      const err = await refused(log.read(10), "lookup");
      expect(err.message).toMatch(pattern);
      await dir.close();
    }
  });

  it("counts the index's entries in the reader's words: 1 entry, 2 entries", () => {
    const source = (entries: IndexEntry[]) => ({
      file: { path: SEGMENT },
      policyEntries: () => entries,
      slotOf: (offset: number) => entries.findIndex((e) => e.offset === offset),
    });
    const notInIndex = () => ({ offset: 99, position: 0 });
    const one = [{ offset: 2, position: 0 }];
    const two = [...one, { offset: 5, position: 90 }];
    expect(() => lookupByPolicy(notInIndex, source(one), 3)).toThrow(/not an entry of the index \(1 entry\)/);
    expect(() => lookupByPolicy(notInIndex, source(two), 3)).toThrow(/not an entry of the index \(2 entries\)/);
  });

  it("a right but slower answer (an earlier entry, or null) still reads the right records", async () => {
    for (const lookup of [
      (index: readonly { offset: number; position: number }[]) => index[0] ?? null,
      () => null,
      kafkaPolicies.lookup,
    ]) {
      const { dir, log } = await logWithBatches({ lookup });
      const got = await log.read(17, { maxRecords: 2 });
      expect(got.map((r) => r.offset)).toEqual([17, 18]);
      await dir.close();
    }
  });

  it("sees the index as the course's array: entries of batch last offsets and start positions", async () => {
    let seen: readonly { offset: number; position: number }[] = [];
    const spy: CoursePolicies["lookup"] = (index, target) => {
      seen = index;
      return kafkaPolicies.lookup(index, target);
    };
    const { dir, log } = await logWithBatches({ lookup: spy });
    await log.read(0);
    // Kafka's sparse rule: an entry for a batch once more than indexIntervalBytes (0 here) were
    // written since the last one, so every batch but the first.
    expect(seen.map((e) => e.offset)).toEqual([5, 8, 11, 14, 17, 20, 23, 26, 29]);
    expect(seen[0]!.position).toBeGreaterThan(0);
    expect(Object.isFrozen(seen)).toBe(true);
    await dir.close();
  });
});

describe("LogOptions.policies.recover", () => {
  /** test/fixtures/policies' typical wrong answer: trusts each length, never the CRC. */
  let noCrc: CoursePolicies["recover"];
  beforeAll(async () => {
    const path = "../../fixtures/policies/recover-no-crc.mjs";
    ({ recover: noCrc } = (await import(/* @vite-ignore */ path)) as CoursePolicies);
  });
  /** Flips a byte inside the last batch's records: its CRC no longer matches. */
  const flipLast = (bytes: Uint8Array, starts: number[]) => {
    bytes[starts[starts.length - 1]! + 70]! ^= 0xff;
    return bytes;
  };

  it("one that keeps a batch with a bad CRC fails the open with where reading breaks, and changes no byte", async () => {
    const storage = new SimStorage({ seed: 3 });
    const { starts } = await segmentFile(storage, 4, flipLast);
    const dir = await LogDir.open(storage);
    const before = await snapshotStorage(storage);
    const err = await refused(dir.log(NAME, { policies: { recover: noCrc } }), "recover");
    expect(err.policy?.breaksAt).toBe(starts[3]);
    expect(err.policy?.returned).toBe((await storage.stat(SEGMENT))!.size);
    expect(err.message).toMatch(new RegExp(`reading breaks at position ${starts[3]}: .*CRC`));
    expect(await snapshotStorage(storage)).toEqual(before);
    await dir.close();
    // pagelog's own recover opens the same files, cutting the damaged batch.
    const dir2 = await LogDir.open(storage);
    const log = await dir2.log(NAME, { policies: { recover: kafkaPolicies.recover } });
    expect(log.endOffset).toBe(6);
    await dir2.close();
  });

  it("the course's rule (length and CRC, no magic check) keeps a CRC-valid batch with magic 1: the log cuts where its own walk does", async () => {
    const path = "../../fixtures/policies/course-reference-recover.mjs";
    const { recover } = (await import(/* @vite-ignore */ path)) as CoursePolicies;
    const storage = new SimStorage({ seed: 8 });
    // Magic 1 in the third batch: the CRC (from byte 21 on) does not cover it, so it still matches.
    const { bytes, starts } = await segmentFile(storage, 4, (b, s) => ((b[s[2]! + 16] = 1), b));
    expect(recover(bytes, recoverHelpers(bytes))).toBe(bytes.length);
    const dir = await LogDir.open(storage);
    const log = await dir.log(NAME, { policies: { recover } });
    expect(log.endOffset).toBe(4);
    expect((await storage.stat(SEGMENT))!.size).toBe(starts[2]);
    await dir.close();
  });

  it("the course's recover walks into a zeroed tail and stops there (crcMatches answers false)", async () => {
    const path = "../../fixtures/policies/course-reference-recover.mjs";
    const { recover } = (await import(/* @vite-ignore */ path)) as CoursePolicies;
    const storage = new SimStorage({ seed: 9 });
    const { bytes } = await segmentFile(storage, 3, (b) => concat([b, new Uint8Array(300)]));
    const dir = await LogDir.open(storage);
    const log = await dir.log(NAME, { policies: { recover } });
    expect(log.endOffset).toBe(6);
    expect((await storage.stat(SEGMENT))!.size).toBe(bytes.length - 300);
    await dir.close();
  });

  it("an answer past the end, negative, fractional or not a number, and a throw, are refused", async () => {
    for (const [recover, pattern] of [
      [(log: Uint8Array) => log.length + 1, /expected a whole number of bytes from 0 to/],
      [() => -1, /expected a whole number/],
      [() => 1.5, /expected a whole number/],
      [() => "12", /returned "12"/],
      [
        (log: Uint8Array, h: { readInt32(l: Uint8Array, p: number): number }) => h.readInt32(log, log.length),
        /threw RangeError/,
      ],
    ] as const) {
      const storage = new SimStorage({ seed: 4 });
      await segmentFile(storage, 3);
      const dir = await LogDir.open(storage);
      const before = await snapshotStorage(storage);
      const err = await refused(dir.log(NAME, { policies: { recover: recover as never } }), "recover");
      expect(err.message).toMatch(pattern);
      expect(await snapshotStorage(storage)).toEqual(before);
      await dir.close();
    }
  });

  it("an answer inside a batch is refused; so is one at an earlier batch boundary: it cuts whole, valid batches", async () => {
    const batches = 5;
    const storage = new SimStorage({ seed: 5 });
    const { starts } = await segmentFile(storage, batches);
    const dir = await LogDir.open(storage);
    const before = await snapshotStorage(storage);
    const inside = starts[1]! + 3;
    const err = await refused(dir.log(NAME, { policies: { recover: () => inside } }), "recover");
    expect(err.message).toMatch(new RegExp(`inside the batch that starts at ${starts[1]}`));
    // Every batch start below the end: each cuts whole batches whose CRC matches, which any
    // recover following the course's rule keeps.
    for (const [i, at] of starts.entries()) {
      const cut = await refused(dir.log(NAME, { policies: { recover: () => at } }), "recover");
      expect(cut.message).toMatch(
        new RegExp(
          `^your recover kept ${at} bytes of ${SEGMENT}, but bytes ${at} to \\d+ are whole batches whose CRC matches \\(offsets ${2 * i}-${2 * batches - 1}\\)`,
        ),
      );
      expect(cut.policy?.returned).toBe(at);
    }
    expect(await snapshotStorage(storage)).toEqual(before); // refused: no byte changed
    await dir.close();
  });

  for (const checkpointIntervalMs of [0, undefined]) {
    it(`a cut of flushed batches is refused, whether or not the checkpoint holds the flush (checkpointIntervalMs ${String(checkpointIntervalMs)})`, async () => {
      const storage = new SimStorage({ seed: 6 });
      const dir = await LogDir.open(storage, checkpointIntervalMs === undefined ? {} : { checkpointIntervalMs });
      const log = await dir.log(NAME);
      await log.append(records(3));
      await log.append(records(2, 3));
      await log.flush(); // durable: a power cut cannot take offsets 0-4
      const crashed = storage.crash();
      const dir2 = await LogDir.open(crashed);
      const err = await refused(dir2.log(NAME, { policies: { recover: () => 0 } }), "recover");
      expect(err.message).toMatch(/whole batches whose CRC matches \(offsets 0-4\)/);
      if (checkpointIntervalMs === 0)
        expect(err.message).toMatch(/flushed ones among them \(below the recovery point 5\)/);
      const own = await dir2.log(NAME); // pagelog's own recover keeps them all
      expect(own.endOffset).toBe(5);
      await dir2.close();
    });
  }
});

describe("the course's reference segmentsToDelete in the Log's retention", () => {
  it("is always accepted: it never deletes more than the limits allow (2,000 random segment lists)", async () => {
    const path = "../../fixtures/policies/course-reference-retention.mjs";
    const { segmentsToDelete } = (await import(/* @vite-ignore */ path)) as CoursePolicies;
    const random = seededRandom(33);
    const now = 1_700_000_000_000;
    for (let i = 0; i < 2000; i++) {
      const segments = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, n) => ({
        baseOffset: n * 10,
        size: Math.floor(random() * 300),
        maxTimestamp: random() < 0.1 ? -1 : now - Math.floor(random() * 10_000),
      }));
      const limits = {
        now,
        retentionMs: random() < 0.3 ? -1 : Math.floor(random() * 10_000),
        retentionBytes: random() < 0.3 ? -1 : Math.floor(random() * 1000),
      };
      const count = countByPolicy(segmentsToDelete, segments, limits);
      expect(count, JSON.stringify({ segments, limits })).toBeLessThanOrEqual(retentionCount(segments, limits));
    }
  });
});

describe("LogOptions.policies.segmentsToDelete", () => {
  async function logWithSegments(policy: CoursePolicies["segmentsToDelete"]) {
    const storage = new SimStorage({ seed: 7 });
    const { dir, log } = await openLog(storage, {
      segmentBytes: 200,
      retentionBytes: 1,
      policies: { segmentsToDelete: policy },
    });
    return { dir, log };
  }

  it("deleting the active segment, a negative count or more than the limits allow is refused", async () => {
    for (const [policy, pattern] of [
      [(segments: readonly unknown[]) => segments.length, /the active \(last\) segment/],
      [() => -1, /a whole number from 0/],
      [() => Number.NaN, /a whole number from 0/],
    ] as const) {
      const { dir, log } = await logWithSegments(policy);
      await log.append(records(3)); // first segment; retention runs after each roll
      const err = await refused(log.append(records(3, 3)), "segmentsToDelete");
      expect(err.message).toMatch(pattern);
      // The append that rolled failed alone (nothing of it written); the log is open and whole.
      expect(log.status).toBe("open");
      expect(log.endOffset).toBe(3);
      await log.append(records(3, 3));
      expect(log.endOffset).toBe(6);
      await dir.close();
    }
    // More than allowed: with retention.bytes off and an old limit nobody passes, nothing may go.
    const storage = new SimStorage({ seed: 8 });
    const dir = await LogDir.open(storage);
    const log = await dir.log(NAME, {
      segmentBytes: 200,
      retentionMs: 1_000_000_000,
      policies: { segmentsToDelete: (segments) => segments.length - 1 },
    });
    await log.append(records(3));
    await log.append(records(3, 3)).catch(() => undefined);
    const err = await refused(log.applyRetention(), "segmentsToDelete");
    expect(err.message).toMatch(/only the first 0 may go .*: segment 0 stays, and only a prefix goes/);
    expect(log.startOffset).toBe(0);
    expect(log.status).toBe("open"); // the refusal changed nothing: the log goes on
    await log.append(records(1, 100));
    await dir.close();
  });

  it("deleting fewer than allowed keeps more; pagelog's rule deletes the oldest", async () => {
    const { dir, log } = await logWithSegments(() => 0);
    for (let i = 0; i < 4; i++) await log.append(records(3, 3 * i));
    expect(log.startOffset).toBe(0);
    await dir.close();
    const kafka = await logWithSegments(kafkaPolicies.segmentsToDelete);
    for (let i = 0; i < 4; i++) await kafka.log.append(records(3, 3 * i));
    expect(kafka.log.startOffset).toBeGreaterThan(0);
    await kafka.dir.close();
  });
});

describe("LogOptions.policies.writeVarint", () => {
  it("a varint without zigzag fails the append, naming writeVarint; nothing is appended", async () => {
    const noZigzag: CoursePolicies["writeVarint"] = (value) => {
      const out: number[] = [];
      let v = value >>> 0;
      while (v >= 0x80) {
        out.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.push(v);
      return out;
    };
    const storage = new SimStorage({ seed: 10 });
    const { dir, log } = await openLog(storage, { policies: { writeVarint: noZigzag } });
    const err = await refused(log.append(records(2)), "writeVarint");
    expect(err.message).toMatch(/reads back as/);
    expect(log.endOffset).toBe(0);
    expect((await storage.stat(SEGMENT))!.size).toBe(0);
    expect(log.status).toBe("open"); // a bad append fails alone
    await dir.close();
  });

  it("returning something that is not bytes, or throwing, fails the append", async () => {
    for (const [writeVarint, pattern] of [
      [() => "x", /returned "x"; Kafka's bytes are \[\d+\]/],
      [() => [300], /returned \[300\]; Kafka's bytes are \[\d+\]/],
      [
        () => {
          throw new TypeError("nope");
        },
        /threw TypeError: nope/,
      ],
    ] as const) {
      const { dir, log } = await openLog(new SimStorage({ seed: 11 }), {
        policies: { writeVarint: writeVarint as never },
      });
      const err = await refused(log.append(records(1)), "writeVarint");
      expect(err.message).toMatch(pattern);
      await dir.close();
    }
  });

  it("takes the bytes as a Uint8Array too (as pagelog check does)", async () => {
    const asBytes: CoursePolicies["writeVarint"] = (value) =>
      Uint8Array.from(kafkaPolicies.writeVarint(value)) as never;
    const { dir, log } = await openLog(new SimStorage({ seed: 13 }), { policies: { writeVarint: asBytes } });
    await log.append(records(2));
    expect(log.endOffset).toBe(2);
    await dir.close();
  });

  it("is asked for every varint of every record, keys, values and headers included", async () => {
    const asked: number[] = [];
    const spy: CoursePolicies["writeVarint"] = (value) => {
      asked.push(value);
      return kafkaPolicies.writeVarint(value);
    };
    const { dir, log } = await openLog(new SimStorage({ seed: 12 }), { policies: { writeVarint: spy } });
    await log.append([{ key: "k", value: "vv", headers: [{ key: "h", value: "x" }] }]);
    // length, timestamp delta, offset delta, key length, value length, header count, header key length, header value length
    expect(asked.slice(1)).toEqual([0, 0, 1, 2, 1, 1, 1]);
    expect((await log.read(0))[0]!.headers).toHaveLength(1);
    await dir.close();
  });
});
