/**
 * `pagelog verify` on a compacted log (issue 22, Deliver 5): the gaps the cleaner leaves below the
 * clean point in `cleaner-offset-checkpoint` are legal, as the loader takes them; the same gaps
 * without the checkpoint are reported, as the loader would refuse them.
 */
import { describe, expect, it } from "vitest";
import { verifyDir } from "../../../../src/inspect/verify-dir.js";
import { NAME, freshLog } from "../helpers.js";

describe("verify on a compacted log", () => {
  it("gaps below the checkpointed clean point are legal; without the checkpoint they are problems", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 300 });
    for (let i = 0; i < 40; i++) await log.append([{ key: i % 5 === 0 ? `u${i}` : `k${i % 3}`, value: `v${i}` }]);
    await log.flush();
    const { segmentsCleaned } = await log.compact();
    expect(segmentsCleaned).toBeGreaterThan(0);
    await dir.close();
    const report = await verifyDir(sim, undefined);
    expect(report.problems).toEqual([]);
    expect(report.partitions.map((p) => p.name)).toEqual([NAME]);
    await sim.remove("cleaner-offset-checkpoint");
    const without = await verifyDir(sim, undefined);
    expect(without.problems.length).toBeGreaterThan(0);
    expect(without.problems[0]!.problem).toContain("the previous batch ended at");
  });
});
