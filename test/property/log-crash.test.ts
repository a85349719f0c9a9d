/**
 * The crash-recovery proof (docs/guarantees.md): random workloads on SimStorage, the power cut at a
 * random storage operation, again inside recovery, injected I/O faults, every guarantee checked
 * against a model after every reboot. fast-check draws the schedule seeds; each schedule is
 * generated from its seed alone, so a failure prints the fast-check seed and path and one
 * command that replays exactly that case: `npx pagelog fuzz --replay <schedule seed>`.
 * Run more with PAGELOG_CRASH_RUNS=<n>; replay the fast-check run with PAGELOG_SEED / PAGELOG_PATH.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASE_SEED, fastCheckParams, testReplayCommand } from "../support/seed.js";
import { SIZES, size } from "../support/budget.js";
import { type Reach, reachFailure, sumReach } from "../../src/testing/engine/reach.js";
import { replay, replayCommand } from "../../src/testing/fuzz.js";

const DEFAULT_RUNS = SIZES.crashRuns.ci;
const RUNS = size("crashRuns");

/**
 * Schedules that once broke a guarantee, replayed every run (each comment says what it found).
 * They were recorded with the classic workload, before the swarm one: they replay through it.
 */
const REGRESSIONS: ReadonlyArray<readonly [seed: number, found: string]> = [
  [1059250145, "truncateTo inside a batch lost the batch's kept records when cut mid-way"],
  [62381069, "a replacement segment written but not yet durable looked like lost data"],
  [529428122, "a truncation cut short left a prefix longer than asked: allowed, not a violation"],
  [1172699054, "an empty replacement segment from a cut before its fsync"],
  [972049969, "the same, after group commits and rolls"],
  [1180128165, "a half-cut segment whose stale index hid a zeroed page tail"],
  [
    37318794,
    "a time index rebuilt below the recovery point, cut before its fsync, read back as one zero entry that passed the sanity check",
  ],
  [
    1754560147,
    "the active segment's indexes, synced lazily, rolled with the recovery point exactly at its end: trusted short after a crash",
  ],
  [
    600341771,
    "a truncation inside a batch put a new segment after the active one before its lazily synced indexes were durable",
  ],
];

describe("property: a power cut at any operation leaves a valid prefix that keeps every flushed record", () => {
  for (const [scheduleSeed, found] of REGRESSIONS) {
    it(`regression: schedule ${scheduleSeed} (${found})`, async () => {
      await replay(scheduleSeed, undefined, { workload: "classic" });
    });
  }

  it(`holds for ${RUNS} random crash schedules`, async () => {
    const params = fastCheckParams();
    let cuts = 0;
    let inWorkload = 0;
    let recovered = 0;
    let reach: Reach = {};
    let failedSeed: number | undefined;
    const result = await fc.check(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (scheduleSeed) => {
        failedSeed = scheduleSeed;
        const outcome = await replay(scheduleSeed);
        cuts += outcome.powerCuts;
        recovered += outcome.recordsRecovered;
        if (outcome.cutInWorkload) inWorkload++;
        reach = sumReach(reach, outcome.reach);
      }),
      { ...params, numRuns: RUNS },
    );
    if (result.failed) {
      const message = String((result.errorInstance as Error)?.message ?? result.errorInstance);
      throw new Error(
        `crash property failed (fast-check seed ${result.seed}, path ${result.counterexamplePath})\n${message}\n\n` +
          `Replay this schedule: ${replayCommand(result.counterexample?.[0] ?? failedSeed ?? 0)}\n` +
          `Replay the fast-check run: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(
      `crash schedules: ${RUNS}, power cuts: ${cuts}, cut inside the workload: ${inWorkload}, records recovered: ${recovered}`,
    );
    expect(inWorkload).toBeGreaterThan(RUNS * 0.8);
    // The schedules must reach every recovery decision: a path none of them takes is untested,
    // however many run. (Fewer runs than the default may miss the rarest: then it is not checked.)
    const short = reachFailure(reach, {
      schedules: RUNS,
      seed: `PAGELOG_SEED=${BASE_SEED} (fast-check seed ${params.seed})`,
      replay: testReplayCommand(),
    });
    if (RUNS >= DEFAULT_RUNS && short !== undefined) throw new Error(`crash property: ${short}`);
  });
});
