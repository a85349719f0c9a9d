/**
 * OffsetCheckpoints, the recovery-point and log-start checkpoints moved out of LogDir: what it
 * writes, and its writer's assertion (PAGELOG_BUG for a log whose values lie outside [0, end]).
 * The schedule (interval, timer, close) is held by checkpoint-interval.test.ts through LogDir.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { type CheckpointedLog, OffsetCheckpoints } from "../../../../src/log/checkpoints/offset-checkpoints.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";

async function text(sim: SimStorage, file: string): Promise<string> {
  const f = await sim.open(file);
  return new TextDecoder().decode(await f.read(0, await f.size()));
}

function checkpoints(sim: SimStorage, opened: Map<string, CheckpointedLog>, read = new Map<string, number>()) {
  return new OffsetCheckpoints({
    storage: sim,
    recoveryPoints: new Map(read),
    startOffsets: new Map(read),
    intervalMs: -1,
    clock: { now: () => 0 },
    timed: false,
    opened,
    kept: (name) => opened.has(name) || read.has(name),
    status: () => "open",
  });
}

describe("OffsetCheckpoints", () => {
  it("writes each open log's values and carries forward those read at open", async () => {
    const sim = new SimStorage({ seed: 1 });
    const opened = new Map([["a-0", { status: "open", recoveryPoint: 5, startOffset: 2, endOffset: 7 }]]);
    const c = checkpoints(sim, opened, new Map([["b-1", 9]]));
    await c.write();
    expect(await text(sim, RECOVERY_POINT_CHECKPOINT)).toBe("0\n2\na 0 5\nb 1 9\n");
    expect(await text(sim, LOG_START_CHECKPOINT)).toBe("0\n2\na 0 2\nb 1 9\n");
    expect(c.recoveryPoint("a-0")).toBe(5);
  });

  it("asserts a log's recovery point and start offset lie in [0, end]: PAGELOG_BUG, nothing written", async () => {
    for (const bad of [
      { recoveryPoint: 8, startOffset: 0 },
      { recoveryPoint: -1, startOffset: 0 },
      { recoveryPoint: 7, startOffset: 8 },
      { recoveryPoint: 1.5, startOffset: 0 },
    ]) {
      const sim = new SimStorage({ seed: 1 });
      const opened = new Map([["a-0", { status: "open", endOffset: 7, ...bad }]]);
      await expect(checkpoints(sim, opened).write()).rejects.toMatchObject({ code: ErrorCode.BUG, path: "a-0" });
      expect(await sim.stat(RECOVERY_POINT_CHECKPOINT)).toBeNull();
    }
  });

  it("skips a failed log: its last good value stays", async () => {
    const sim = new SimStorage({ seed: 1 });
    const opened = new Map([["a-0", { status: "failed", recoveryPoint: 99, startOffset: 0, endOffset: 7 }]]);
    await checkpoints(sim, opened, new Map([["a-0", 3]])).write();
    expect(await text(sim, RECOVERY_POINT_CHECKPOINT)).toBe("0\n1\na 0 3\n");
  });
});
