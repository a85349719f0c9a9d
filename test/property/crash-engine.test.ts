/**
 * The one crash engine (src/testing/engine): the workload draws only the steps an adapter takes,
 * and every optional member of an adapter's log is held to what it claims — a wrapper around
 * pagelog's own adapter that lies in one member must be caught, with a seed that replays it.
 */
import { describe, expect, it } from "vitest";
import { fileSeed } from "../support/seed.js";
import type { AdapterLog, CrashTestAdapter, ExtraStep } from "../../src/testing/engine/adapter.js";
import { generateSchedule } from "../../src/testing/engine/schedule.js";
import { crashTest, pagelogAdapter } from "../../src/testing.js";

// One seed for the file, from PAGELOG_SEED (test/support/seed.ts); a failure prints its replay.
const { seed: SEED, replay } = fileSeed(import.meta.url);

const ALL: readonly ExtraStep[] = ["concurrentAppends", "truncate", "deleteBefore", "checkpoint", "faults"];
const EXTRA_KINDS = new Set(["appendGroup", "truncate", "deleteBefore", "checkpoint", "fault"]);

/** pagelog's adapter with one member of its opened log replaced. */
/** A JavaScript adapter's log may set a method to undefined: the engine must treat it as missing. */
type LogChange = { [K in keyof AdapterLog]?: AdapterLog[K] | undefined };

function lying(name: string, change: (log: AdapterLog) => LogChange, extraSteps = ALL): CrashTestAdapter {
  const real = pagelogAdapter({ segmentBytes: 300, indexIntervalBytes: 0 });
  return {
    name,
    extraSteps,
    async open(storage, context) {
      const log = await real.open(storage, context);
      return { ...log, ...change(log) } as AdapterLog;
    },
  };
}

async function caught(adapter: CrashTestAdapter, schedules = 3000): Promise<string> {
  const summary = await crashTest(adapter, { seed: SEED, schedules, throwOnViolation: false });
  const [v] = summary.violations;
  expect(v, `${adapter.name} not caught in ${summary.schedules} schedules: ${replay}`).toBeDefined();
  // Its own seed replays it alone.
  const again = await crashTest(adapter, { seed: v!.seed, schedules: 1, throwOnViolation: false });
  expect(again.violations[0]?.message).toBe(v!.message);
  return v!.message;
}

describe("the workload model", () => {
  it("draws no extra step an adapter does not take, and all of them for one that takes all", () => {
    const kinds = (extraSteps: readonly ExtraStep[]): Set<string> => {
      const seen = new Set<string>();
      for (let seed = 0; seed < 3000; seed++)
        for (const s of generateSchedule(seed, { extraSteps }).steps) seen.add(s.kind);
      return seen;
    };
    const plain = kinds([]);
    expect([...plain].filter((k) => EXTRA_KINDS.has(k))).toEqual([]);
    expect([...kinds(ALL)].filter((k) => EXTRA_KINDS.has(k)).sort()).toEqual([...EXTRA_KINDS].sort());
    expect([...kinds(["truncate"])].filter((k) => EXTRA_KINDS.has(k))).toEqual(["truncate"]);
  });

  it("keeps maxOps: no schedule has more steps", () => {
    for (let seed = 0; seed < 500; seed++) expect(generateSchedule(seed, { maxOps: 4 }).steps.length).toBeLessThan(5);
  });
});

describe("every optional member of an adapter's log is held to its claim", () => {
  it("pagelog's adapter takes every extra step and passes", async () => {
    const summary = await crashTest(pagelogAdapter(), { seed: SEED, schedules: 150 });
    expect(summary.violations).toEqual([]);
  });

  it("durableEnd: a log claiming everything appended is durable is caught losing it", async () => {
    const message = await caught(lying("claims all durable", () => ({ durableEnd: () => Number.MAX_SAFE_INTEGER })));
    expect(message).toMatch(/durability|no allowed state/);
  });

  it("readRecords: a log that drops headers on the way back is caught", async () => {
    const message = await caught(
      lying("drops headers", (log) => ({
        readRecords: async () => {
          const { start, records } = await log.readRecords!();
          return { start, records: records.map((r) => ({ ...r, headers: [] })) };
        },
      })),
    );
    expect(message).toMatch(/no allowed state: offset \d+: got/);
  });

  it("readRecords: a log that reports the wrong start offset is caught", async () => {
    const message = await caught(
      lying("start off by one", (log) => ({
        readRecords: async () => {
          const read = await log.readRecords!();
          return { ...read, start: read.start + 1 };
        },
      })),
    );
    expect(message).toMatch(/no allowed state/);
  });

  it("truncateTo: a log whose truncation does nothing is caught", async () => {
    const message = await caught(lying("truncation ignored", () => ({ truncateTo: async () => undefined })));
    expect(message).toMatch(/no allowed state|got base offset|self-check/);
  });

  it("selfCheck: a failing self-check is reported as a violation, with its message", async () => {
    const message = await caught(
      lying("self-check fails", () => ({
        selfCheck: async (moment) => {
          if (moment.kind === "flushed") throw new Error("my recovery point is wrong");
        },
      })),
    );
    expect(message).toMatch(/after flush: the log's self-check failed: my recovery point is wrong/);
  });

  it("recoveredFiles: a log counting on a file its recovery never synced is caught at once", async () => {
    const real = pagelogAdapter({ segmentBytes: 300, indexIntervalBytes: 0 });
    const adapter: CrashTestAdapter = {
      name: "claims an unsynced file",
      extraSteps: ALL,
      async open(storage, context) {
        const log = await real.open(storage, context);
        // What a recovery that skips its fsync leaves: a file it wrote, only in the page cache.
        const file = await storage.open("repaired", { create: true });
        await file.write(0, new Uint8Array(100).fill(7));
        await file.close();
        return { ...log, recoveredFiles: () => [...log.recoveredFiles!(), "repaired"] };
      },
    };
    const message = await caught(adapter, 20);
    expect(message).toMatch(/recovery left repaired not durable, though the log counts on it from now on/);
  });

  it("recoveredFiles: pagelog's adapter lists every segment file", async () => {
    let listed: readonly string[] = [];
    const real = pagelogAdapter({ segmentBytes: 300, indexIntervalBytes: 0 });
    const adapter: CrashTestAdapter = {
      name: "records what it lists",
      extraSteps: ALL,
      async open(storage, context) {
        const log = await real.open(storage, context);
        listed = log.recoveredFiles!();
        return log;
      },
    };
    await crashTest(adapter, { seed: SEED, schedules: 1 });
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length % 3).toBe(0);
    for (const path of listed) expect(path).toMatch(/^crash-0\/\d{20}\.(log|index|timeindex)$/);
  });

  it("an adapter that declares a step its log cannot take is told so", async () => {
    const summary = await crashTest(
      lying("no truncateTo", () => ({ truncateTo: undefined }), ["truncate"]),
      { seed: SEED, schedules: 1, throwOnViolation: false },
    );
    expect(summary.violations[0]?.message).toMatch(/takes 'truncate' steps, but its log has no truncateTo\(\)/);
  });
});
