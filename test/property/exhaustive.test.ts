/**
 * Exhaustive small scope, the way CrashMonkey explores crash states: for a few fixed small
 * workloads, cut the power after EVERY storage operation, and at each cut try a set of page
 * fates instead of a random one: everything written, nothing written, and every torn pattern of
 * each file's last dirty page (with the other dirty pages written, or lost). After each, the
 * harness checks every guarantee. Deterministic: no seed is drawn.
 */
import { describe, expect, it } from "vitest";
import type { LogTuning } from "../../src/testing/engine/adapter.js";
import { runCut } from "../../src/testing/engine/run-schedule.js";
import type { RecordShape, Schedule, Step } from "../../src/testing/engine/schedule.js";
import { tunedPagelogAdapter } from "../../src/testing/pagelog-adapter.js";
import { type CrashChooser, keepEverything, keepNothing, type PendingState } from "../../src/storage/sim-storage.js";

const PAGE = 64;
const SECTOR = 16;
const SECTORS = PAGE / SECTOR;

const rec = (valueBytes: number): RecordShape => ({ valueBytes, keyed: true, headers: 1, tsDelta: null });
const append = (...sizes: number[]): Step => ({ kind: "append", records: sizes.map(rec) });

/** The settings a workload does not name: no flush policy, no time-based roll, checkpoints only when asked. */
const DEFAULTS: LogTuning = {
  segmentBytes: 1000,
  indexIntervalBytes: 4096,
  maxIndexBytes: 10 * 1024 * 1024,
  flushMessages: -1,
  flushMs: -1,
  segmentMs: 7 * 24 * 3600 * 1000,
  checkpointIntervalMs: -1,
};

const WORKLOADS: ReadonlyArray<{ name: string; steps: Step[]; tuning: Partial<LogTuning> }> = [
  {
    name: "appends across a segment roll, a flush between",
    steps: [append(8, 8), append(40), { kind: "flush" }, append(0, 8, 40), append(8)],
    tuning: { segmentBytes: 220, indexIntervalBytes: 64 },
  },
  {
    name: "durable appends (flushMessages 1), one a group commit",
    steps: [append(8), { kind: "appendGroup", calls: [[rec(8)], [rec(40), rec(0)]] }, append(40)],
    tuning: { flushMessages: 1, segmentBytes: 300, indexIntervalBytes: 0 },
  },
  {
    name: "truncateTo inside a flushed batch, then an append",
    steps: [append(8), append(8, 8, 8), { kind: "flush" }, { kind: "truncate", back: 2 }, append(40)],
    tuning: { segmentBytes: 1000, indexIntervalBytes: 0 },
  },
  {
    name: "clean reopen, deleteRecordsBefore, append",
    steps: [append(8, 8), { kind: "flush" }, { kind: "reopen" }, { kind: "deleteBefore", forward: 1 }, append(40)],
    tuning: { segmentBytes: 150, indexIntervalBytes: 64 },
  },
];

/** Tears each file's last dirty page with `mask` (bit i: sector i written); the rest as told. */
function tearLast(mask: number, others: "written" | "lost"): (pending: PendingState) => CrashChooser {
  return (pending) => {
    const last = new Map(pending.files.map((f) => [f.path, f.dirtyPages[f.dirtyPages.length - 1]]));
    return {
      pageFate: (path, page, sectors) =>
        last.get(path) === page ? { torn: Array.from({ length: sectors }, (_, i) => (mask & (1 << i)) !== 0) } : others,
      sizeCommitted: () => others === "written",
      dirPrefix: (_dir, n) => (others === "written" ? n : 0),
    };
  };
}

const FATES: ReadonlyArray<[string, (pending: PendingState) => CrashChooser]> = [
  ["all written", () => keepEverything],
  ["none written", () => keepNothing],
  ...Array.from({ length: 2 ** SECTORS - 2 }, (_, i) => i + 1).flatMap(
    (mask): Array<[string, (p: PendingState) => CrashChooser]> => [
      [`last page torn ${mask.toString(2).padStart(SECTORS, "0")}, others written`, tearLast(mask, "written")],
      [`last page torn ${mask.toString(2).padStart(SECTORS, "0")}, others lost`, tearLast(mask, "lost")],
    ],
  ),
];

describe("exhaustive small scope: every cut point × every enumerated page fate", () => {
  // Each workload also with a descriptor bound of 2 (a segment is 3 files): the pool evicts,
  // syncs and reopens files all the time, and every one of those operations is a cut point too.
  for (const [workload, maxOpenFiles] of WORKLOADS.flatMap((w) => [[w, undefined] as const, [w, 2] as const])) {
    it(`${workload.name}${maxOpenFiles === undefined ? "" : `, maxOpenFiles ${maxOpenFiles}`}`, async () => {
      const adapter = tunedPagelogAdapter(maxOpenFiles === undefined ? {} : { maxOpenFiles });
      const base: Schedule = {
        seed: 7,
        steps: workload.steps,
        tuning: { ...DEFAULTS, ...workload.tuning },
        pageSize: PAGE,
        sectorSize: SECTOR,
        writeback: 0,
        cutAt: 0,
        nestedCuts: [],
      };
      const total = (await runCut(adapter, base, Number.MAX_SAFE_INTEGER)).workloadOps;
      let states = 0;
      for (let cut = 0; cut <= total; cut++) {
        for (const [fate, firstCrash] of FATES) {
          try {
            await runCut(adapter, { ...base, firstCrash }, cut);
          } catch (err) {
            throw new Error(
              `workload "${workload.name}", cut after op ${cut} of ${total}, fate "${fate}":\n${(err as Error).message}`,
            );
          }
          states++;
        }
      }
      console.log(
        `${workload.name}${maxOpenFiles === undefined ? "" : ` (maxOpenFiles ${maxOpenFiles})`}: ${total + 1} cut points × ${FATES.length} fates = ${states} crash states, all valid`,
      );
      expect(states).toBe((total + 1) * FATES.length);
    });
  }
});
