/**
 * `truncateTo` inside a compacted log's cleaned part, where the cleaner left gaps: the log ends
 * exactly at the offset asked (never at the last kept record before it), and the segments still
 * continue one another, so that a reopen (clean or after a crash) reads what the truncation left.
 * Both were found by the crash engine's compaction workload (test/property/compaction-engine.test.ts).
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";

const clock = {
  t: 1_700_000_000_000,
  now() {
    return this.t;
  },
};
const options = {
  log: { cleanupPolicy: "compact", segmentMs: 500, segmentBytes: 100_000, indexIntervalBytes: 0, clock },
} as const;
const r = (key: string, value: string | null): { key: string; value: string | null } => ({ key, value });

async function offsets(log: Log): Promise<number[]> {
  const out: number[] = [];
  for await (const record of log.records()) out.push(record.offset);
  return out;
}

/** Appends `calls` (one batch each), rolling to a new segment before each call of `rollBefore`. */
async function build(
  sim: SimStorage,
  calls: Array<Array<ReturnType<typeof r>>>,
  rollBefore: number[],
): Promise<{ dir: LogDir; log: Log }> {
  const dir = await LogDir.open(sim, options);
  const log = await dir.log("p-0");
  for (const [i, call] of calls.entries()) {
    if (rollBefore.includes(i)) clock.t += 1000; // past segmentMs: the append rolls
    await log.append(call);
  }
  await log.flush();
  return { dir, log };
}

describe("truncateTo in a compacted log's gaps", () => {
  it("a cut inside a batch, past its last kept record, ends the log at the offset asked", async () => {
    const sim = new SimStorage({ seed: 1 });
    const calls = [[r("a", "1"), r("b", "2"), r("c", "3"), r("c", "4")], [r("c", null)], [r("z", "6")]];
    const { log } = await build(sim, calls, [1, 2]);
    await log.compact(); // offsets 2, 3 (c) go from the first segment's one batch
    expect(await offsets(log)).toEqual([0, 1, 4, 5]);
    await log.truncateTo(3);
    expect(log.endOffset).toBe(3);
    expect(await offsets(log)).toEqual([0, 1]);
    await log.append([r("d", "6")]);
    expect(await offsets(log)).toEqual([0, 1, 3]);
  });

  it("a cut inside a batch that follows a gap leaves segments that continue one another, across a reopen and a crash", async () => {
    const sim = new SimStorage({ seed: 2 });
    const calls = [
      [r("a", "1"), r("b", "2")], // 0, 1
      [r("c", "3"), r("d", "4")], // 2, 3: superseded below, their batch dropped
      [r("e", "5"), r("f", "6")], // 4, 5
      [r("c", "7"), r("d", "8")], // 6, 7
      [r("g", "9")], // 8: the active segment
    ];
    const { dir, log } = await build(sim, calls, [3, 4]);
    await log.compact();
    expect(await offsets(log)).toEqual([0, 1, 4, 5, 6, 7, 8]);
    await log.truncateTo(5); // inside the batch [4, 5], after the gap [2, 4)
    expect(log.endOffset).toBe(5);
    expect(await offsets(log)).toEqual([0, 1, 4]);
    const bases = log.segmentBaseOffsets;
    await dir.close();
    const reopened = await (await LogDir.open(sim, options)).log("p-0");
    expect([reopened.endOffset, await offsets(reopened), reopened.segmentBaseOffsets]).toEqual([5, [0, 1, 4], bases]);
    const afterCrash = await (await LogDir.open(sim.crash(), options)).log("p-0");
    expect([afterCrash.endOffset, await offsets(afterCrash)]).toEqual([5, [0, 1, 4]]);
  });
});
