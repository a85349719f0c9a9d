import { describe, expect, it } from "vitest";
import { LogDir, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";

async function checkpointText(sim: SimStorage): Promise<string | null> {
  if ((await sim.stat(RECOVERY_POINT_CHECKPOINT)) === null) return null;
  const f = await sim.open(RECOVERY_POINT_CHECKPOINT);
  return new TextDecoder().decode(await f.read(0, await f.size()));
}

describe("LogDir: the checkpoint interval", () => {
  it("checkpoint: written after a flush once checkpointIntervalMs passed (Kafka's log.flush.offset.checkpoint.interval.ms)", async () => {
    const clock = {
      t: 1000,
      now() {
        return this.t;
      },
    };
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim, { log: { clock }, checkpointIntervalMs: 500 });
    const log = await dir.log("c-0");
    await log.append([{ value: "a" }]);
    await log.flush();
    expect(await checkpointText(sim)).toBeNull(); // the interval has not passed
    clock.t += 500;
    await log.append([{ value: "b" }]);
    await log.flush();
    expect(await checkpointText(sim)).toBe("0\n1\nc 0 2\n");
    // Durable: the checkpoint survives a power cut that keeps nothing unsynced.
    expect(await checkpointText(sim.crash(keepNothing))).toBe("0\n1\nc 0 2\n");
  });

  it("checkpoint: a wall clock set back an hour does not hold the interval's checkpoints off for an hour", async () => {
    const clock = {
      t: 10_000_000,
      now() {
        return this.t;
      },
    };
    const sim = new SimStorage({ seed: 2 });
    const dir = await LogDir.open(sim, { log: { clock }, checkpointIntervalMs: 500 });
    const log = await dir.log("c-0");
    clock.t += 500;
    await log.append([{ value: "a" }]);
    await log.flush();
    expect(await checkpointText(sim)).toBe("0\n1\nc 0 1\n");
    clock.t -= 3_600_000; // set back an hour (seen by the next flush: no time passed)
    await log.append([{ value: "x" }]);
    await log.flush();
    expect(await checkpointText(sim)).toBe("0\n1\nc 0 1\n");
    clock.t += 500; // then half a second passes
    await log.append([{ value: "b" }]);
    await log.flush();
    expect(await checkpointText(sim)).toBe("0\n1\nc 0 3\n");
    await dir.close();
  });

  it("checkpoint: -1 writes only on checkpoint() and at close", async () => {
    const clock = {
      t: 0,
      now() {
        return this.t;
      },
    };
    const sim = new SimStorage({ seed: 2 });
    const dir = await LogDir.open(sim, { log: { clock }, checkpointIntervalMs: -1 });
    const log = await dir.log("c-0");
    await log.append([{ value: "a" }]);
    clock.t += 10 ** 9;
    await log.flush();
    expect(await checkpointText(sim)).toBeNull();
    await dir.checkpoint();
    expect(await checkpointText(sim)).toBe("0\n1\nc 0 1\n");
    await dir.close();
  });

  it("options: a bad checkpointIntervalMs is a TypeError naming it; a bad log name rejects (never throws synchronously)", async () => {
    const sim = new SimStorage({ seed: 3 });
    await expect(LogDir.open(sim, { checkpointIntervalMs: -5 })).rejects.toThrow(/checkpointIntervalMs/);
    const dir = await LogDir.open(sim);
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = dir.log("../etc-0");
    }).not.toThrow();
    await expect(promise).rejects.toThrow(TypeError);
    await dir.close();
  });
});
