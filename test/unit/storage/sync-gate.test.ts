/*
 * The gate that lets FsFile write synchronously while writes are small and fast: what shuts it,
 * for how long, and how the cooldown grows while the slowness lasts. An injected clock, never
 * real timing.
 */
import { describe, expect, it } from "vitest";
import { SyncGate, type SyncGateLimits } from "../../../src/storage/sync-gate.js";

function gateAt(limits: Partial<SyncGateLimits> = {}): { gate: SyncGate; clock: { t: number } } {
  const clock = { t: 1000 };
  const gate = new SyncGate({
    maxBytes: 4096,
    slowMs: 5,
    cooldownMs: 100,
    maxCooldownMs: 1000,
    now: () => clock.t,
    ...limits,
  });
  return { gate, clock };
}

/** One synchronous write through the gate that takes `ms`; false if the gate refused it. */
function write(gate: SyncGate, clock: { t: number }, ms: number, bytes = 10): boolean {
  const startedAt = gate.start(bytes);
  if (startedAt === undefined) return false;
  clock.t += ms;
  gate.ran(startedAt);
  return true;
}

describe("SyncGate (write limits as injected)", () => {
  it("lets writes up to maxBytes through, never a larger one", () => {
    const { gate } = gateAt();
    expect(gate.start(4096)).toBe(1000);
    expect(gate.start(0)).toBe(1000);
    expect(gate.start(4097)).toBeUndefined();
  });

  it("stays open while writes take at most slowMs", () => {
    const { gate, clock } = gateAt();
    for (let i = 0; i < 100; i++) expect(write(gate, clock, 5)).toBe(true);
    expect(gate.shut).toBe(false);
  });

  it("a slow write shuts it for cooldownMs, then the next write probes again", () => {
    const { gate, clock } = gateAt();
    expect(write(gate, clock, 6)).toBe(true);
    expect(gate.shut).toBe(true);
    expect(gate.start(10)).toBeUndefined();
    clock.t += 99;
    expect(gate.start(10)).toBeUndefined();
    clock.t += 1;
    expect(gate.shut).toBe(false);
    expect(write(gate, clock, 1)).toBe(true);
  });

  it("a failed write is timed too: ran() after a throw still shuts it when slow", () => {
    const { gate, clock } = gateAt();
    const startedAt = gate.start(10)!;
    try {
      clock.t += 50;
      throw new Error("EIO");
    } catch {
      gate.ran(startedAt);
    }
    expect(gate.shut).toBe(true);
  });

  it("slow again right after reopening doubles the cooldown, up to maxCooldownMs", () => {
    const { gate, clock } = gateAt();
    const shutFor: number[] = [];
    for (let i = 0; i < 6; i++) {
      // Wait until it reopens, then a slow probe.
      while (gate.start(10) === undefined) clock.t += 1;
      const reopenedAt = clock.t;
      expect(write(gate, clock, 20)).toBe(true);
      let t = 0;
      while (gate.shut) {
        clock.t += 1;
        t++;
      }
      shutFor.push(t);
      clock.t = reopenedAt + 20 + t; // where the loop left it
    }
    expect(shutFor).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("a one-off slow write long after the last starts again from cooldownMs", () => {
    const { gate, clock } = gateAt();
    write(gate, clock, 20);
    clock.t += 100;
    write(gate, clock, 20); // lasting: 200
    clock.t += 200;
    expect(gate.shut).toBe(false);
    clock.t += 10_000; // fast writes for a long while
    expect(write(gate, clock, 1)).toBe(true);
    expect(write(gate, clock, 20)).toBe(true);
    clock.t += 99;
    expect(gate.shut).toBe(true);
    clock.t += 1;
    expect(gate.shut).toBe(false);
  });
});
