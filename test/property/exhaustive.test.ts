/**
 * Exhaustive small scope, the way CrashMonkey explores crash states: for a few fixed small
 * workloads, cut the power after EVERY storage operation, and at each cut try a set of page
 * fates instead of a random one: everything written, nothing written, and every torn pattern of
 * each file's last dirty page (with the other dirty pages written, or lost). After each, the
 * harness checks every guarantee. Deterministic: no seed is drawn.
 *
 * Many fates of one cut decide alike (no dirty page at all, or only one file's, so "others
 * written" and "others lost" ask nothing): a fate whose chooser answers every question the power
 * cut asks exactly as a fate already run leaves the very same disk, so its recovery is not run
 * again (see `decisions`). Every fate is still enumerated and accounted for.
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

/**
 * A chooser that answers as `chooser` does and writes each question the power cut asks into
 * `asked`, in order, so the same questions can be put to another fate's chooser.
 */
type Question =
  | { kind: "page"; path: string; page: number; sectors: number }
  | { kind: "size"; path: string; durableSize: number; cachedSize: number }
  | { kind: "dir"; dir: string; pending: number };
function recording(chooser: CrashChooser, asked: Question[]): CrashChooser {
  return {
    pageFate: (path, page, sectors) => (
      asked.push({ kind: "page", path, page, sectors }),
      chooser.pageFate(path, page, sectors)
    ),
    sizeCommitted: (path, durableSize, cachedSize) => (
      asked.push({ kind: "size", path, durableSize, cachedSize }),
      chooser.sizeCommitted(path, durableSize, cachedSize)
    ),
    dirPrefix: (dir, pending) => (asked.push({ kind: "dir", dir, pending }), chooser.dirPrefix(dir, pending)),
  };
}

/**
 * `chooser`'s answers to `asked`, as one string. The workload is deterministic, so every fate of
 * one cut meets the same disk; the power cut asks its questions in an order fixed by that disk
 * and the answers so far. Two fates answering the questions one of them was asked alike get
 * asked the same questions throughout and leave the same disk (and the same reboot seed: a given
 * chooser draws nothing from the simulator), so the same recovery follows.
 */
function decisions(chooser: CrashChooser, asked: readonly Question[]): string {
  return JSON.stringify(
    asked.map((q) =>
      q.kind === "page"
        ? chooser.pageFate(q.path, q.page, q.sectors)
        : q.kind === "size"
          ? chooser.sizeCommitted(q.path, q.durableSize, q.cachedSize)
          : chooser.dirPrefix(q.dir, q.pending),
    ),
  );
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
      let recovered = 0;
      for (let cut = 0; cut <= total; cut++) {
        /** The disk this cut's power cut met (the same for every fate), once a fate has run. */
        let pending: PendingState | undefined;
        /** Per fate run: the questions its power cut asked, and its answers. */
        const run: Array<{ asked: Question[]; answers: string }> = [];
        for (const [fate, firstCrash] of FATES) {
          states++;
          if (pending !== undefined) {
            const chooser = firstCrash(pending);
            if (run.some(({ asked, answers }) => decisions(chooser, asked) === answers)) continue;
          }
          const asked: Question[] = [];
          let chooser: CrashChooser | undefined;
          try {
            await runCut(
              adapter,
              {
                ...base,
                firstCrash: (p) => ((pending = p), recording((chooser = firstCrash(p)), asked)),
              },
              cut,
            );
          } catch (err) {
            throw new Error(
              `workload "${workload.name}", cut after op ${cut} of ${total}, fate "${fate}":\n${(err as Error).message}`,
            );
          }
          recovered++;
          run.push({ asked, answers: decisions(chooser!, asked) });
        }
      }
      console.log(
        `${workload.name}${maxOpenFiles === undefined ? "" : ` (maxOpenFiles ${maxOpenFiles})`}: ${total + 1} cut points × ${FATES.length} fates = ${states} crash states, all valid (${recovered} distinct, each recovered and checked)`,
      );
      expect(states).toBe((total + 1) * FATES.length);
    });
  }
});
