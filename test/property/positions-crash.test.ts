/**
 * Consumer positions under power cuts (guarantee 13): rounds of concurrent commits (two
 * consumers through the writer's LogDir, a third through a second, read-only opener of the same
 * disk, as a consumer in another process commits; three partitions, each commit of a position
 * larger than the last one made for it), appends and flushes, each round ended by a clean close or by a power cut at a random storage
 * operation. After every reboot, for every position: the committed offset is at least the largest
 * one whose commit resolved, and it is one of the values committed, never invented. The property
 * must also catch a commit writer that renames its temp file without fsyncing it, and one that
 * does not fsync the directory after the rename (planted from outside by a storage hook).
 * Replay one schedule: PAGELOG_SEED=<seed> with the test's name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams } from "../support/seed.js";
import { size } from "../support/budget.js";
import { isPagelogError, ErrorCode } from "../../src/errors.js";
import { LogDir } from "../../src/log/log-dir.js";
import { consumerDir, consumerFile } from "../../src/log/checkpoints/consumer-files.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import type { Storage } from "../../src/storage/storage.js";
import { HookedStorage, type StorageHook } from "../../src/testing/hooked-storage.js";
import { rng } from "../support/xorshift.js";

const RUNS = size("positionsRuns");
const CONSUMERS = ["billing", "audit", "sidecar"];
/** Commits through the second opener (read-only, as another process opens the directory). */
const SECOND_OPENER = "sidecar";
const PARTITIONS = ["orders-0", "orders-1", "events-0"];
/** The positions files' temp files (each consumer has its own) and their directories. */
const TMPS = new Set(CONSUMERS.map((c) => `${consumerFile(c)}.tmp`));
const DIRS = new Set(CONSUMERS.map((c) => consumerDir(c)));

interface Model {
  /** Per `<consumer> <partition>`: every value committed (resolved or not). */
  readonly issued: Map<string, Set<number>>;
  /** Per key: the largest value whose commit resolved. */
  readonly resolved: Map<string, number>;
  /** Per key: the last value committed (the next one is larger). */
  readonly last: Map<string, number>;
}

/** The storage a session opens its directory on: the simulator itself, or a broken wrapper of it. */
export type Wrap = (sim: SimStorage) => Storage;

/** What was wrong after a reboot, or undefined. */
function check(dir: LogDir, model: Model, context: string): string | undefined {
  for (const consumer of CONSUMERS) {
    let c;
    try {
      c = dir.consumer(consumer);
    } catch (err) {
      return `${context}: dir.consumer(${consumer}) threw ${String(err)}`;
    }
    for (const partition of PARTITIONS) {
      const key = `${consumer} ${partition}`;
      const got = c.committed(partition);
      const floor = model.resolved.get(key);
      if (got === undefined) {
        if (floor !== undefined) return `${context}: ${key} lost its commit of ${floor}`;
        continue;
      }
      if (!(model.issued.get(key)?.has(got) ?? false)) return `${context}: ${key} reads ${got}, never committed`;
      if (floor !== undefined && got < floor) return `${context}: ${key} reads ${got}, below its resolved ${floor}`;
      // What was read back is durable: from here on it is the floor.
      model.resolved.set(key, got);
    }
  }
  return undefined;
}

/** One round's concurrent work: commits, appends and flushes, all in flight together. */
async function work(dir: LogDir, side: LogDir, model: Model, next: (n: number) => number): Promise<void> {
  const logs = await Promise.all(PARTITIONS.map((p) => dir.log(p)));
  const calls: Promise<unknown>[] = [];
  for (let op = 0; op < 24; op++) {
    const kind = next(10);
    if (kind < 6) {
      const consumer = CONSUMERS[next(CONSUMERS.length)]!;
      const partition = PARTITIONS[next(PARTITIONS.length)]!;
      const key = `${consumer} ${partition}`;
      const value = (model.last.get(key) ?? -1) + 1 + next(5);
      model.last.set(key, value);
      if (!model.issued.has(key)) model.issued.set(key, new Set());
      model.issued.get(key)!.add(value);
      calls.push(
        (consumer === SECOND_OPENER ? side : dir)
          .consumer(consumer)
          .commit(partition, value)
          .then(() => model.resolved.set(key, Math.max(model.resolved.get(key) ?? -1, value))),
      );
    } else if (kind < 8) {
      const log = logs[next(logs.length)]!;
      calls.push(log.append([{ value: `v${op}` }, { value: `w${op}` }]));
    } else {
      calls.push(logs[next(logs.length)]!.flush());
    }
    // Now and then let the calls so far run before more are made, so writes overlap in many ways.
    if (next(4) === 0) await Promise.resolve();
  }
  const results = await Promise.allSettled(calls);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}

/** Power cuts of all schedules run, for the check that the property is not vacuous. */
let cuts = 0;

/** One schedule; the first violation found, or undefined. */
async function runSchedule(seed: number, wrap: Wrap = (sim) => sim): Promise<string | undefined> {
  const next = rng(seed);
  let sim = new SimStorage({ seed });
  const model: Model = { issued: new Map(), resolved: new Map(), last: new Map() };
  for (let round = 0; round < 8; round++) {
    const context = `schedule ${seed}, round ${round}`;
    const cutAfter = next(4) === 0 ? undefined : 1 + next(250);
    if (cutAfter !== undefined) sim.scheduleCrash({ afterOps: cutAfter });
    let dir: LogDir | undefined;
    try {
      dir = await LogDir.open(wrap(sim));
      const violation = check(dir, model, `${context} (after open)`);
      if (violation !== undefined) return violation;
      const side = await LogDir.open(wrap(sim), { readOnly: true });
      await work(dir, side, model, next);
      await side.close();
      await dir.close();
    } catch (err) {
      // The power went: every later call fails PAGELOG_POWER_CUT. Anything else is a violation.
      if (!sim.poweredOff) return `${context}: ${String(err)}`;
      if (!isPagelogError(err, ErrorCode.POWER_CUT)) return `${context}: ${String(err)}`;
    }
    if (sim.poweredOff) {
      cuts++;
      sim = sim.crash();
    } else if (cutAfter !== undefined) sim.scheduleCrash({ afterOps: 1_000_000_000 });
  }
  const dir = await LogDir.open(wrap(sim));
  const violation = check(dir, model, `schedule ${seed}, final`);
  await dir.close();
  return violation;
}

/** A broken positions writer, planted from outside: the hook swallows one of its syncs. */
function broken(swallow: "temp-fsync" | "dir-fsync"): Wrap {
  return (sim) => {
    let renamed = false;
    const hook: StorageHook = (op, run) => {
      if (swallow === "temp-fsync" && op.kind === "sync" && TMPS.has(op.path)) return Promise.resolve();
      if (op.kind === "rename") renamed = TMPS.has(op.path);
      if (swallow === "dir-fsync" && op.kind === "syncDir" && DIRS.has(op.path) && renamed) {
        renamed = false;
        return Promise.resolve();
      }
      return run();
    };
    return new HookedStorage(sim, hook);
  };
}

describe("property: a resolved commit survives every power cut (guarantee 13)", () => {
  it(`holds for ${RUNS} schedules of concurrent commits, appends and flushes`, async () => {
    cuts = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        expect(await runSchedule(seed)).toBeUndefined();
      }),
      { ...fastCheckParams(), numRuns: RUNS },
    );
    expect(cuts).toBeGreaterThan(RUNS * 2);
  });

  for (const swallow of ["temp-fsync", "dir-fsync"] as const) {
    it(`catches a commit writer that skips its ${swallow}`, async () => {
      const { seed } = fastCheckParams();
      const next = rng(seed);
      let found: string | undefined;
      for (let run = 0; run < 200 && found === undefined; run++)
        found = await runSchedule(1 + next(2 ** 31 - 2), broken(swallow));
      expect(found, "no schedule caught the broken writer").toBeDefined();
    });
  }
});
