/**
 * Compaction in the crash engine (issue 22, item 4): the compaction workload
 * (src/testing/engine/compaction-workload.ts) on pagelog's log with each schedule's settings and
 * `cleanupPolicy` "compact" or "compact,delete": `compact` steps between appends of a few repeated
 * keys and tombstones, clock jumps past `deleteRetentionMs`, truncations, start moves, crashes,
 * write-back and faults, the power cut anywhere (half the schedules: inside a cleaning) and again
 * inside the recovery that finishes its swap. After every cut, and after every cleaning, the log
 * must be a valid compaction of what was appended (compaction-model.ts), its indexes must agree
 * with a scan, and what recovery counts on must be on the disk. The compaction broken variants
 * must be caught, each with a replay command that names the workload.
 *
 * `PAGELOG_COMPACTION_SCHEDULES` runs more schedules (the default suits `npm test`).
 */
import { describe, expect, it } from "vitest";
import { testReplayCommand, testSeed } from "../support/seed.js";
import { size } from "../support/budget.js";
import { BROKEN_VARIANTS, variantWorkload } from "../../src/testing/broken/variants.js";
import { fuzz, replay } from "../../src/testing/fuzz.js";

const SCHEDULES = size("compactionSchedules");
const COMPACTION_VARIANTS = BROKEN_VARIANTS.filter((v) => variantWorkload(v) === "compaction");

describe("the crash engine's compaction workload", () => {
  // A truncateTo(11) onto a cleaned batch [9, 11] that kept only offset 11: the batch is cut whole
  // and an empty batch written over [9, 11); the recovery point stayed at 11 while the end was 9,
  // so a cut in between left a log its next open called corrupt below the recovery point.
  it("regression: schedule 1711383384 (a batch cut whole below the recovery point)", async () => {
    await replay(1711383384, undefined, { workload: "compaction" });
  });

  // Not a log defect but the model's (found 2026-12-04 by a whole run, PAGELOG_SEED=1892852802):
  // a cleaning dropped offsets 0 and 1 (key k3) for k3's later record at 3; a truncateTo(0) then
  // removed segments [2, 4) and was cut before it truncated [0, 2). The log came back [0, 2),
  // holding none of k3: a truncation to 2, whose cleaning had run on the records of before. The
  // model allowed such records to be missing only below the truncation's target, not below
  // wherever a cut stopped it, and called the prefix a loss.
  it("regression: schedule 492962408 (a truncation cut short after a cleaning)", async () => {
    await replay(492962408, undefined, { workload: "compaction" });
  });

  // Found 2026-12-04 by a soak-budget run of this file (PAGELOG_SEED=41001): an open finished an
  // interrupted swap (removing the segment's indexes), the next open rebuilt them and the power
  // went before their fsync; the time index came back empty beside a whole offset index, the open
  // after trusted it, and offsetForTimestamp skipped the segment (7 where a scan finds 2). The
  // loader now refuses that pair (test/unit/log/load/index-rebuild-trust.test.ts).
  it("schedule 1109143074: a timestamp lookup stays right after nested recovery cuts", async () => {
    await replay(1109143074, undefined, { workload: "compaction" });
  });

  // Found 2026-12-04 by a soak-budget run of this file (PAGELOG_SEED=41001): a truncateTo inside a
  // cleaned batch wrote its replacement segment and the power went before it deleted the later
  // (empty) segment; the clean point on disk was still above the cut, so the loader took the gap
  // between the replacement's end and that segment for the cleaner's and lost the record at the
  // cut's edge ([3, 8) without offset 7). truncateTo now lowers the clean point before it cuts.
  it("regression: schedule 1512701580 (a truncation cut short below the old clean point)", async () => {
    await replay(1512701580, undefined, { workload: "compaction" });
  });

  it(`leaves a valid compaction after every power cut, in ${SCHEDULES} schedules`, async () => {
    const seed = testSeed();
    const report = await fuzz({ seed, schedules: SCHEDULES, workload: "compaction", failFast: true });
    const first = report.violationList[0];
    expect(first?.message, `schedule ${first?.seed} failed (${first?.replay}); the test: ${testReplayCommand()}`).toBe(
      undefined,
    );
    expect(report.schedules).toBe(SCHEDULES);
    // The workload cleans, and cuts inside calls (the cleanings among them).
    expect(report.reach["records-cleaned"]).toBeGreaterThan(SCHEDULES);
    expect(report.reach["cut-in-call"]).toBeGreaterThan(0);
    console.log(
      `compaction workload, run seed ${seed}: ${report.schedules} schedules, ${report.powerCuts} power cuts, ` +
        `${report.reach["records-cleaned"]} records cleaned away, ${report.reach["swap-completed"]} swaps finished by a recovery, ` +
        `${report.reach["nested-cut"]} cuts inside recoveries`,
    );
  });

  for (const variant of COMPACTION_VARIANTS) {
    it(`catches '${variant}', and its replay command replays it`, async () => {
      const report = await fuzz({ seed: testSeed(), schedules: 100, brokenVariant: variant });
      const found = report.violationList[0];
      expect(found, `'${variant}' survived 100 compaction schedules: ${testReplayCommand()}`).toBeDefined();
      expect(found!.replay).toBe(`npx pagelog fuzz --replay ${found!.seed} --broken ${variant} --workload compaction`);
      // The seed alone replays it (the workload follows from the variant).
      await expect(replay(found!.seed, variant)).rejects.toThrow(found!.message.split("\n")[0]!);
      console.log(`'${variant}' caught at schedule ${found!.index}: ${found!.replay}`);
    });
  }
});
