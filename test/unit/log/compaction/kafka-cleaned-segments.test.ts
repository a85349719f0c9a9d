/**
 * Segments as Kafka's log cleaner leaves them (issue 34, item 4): Kafka names a cleaned segment
 * after the first segment of its group and drops a batch left without records, so the cleaned
 * segment's first batch may start past the offset its name says ("a base offset <= the least
 * offset of any message in this segment", LogSegment). pagelog accepts that below the clean point
 * of `cleaner-offset-checkpoint`, where gaps are legal, on every path that meets the segment: a
 * clean open's first use of an idle segment, a read-only open, a recovery walk, `pagelog verify`,
 * and its own cleaner re-cleaning such a segment. Everything else stays PAGELOG_CORRUPT: the same
 * segment without a clean point that covers it, a first batch below the base, offsets going
 * backwards, a batch past the next segment's base, and (the recovery walk's garbage check) a
 * first batch past the base of a segment above the clean point, which a recovery cuts.
 *
 * The directories are hand-made in a SimStorage, byte for byte what the broker writes: batches
 * encoded at the offsets the cleaner kept, empty `.index` and `.timeindex` files (a small
 * segment's, as the broker leaves them), Kafka's checkpoints in the root.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { encodeBatch } from "../../../../src/format/api.js";
import { verifyDir } from "../../../../src/inspect/verify-dir.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { offsetName } from "../../../../src/segment/segment-names.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, expectCode, plain, readAll, writeFile, type PlainRecord } from "../helpers.js";

/** A batch as [first offset, record count]; a segment as its base and batches. */
type Batches = ReadonlyArray<readonly [first: number, count: number]>;
interface HandMade {
  segments: ReadonlyArray<{ base: number; batches: Batches }>;
  /** The partition's clean point in `cleaner-offset-checkpoint`; undefined: no such file. */
  cleanPoint?: number | undefined;
  /** A clean shutdown (the marker), else a crash with this recovery point checkpointed. */
  recoveryPoint?: number | undefined;
  /** Keys by offset (default `k<offset>`). */
  key?: (offset: number) => string;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const record = (offset: number, key: (o: number) => string): PlainRecord => ({
  offset,
  timestamp: 1000 + offset,
  key: key(offset),
  value: `v${offset}`,
  headers: [],
});

/** Writes the directory; returns the storage and every record it holds, in offset order. */
async function handMade(spec: HandMade): Promise<{ sim: SimStorage; records: PlainRecord[] }> {
  const key = spec.key ?? ((o: number) => `k${o}`);
  const sim = new SimStorage({ seed: 7 });
  await sim.mkdir(NAME);
  const records: PlainRecord[] = [];
  for (const { base, batches } of spec.segments) {
    const bytes = batches.map(([first, count]) => {
      const these = Array.from({ length: count }, (_, i) => record(first + i, key));
      records.push(...these);
      return encodeBatch(
        these.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp })),
        { baseOffset: first },
      );
    });
    const log = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
    bytes.reduce((at, b) => (log.set(b, at), at + b.length), 0);
    const stem = `${NAME}/${offsetName(base)}`;
    await writeFile(sim, `${stem}.log`, 0, log, { create: true, sync: true });
    for (const index of [".index", ".timeindex"])
      await writeFile(sim, stem + index, 0, new Uint8Array(0), { create: true, sync: true });
  }
  const checkpoint = (offset: number) => text(`0\n1\n${NAME.replace(/-0$/, "")} 0 ${offset}\n`);
  if (spec.cleanPoint !== undefined)
    await writeFile(sim, "cleaner-offset-checkpoint", 0, checkpoint(spec.cleanPoint), { create: true, sync: true });
  const end = spec.segments.at(-1)!.batches.reduce((e, [first, count]) => Math.max(e, first + count), 0);
  await writeFile(sim, "recovery-point-offset-checkpoint", 0, checkpoint(spec.recoveryPoint ?? end), {
    create: true,
    sync: true,
  });
  if (spec.recoveryPoint === undefined)
    await writeFile(sim, ".kafka_cleanshutdown", 0, text('{"version":0,"brokerEpoch":1}'), {
      create: true,
      sync: true,
    });
  await sim.syncDir(NAME);
  await sim.syncDir("");
  return { sim, records };
}

/** Opens the log (read-only or not), runs `use`, closes. */
async function withLog<T>(sim: SimStorage, readOnly: boolean, use: (log: Log) => Promise<T>): Promise<T> {
  const dir = await LogDir.open(sim, { readOnly });
  try {
    return await use(await dir.log(NAME));
  } finally {
    await dir.close();
  }
}

/** Segment 0 as Kafka's cleaner left it: the records at 0..4 dropped, its first batch at 5. */
const CLEANED: HandMade["segments"] = [
  {
    base: 0,
    batches: [
      [5, 2],
      [7, 1],
    ],
  },
  {
    base: 8,
    batches: [
      [8, 1],
      [9, 2],
    ],
  },
];

describe("a segment Kafka's cleaner left starting past its base offset", () => {
  it("below the clean point: a clean open, a read-only open and a recovery walk read it; verify finds it clean", async () => {
    for (const readOnly of [false, true]) {
      const { sim, records } = await handMade({ segments: CLEANED, cleanPoint: 8 });
      // The first use of the idle segment 0 (a clean open leaves it idle) checks it.
      expect(await withLog(sim, readOnly, readAll), `readOnly ${readOnly}`).toEqual(records);
      // A read at the base, where the cleaner dropped the records: from the first one kept.
      const read = await withLog(sim, readOnly, async (log) => (await log.read(0)).map(plain));
      expect(read.length).toBeGreaterThan(0);
      expect(read).toEqual(records.slice(0, read.length));
    }
    // After a crash with the recovery point at 7, the recovery walk goes through segment 0 (which
    // must then hold every offset below 7).
    const crashed = await handMade({ segments: CLEANED, cleanPoint: 8, recoveryPoint: 7 });
    const recovery = await withLog(crashed.sim, false, async (log) => {
      expect(await readAll(log)).toEqual(crashed.records);
      return log.recovery;
    });
    expect(recovery.bytesTruncated).toBe(0);
    expect(recovery.segmentsScanned).toBe(2);
    const { sim } = await handMade({ segments: CLEANED, cleanPoint: 8 });
    expect((await verifyDir(sim, undefined)).problems).toEqual([]);
  });

  it("without a clean point that covers it, it is PAGELOG_CORRUPT on every path, and verify reports it", async () => {
    // A clean point at 6 still leaves the batch 5..6 partly in the dirty part: no gap before it.
    for (const cleanPoint of [undefined, 0, 5, 6]) {
      for (const readOnly of [false, true]) {
        const { sim } = await handMade({ segments: CLEANED, cleanPoint });
        const err = await expectCode(() => withLog(sim, readOnly, readAll), ErrorCode.CORRUPT);
        expect(err.message).toContain("first batch starts at 5");
      }
      const crashed = await handMade({ segments: CLEANED, recoveryPoint: 7, cleanPoint });
      await expectCode(() => withLog(crashed.sim, false, readAll), ErrorCode.CORRUPT);
      const { sim } = await handMade({ segments: CLEANED, cleanPoint });
      expect((await verifyDir(sim, undefined)).problems.map((p) => p.problem)).toContain(
        "first batch starts at offset 5, the segment's base offset is 0",
      );
    }
  });

  it("a first batch below the base, offsets going backwards, a batch past the next segment's base: PAGELOG_CORRUPT", async () => {
    const damaged: Array<[what: string, segments: HandMade["segments"]]> = [
      [
        "below the base",
        [
          { base: 3, batches: [[2, 2]] },
          { base: 4, batches: [[4, 1]] },
        ],
      ],
      [
        "backwards",
        [
          {
            base: 0,
            batches: [
              [5, 2],
              [3, 1],
            ],
          },
          { base: 8, batches: [[8, 1]] },
        ],
      ],
      [
        "past the next segment's base",
        [
          {
            base: 0,
            batches: [
              [5, 2],
              [8, 1],
            ],
          },
          { base: 8, batches: [[8, 1]] },
        ],
      ],
    ];
    for (const [what, segments] of damaged) {
      for (const readOnly of [false, true]) {
        const { sim } = await handMade({ segments, cleanPoint: 8 });
        await expectCode(() => withLog(sim, readOnly, readAll), ErrorCode.CORRUPT);
      }
      // After a crash whose recovery point vouches for the first segment whole.
      const crashed = await handMade({ segments, cleanPoint: 8, recoveryPoint: segments.at(-1)!.base });
      await expectCode(() => withLog(crashed.sim, false, readAll), ErrorCode.CORRUPT);
      const { sim } = await handMade({ segments, cleanPoint: 8 });
      expect((await verifyDir(sim, undefined)).problems.length, what).toBeGreaterThan(0);
    }
  });

  it("above the clean point a first batch past the base is still garbage: a recovery walk cuts it, a clean open refuses it", async () => {
    // Segment 8 starts at 9 but the clean point is 8: not a cleaner's gap. After a crash whose
    // recovery point is 8, the walk of segment 8 ends at its byte 0, as at any stale batch.
    const segments = [CLEANED[0]!, { base: 8, batches: [[9, 2]] as Batches }];
    const crashed = await handMade({ segments, cleanPoint: 8, recoveryPoint: 8 });
    const { read, recovery, end } = await withLog(crashed.sim, false, async (log) => ({
      read: await readAll(log),
      recovery: log.recovery,
      end: log.endOffset,
    }));
    expect(read.map((r) => r.offset)).toEqual([5, 6, 7]);
    expect(end).toBe(8);
    expect(recovery.bytesTruncated).toBeGreaterThan(0);
    const clean = await handMade({ segments, cleanPoint: 8 });
    const err = await expectCode(() => withLog(clean.sim, false, readAll), ErrorCode.CORRUPT);
    expect(err.message).toContain("first batch starts at 9");
    await expectCode(() => withLog(clean.sim, true, readAll), ErrorCode.CORRUPT);
    expect((await verifyDir(clean.sim, undefined)).problems.map((p) => p.problem)).toContain(
      "first batch starts at offset 9, the segment's base offset is 8",
    );
  });

  it("pagelog's own cleaner cleans such a segment again: its cleaned segment starts where the first batch does", async () => {
    const key = (o: number): string => `k${o % 4}`;
    const { sim, records } = await handMade({ segments: CLEANED, cleanPoint: 8, key });
    const options = {
      cleanupPolicy: "compact",
      backgroundCleaning: false,
      minCleanableDirtyRatio: 0,
      segmentBytes: 200,
    } as const;
    const dir = await LogDir.open(sim);
    const log = await dir.log(NAME, options);
    const appended: PlainRecord[] = [];
    for (let o = log.endOffset; o < 20; o++) {
      await log.append([{ key: key(o), value: `v${o}`, timestamp: 1000 + o }]);
      appended.push(record(o, key));
    }
    await log.flush();
    const { segmentsCleaned } = await log.compact();
    expect(segmentsCleaned).toBeGreaterThan(0);
    const cleaned = await readAll(log);
    await dir.close();
    // The latest record of each key in the cleaned part, then everything after it.
    const all = [...records, ...appended];
    const latest = new Map(all.map((r) => [r.key, r.offset]));
    expect(cleaned.length).toBeLessThan(all.length);
    for (const r of cleaned) if (r.offset < 8) expect(latest.get(r.key), `offset ${r.offset}`).toBe(r.offset);
    const again = await LogDir.open(sim, { readOnly: true });
    expect(await readAll(await again.log(NAME))).toEqual(cleaned);
    await again.close();
    expect((await verifyDir(sim, undefined)).problems).toEqual([]);
  });
});

/**
 * Kafka's cleaner also drops a cleaned segment's LAST batches (their keys recur later), so the
 * next segment starts past its end: segment 0 ends at 6, segment 10 starts at 10, offsets 7..9 are
 * gone. Segment 13 is the active one, above the clean point.
 */
const GAP: HandMade["segments"] = [
  {
    base: 0,
    batches: [
      [2, 3],
      [5, 2],
    ],
  },
  {
    base: 10,
    batches: [
      [10, 2],
      [12, 1],
    ],
  },
  { base: 13, batches: [[13, 2]] },
];

/** The same gap, segment 0 whole up to it: refused for the gap alone. */
const GAP_AT_END: HandMade["segments"] = [
  {
    base: 0,
    batches: [
      [0, 5],
      [5, 2],
    ],
  },
  ...GAP.slice(1),
];

describe("a gap between segments Kafka's cleaner left (the next segment starts past the previous one's end)", () => {
  // The clean point at the next segment's base (it was the first dirty one) or past it.
  const LEGAL = [
    [GAP, 10],
    [GAP, 13],
    [GAP_AT_END, 10],
  ] as const;

  /** Opens each legal directory (crashed with `recoveryPoint`, else clean) and reads it all, and inside the gap. */
  async function readsAcross(readOnly: boolean, recoveryPoint?: number): Promise<void> {
    for (const [segments, cleanPoint] of LEGAL) {
      const what = `clean point ${cleanPoint}, recovery point ${recoveryPoint}, readOnly ${readOnly}`;
      const { sim, records } = await handMade({ segments, cleanPoint, recoveryPoint });
      const { read, recovery } = await withLog(sim, readOnly, async (log) => ({
        read: await readAll(log),
        recovery: log.recovery,
      }));
      expect(read, what).toEqual(records);
      expect(recovery.bytesTruncated, what).toBe(0);
      expect(recovery.segmentsDeleted, what).toBe(0);
      // A read inside the gap yields the next record kept, as Kafka's fetch does.
      for (const at of [7, 9]) {
        const first = await withLog(sim, readOnly, async (log) => (await log.read(at)).map(plain)[0]);
        expect(first, `${what}: read(${at})`).toEqual(records.find((r) => r.offset === 10));
      }
    }
  }

  it("wholly below the clean point: a clean open's first use of the idle segment reads across it", async () => {
    await readsAcross(false);
  });

  it("wholly below the clean point: a read-only open reads across it, idle or walked", async () => {
    await readsAcross(true);
    // A broker that crashed: the read-only open walks from the recovery point, through the gap.
    for (const recoveryPoint of [3, 8]) await readsAcross(true, recoveryPoint);
  });

  it("wholly below the clean point: a crash open keeps it, the recovery point before, inside, at the end of or past it", async () => {
    for (const recoveryPoint of [3, 8, 10, 13]) await readsAcross(false, recoveryPoint);
  });

  it("wholly below the clean point: verify finds it clean", async () => {
    for (const [segments, cleanPoint] of LEGAL) {
      const { sim } = await handMade({ segments, cleanPoint });
      expect((await verifyDir(sim, undefined)).problems, `clean point ${cleanPoint}`).toEqual([]);
    }
  });

  it("not wholly below the clean point: refused below the recovery point, deleted above it after a crash, reported by verify", async () => {
    // No clean point, one at or before the gap's start, one inside it.
    for (const cleanPoint of [undefined, 0, 7, 9]) {
      for (const readOnly of [false, true]) {
        const { sim } = await handMade({ segments: GAP_AT_END, cleanPoint });
        const err = await expectCode(() => withLog(sim, readOnly, readAll), ErrorCode.CORRUPT);
        expect(err.message).toContain("records are missing before it");
      }
      // A crash whose recovery point vouches for both sides: lost flushed records.
      const below = await handMade({ segments: GAP_AT_END, cleanPoint, recoveryPoint: 13 });
      const err = await expectCode(() => withLog(below.sim, false, readAll), ErrorCode.CORRUPT);
      expect(err.message).toContain("does not continue the previous one");
      // A crash whose recovery point lies before the gap: what follows it is a crash's remains.
      const above = await handMade({ segments: GAP_AT_END, cleanPoint, recoveryPoint: 5 });
      const { read, recovery, end } = await withLog(above.sim, false, async (log) => ({
        read: await readAll(log),
        recovery: log.recovery,
        end: log.endOffset,
      }));
      expect(read).toEqual(above.records.filter((r) => r.offset < 7));
      expect(end).toBe(7);
      expect(recovery.segmentsDeletedAfterGap).toBe(2);
      const { sim } = await handMade({ segments: GAP_AT_END, cleanPoint });
      expect((await verifyDir(sim, undefined)).problems.map((p) => p.problem)).toContain(
        "segment starts at offset 10, the previous segment ended at 6",
      );
    }
  });

  it("pagelog's own cleaner cleans across it again: the latest record of each key survives", async () => {
    const key = (o: number): string => `k${o % 4}`;
    const { sim, records } = await handMade({ segments: GAP, cleanPoint: 13, key });
    const dir = await LogDir.open(sim);
    const log = await dir.log(NAME, {
      cleanupPolicy: "compact",
      backgroundCleaning: false,
      minCleanableDirtyRatio: 0,
      segmentBytes: 200,
    });
    for (let o = log.endOffset; o < 30; o++) await log.append([{ key: key(o), value: `v${o}`, timestamp: 1000 + o }]);
    await log.flush();
    const { segmentsCleaned, cleanPoint } = await log.compact();
    expect(segmentsCleaned).toBeGreaterThan(0);
    const cleaned = await readAll(log);
    await dir.close();
    // Below the new clean point only each key's latest record; from it on, every record.
    const offsets = [...records.map((r) => r.offset), ...Array.from({ length: 30 - 15 }, (_, i) => 15 + i)];
    const latest = new Map(offsets.filter((o) => o < cleanPoint).map((o) => [key(o), o]));
    const expected = offsets.filter((o) => o >= cleanPoint || latest.get(key(o)) === o);
    expect(cleaned.map((r) => r.offset)).toEqual(expected);
    expect((await verifyDir(sim, undefined)).problems).toEqual([]);
  });

  it("a torn tail before the gap, below the recovery point, is still PAGELOG_CORRUPT after a crash", async () => {
    // The recovery point 8 lies in the gap: segment 0 must end whole, not cut short by damage.
    const crashed = await handMade({ segments: GAP, cleanPoint: 13, recoveryPoint: 8 });
    const path = `${NAME}/${offsetName(0)}.log`;
    const size = (await crashed.sim.stat(path))!.size;
    await writeFile(crashed.sim, path, size, new Uint8Array(40).fill(0xab), { sync: true });
    const err = await expectCode(() => withLog(crashed.sim, false, readAll), ErrorCode.CORRUPT);
    expect(err.message).toContain("below the recovery point 8");
  });
});
