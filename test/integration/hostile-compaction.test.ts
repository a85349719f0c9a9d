/**
 * Hostile files for compaction (issue 22, Deliver 5; guarantee 9): a compacted log directory
 * (gaps below its clean point) with a crafted `.swap` (garbage, empty, CRC-valid batches whose
 * offsets overflow or lie outside the segments it would replace (KAFKA-6264), one overlapping two
 * segments partially, one named for another base offset than its batches', index-only swaps, a
 * directory), `.cleaned` and `.deleted` leftovers of odd sizes or that are directories, and a
 * hostile `cleaner-offset-checkpoint` (garbage, another version, huge, negative, past the log's
 * end, a directory). Each open gives the records that were there (every record at its own offset,
 * in order) or a `PagelogError` with a documented code; an open that rejects changes no byte.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../src/errors.js";
import { encodeBatch } from "../../src/format/api.js";
import { CLEANER_CHECKPOINT } from "../../src/log/checkpoints/cleaner-checkpoint.js";
import { keepEverything, type SimStorage } from "../../src/storage/sim-storage.js";
import { seededBytes } from "../support/seeded-bytes.js";
import { snapshotStorage, type StorageSnapshot } from "../support/storage-snapshot.js";
import {
  NAME,
  freshLog,
  openSim,
  readAll,
  readFile,
  segPath,
  writeFile,
  type PlainRecord,
} from "../unit/log/helpers.js";

const OPTIONS = { cleanupPolicy: "compact", segmentBytes: 300 } as const;
const DOCUMENTED = new Set<string>(Object.values(ErrorCode));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

interface Pristine {
  sim: SimStorage;
  bases: number[];
  records: PlainRecord[];
  end: number;
}

/** A compacted log with gaps, shut down cleanly (or, `crashed`, kept as a power cut left it). */
async function pristine(crashed: boolean): Promise<Pristine> {
  const { sim, dir, log } = await freshLog(OPTIONS, 9);
  for (let i = 0; i < 40; i++) {
    const o = log.endOffset;
    await log.append([{ key: o % 6 === 1 ? `u${o}` : `k${o % 2}`, value: `v${o}`, timestamp: 1000 + o }]);
  }
  await log.flush();
  expect((await log.compact()).segmentsCleaned).toBeGreaterThan(0);
  const records = await readAll(log);
  const bases = log.segmentBaseOffsets;
  const end = log.endOffset;
  if (crashed) return { sim: sim.crash(keepEverything), bases, records, end };
  await dir.close();
  return { sim, bases, records, end };
}

type Mutate = (p: Pristine) => Promise<void>;
/** `intact`: every record reads back; `loud`: the open (or a read) fails with a documented code. */
type Outcome = "intact" | "loud";

const swapOf = (base: number): string => `${segPath(base, ".log")}.swap`;

async function put(sim: SimStorage, path: string, bytes: Uint8Array): Promise<void> {
  await writeFile(sim, path, 0, bytes, { create: true, sync: true });
  await sim.syncDir(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
}

/** One CRC-valid batch of `count` records from `baseOffset`. */
function batchAt(baseOffset: number, count = 1): Uint8Array {
  return encodeBatch(
    Array.from({ length: count }, (_, i) => ({ key: `x${i}`, value: `y${i}`, timestamp: 5 })),
    { baseOffset },
  );
}

const CASES: Array<[string, Outcome, Mutate]> = [
  ["a .swap of garbage bytes", "loud", async ({ sim, bases }) => put(sim, swapOf(bases[0]!), seededBytes(300, 1))],
  ["a zero-length .swap", "loud", async ({ sim, bases }) => put(sim, swapOf(bases[0]!), new Uint8Array(0))],
  [
    "a .swap whose CRC-valid batch lies far past the log (offsets outside what it replaces)",
    "loud",
    async ({ sim, bases }) => put(sim, swapOf(bases[0]!), batchAt(1_000_000_000_000)),
  ],
  [
    "a .swap whose batch's offsets overflow 32 bits past its base (KAFKA-6264)",
    "loud",
    async ({ sim, bases }) => {
      const bytes = batchAt(bases[0]! + 0x7fffffff);
      await put(sim, swapOf(bases[0]!), bytes);
    },
  ],
  [
    "a .swap overlapping two segments partially (the first's batches and the second's first)",
    "loud",
    async ({ sim, bases }) => {
      const first = await readFile(sim, segPath(bases[0]!, ".log"));
      const second = await readFile(sim, segPath(bases[1]!, ".log"));
      const size = 12 + new DataView(second.buffer, second.byteOffset + 8, 4).getInt32(0);
      await put(sim, swapOf(bases[0]!), new Uint8Array([...first, ...second.subarray(0, size)]));
    },
  ],
  [
    "a .swap named for another base offset than its batches' (below its name)",
    "loud",
    async ({ sim, bases }) => put(sim, swapOf(bases[1]!), await readFile(sim, segPath(bases[0]!, ".log"))),
  ],
  [
    "a .swap that is a whole copy of the segment it names (a finished cleaning)",
    "intact",
    async ({ sim, bases }) => put(sim, swapOf(bases[1]!), await readFile(sim, segPath(bases[1]!, ".log"))),
  ],
  [
    "index-only .swap files (no .log.swap beside them)",
    "intact",
    async ({ sim, bases }) => {
      await put(sim, `${segPath(bases[1]!, ".index")}.swap`, seededBytes(24, 2));
      await put(sim, `${segPath(bases[2]!, ".timeindex")}.swap`, seededBytes(5, 3));
    },
  ],
  ["a .log.swap that is a directory", "loud", async ({ sim, bases }) => sim.mkdir(swapOf(bases[0]!))],
  [
    ".cleaned leftovers of odd sizes",
    "intact",
    async ({ sim, bases }) => {
      await put(sim, `${segPath(bases[0]!, ".log")}.cleaned`, seededBytes(3, 4));
      await put(sim, `${segPath(bases[1]!, ".index")}.cleaned`, seededBytes(7, 5));
      await put(sim, `${segPath(bases[2]!, ".timeindex")}.cleaned`, new Uint8Array(0));
    },
  ],
  [
    ".deleted leftovers of odd sizes",
    "intact",
    async ({ sim, bases }) => {
      await put(sim, `${segPath(bases[0]!, ".log")}.deleted`, seededBytes(1, 6));
      await put(sim, `${segPath(bases[1]!, ".index")}.deleted`, seededBytes(4097, 7));
    },
  ],
  [
    ".cleaned and .deleted leftovers that are directories",
    "intact",
    async ({ sim, bases }) => {
      await sim.mkdir(`${segPath(bases[0]!, ".log")}.cleaned`);
      await sim.mkdir(`${segPath(bases[1]!, ".log")}.deleted`);
      await put(sim, `${segPath(bases[1]!, ".log")}.deleted/inside`, seededBytes(9, 8));
    },
  ],
  ...(
    [
      ["garbage", "\u0000\u00ffnot a checkpoint"],
      ["another version", "1\n1\norders 0 30\n"],
      ["a huge clean point", "0\n1\norders 0 99999999999999999999999\n"],
      ["a negative clean point", "0\n1\norders 0 -7\n"],
      ["a count that lies", "0\n5\norders 0 30\n"],
    ] as const
  ).map(([what, content]): [string, Outcome, Mutate] => [
    // Malformed counts as absent (docs/compaction.md): the gaps are then damage, met at a read.
    `a cleaner-offset-checkpoint of ${what}`,
    "loud",
    async ({ sim }) => put(sim, CLEANER_CHECKPOINT, text(content)),
  ]),
  [
    "a cleaner-offset-checkpoint whose clean point lies past the log's end",
    "intact",
    async ({ sim, end }) => put(sim, CLEANER_CHECKPOINT, text(`0\n1\norders 0 ${end + 1000}\n`)),
  ],
  [
    "a cleaner-offset-checkpoint that is a directory",
    "loud",
    async ({ sim }) => {
      await sim.remove(CLEANER_CHECKPOINT);
      await sim.mkdir(CLEANER_CHECKPOINT);
      await sim.syncDir("");
    },
  ],
];

/** The snapshot without what LogDir.open itself changes by design (the marker, the lock file). */
function withoutOwn(s: StorageSnapshot): StorageSnapshot {
  return Object.fromEntries(Object.entries(s).filter(([k]) => k !== ".kafka_cleanshutdown" && k !== ".lock"));
}

function judge(err: unknown, where: string): void {
  expect(err, where).toBeInstanceOf(PagelogError);
  expect(DOCUMENTED.has((err as PagelogError).code), `${where}: ${(err as PagelogError).code}`).toBe(true);
}

describe.each([false, true])("hostile compaction files (crashed: %s)", (crashed) => {
  it.each(CASES)("%s", async (_label, outcome, mutate) => {
    const p = await pristine(crashed);
    await mutate(p);
    const before = await snapshotStorage(p.sim);
    let failed: unknown;
    let stage = "open";
    let records: PlainRecord[] | undefined;
    try {
      const dir = await openSim(p.sim);
      const log = await dir.log(NAME, OPTIONS);
      stage = "read";
      records = await readAll(log);
      await dir.close();
    } catch (err) {
      failed = err;
    }
    if (failed !== undefined) {
      judge(failed, stage);
      expect(outcome, `${stage} failed: ${(failed as Error).message}`).not.toBe("intact");
      if (stage === "open") expect(withoutOwn(await snapshotStorage(p.sim))).toEqual(withoutOwn(before));
      return;
    }
    expect(outcome, "opened and read").not.toBe("loud");
    // Correct data: the records that were there, each at its own offset, in order.
    expect(records).toEqual(p.records);
  });
});
