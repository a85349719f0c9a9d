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
    graceMs: 5,
    minBytesPerMs: Infinity,
    cooldownMs: 100,
    maxCooldownMs: 1000,
    turnBudgetMs: Infinity, // the turn budget has its own tests below
    now: () => clock.t,
    nextTurn: () => {},
    ...limits,
  });
  return { gate, clock };
}

/** One synchronous write through the gate that takes `ms`; false if the gate refused it. */
function write(gate: SyncGate, clock: { t: number }, ms: number, bytes = 10): boolean {
  const startedAt = gate.start(bytes);
  if (startedAt === undefined) return false;
  clock.t += ms;
  gate.ran(startedAt, bytes);
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

describe("SyncGate: a slow device (calls that take longer than their size predicts)", () => {
  /** The default limits' rules on an injected clock: 32 KiB a call, 1 ms + the bytes at 50 MB/s. */
  function deviceGate(): { gate: SyncGate; clock: { t: number } } {
    return gateAt({ maxBytes: 32 * 1024, slowMs: 10, graceMs: 1, minBytesPerMs: 50_000 });
  }

  it("a call slower than the cooldown, probe after probe, is lasting slowness: the cooldown still doubles", () => {
    // A device mounted -o sync at 2 MB/s: every 250 ms probe ends after the next reopening would have.
    const { gate, clock } = gateAt();
    const shutFor: number[] = [];
    for (let i = 0; i < 6; i++) {
      while (gate.start(10) === undefined) clock.t += 1;
      expect(write(gate, clock, 250)).toBe(true);
      const endedAt = clock.t;
      while (gate.shut) clock.t += 1;
      shutFor.push(clock.t - endedAt);
    }
    expect(shutFor).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("a call moving its bytes slower than the page cache shuts the gate even under slowMs", () => {
    const { gate, clock } = deviceGate();
    expect(write(gate, clock, 1.6, 32 * 1024)).toBe(true); // 20 MB/s: within 1 ms + 0.66 ms
    expect(gate.shut).toBe(false);
    expect(write(gate, clock, 3.3, 32 * 1024)).toBe(true); // 10 MB/s, well under slowMs
    expect(gate.shut).toBe(true);
  });

  it("a call of no bytes (open, stat) is slow only past slowMs", () => {
    const { gate, clock } = deviceGate();
    expect(write(gate, clock, 10, 0)).toBe(true);
    expect(gate.shut).toBe(false);
    expect(write(gate, clock, 10.5, 0)).toBe(true);
    expect(gate.shut).toBe(true);
    expect(gate.callBytes).toBe(32 * 1024); // it says nothing of the device's speed
  });

  it("learns the device's speed: a probe moves what it moves in graceMs, fast calls double it back", () => {
    const { gate, clock } = deviceGate();
    expect(write(gate, clock, 8, 16 * 1024)).toBe(true); // 2 MB/s
    expect(gate.callBytes).toBe(4096); // 2 KB in 1 ms, but never under a page
    clock.t += 100;
    expect(gate.start(4097)).toBeUndefined(); // open again, but not for a call that large
    expect(write(gate, clock, 0.01, 4096)).toBe(true); // the cache holds it now
    expect(gate.callBytes).toBe(8192);
    for (let i = 0; i < 3; i++) write(gate, clock, 0.01, gate.callBytes);
    expect(gate.callBytes).toBe(32 * 1024);
    write(gate, clock, 0.01, 32 * 1024);
    expect(gate.callBytes).toBe(32 * 1024); // never past maxBytes
  });

  it("a faster slow device learns a larger probe", () => {
    const { gate, clock } = deviceGate();
    write(gate, clock, 2, 32 * 1024); // 16 MB/s: 16 KiB in 1 ms
    expect(gate.shut).toBe(true);
    expect(gate.callBytes).toBe(16 * 1024);
  });
});

describe("SyncGate: the budget of one event-loop turn", () => {
  /** A gate whose turns end when the test says, with a 10 ms budget. */
  function turnGate(): { gate: SyncGate; clock: { t: number }; endTurn: () => void } {
    const pending: (() => void)[] = [];
    const { gate, clock } = gateAt({ turnBudgetMs: 10, nextTurn: (cb) => void pending.push(cb) });
    return { gate, clock, endTurn: () => pending.splice(0).forEach((cb) => cb()) };
  }

  it("lets fast calls through for the budget after the turn's first one, then sends them to the pool", () => {
    const { gate, clock } = turnGate();
    let sync = 0;
    while (sync < 1000 && write(gate, clock, 1)) sync++;
    // Calls starting at 0, 1, … 10 ms after the first are within the budget; the 12th starts at 11.
    expect(sync).toBe(11);
    expect(gate.shut).toBe(false); // none was slow: only this turn is over
  });

  it("starts a new budget on the next turn of the event loop", () => {
    const { gate, clock, endTurn } = turnGate();
    for (let i = 0; i < 1000 && write(gate, clock, 1); i++);
    expect(write(gate, clock, 1)).toBe(false);
    endTurn();
    expect(write(gate, clock, 1)).toBe(true);
  });

  it("asks for one turn per budget, not one per call", () => {
    const turns: (() => void)[] = [];
    const { gate, clock } = gateAt({ turnBudgetMs: 10, nextTurn: (cb) => void turns.push(cb) });
    for (let i = 0; i < 5; i++) write(gate, clock, 0);
    expect(turns.length).toBe(1);
  });

  it("on a real event loop, the budget ends with the turn (setImmediate)", async () => {
    // The default nextTurn (setImmediate) with a budget of 0: the second call of a turn is refused.
    const gate = new SyncGate({
      maxBytes: 4096,
      slowMs: 5,
      graceMs: 5,
      minBytesPerMs: Infinity,
      cooldownMs: 100,
      maxCooldownMs: 1000,
      turnBudgetMs: -1,
      now: () => 0,
      nextTurn: (cb) => setImmediate(cb),
    });
    expect(gate.start(1)).toBe(0);
    expect(gate.start(1)).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.start(1)).toBe(0);
  });
});

describe("SyncGate: a busy machine is not a slow device (the thread's wait for a CPU)", () => {
  /** A gate whose CPU-wait counter the test moves; `call` as `write` above, descheduled `waited` ms of it. */
  function busyGate(limits: Partial<SyncGateLimits> = {}) {
    const counter = { waitedMs: 0, reads: 0 };
    const { gate, clock } = gateAt({
      cpuWaitMs: () => {
        counter.reads++;
        return counter.waitedMs;
      },
      watchMs: 1000,
      ...limits,
    });
    /** A synchronous call of `ms`, `waited` of which the thread spent waiting for a CPU. */
    const call = (ms: number, waited = 0): boolean => {
      const startedAt = gate.start(10);
      if (startedAt === undefined) return false;
      clock.t += ms;
      counter.waitedMs += waited;
      gate.ran(startedAt, 10);
      return true;
    };
    const reopen = () => {
      while (gate.shut) clock.t += 1;
    };
    return { gate, clock, counter, call, reopen };
  }

  it("reads no counter while no call was slow", () => {
    const { gate, counter, call } = busyGate();
    for (let i = 0; i < 100; i++) expect(call(1)).toBe(true);
    expect(counter.reads).toBe(0);
    expect(gate.shut).toBe(false);
  });

  it("the first slow call shuts it (nothing to judge it by); later descheduled ones do not", () => {
    const { gate, call, reopen } = busyGate();
    expect(call(20, 19)).toBe(true);
    expect(gate.shut).toBe(true);
    reopen();
    for (let i = 0; i < 20; i++) {
      expect(call(1)).toBe(true);
      // 30 ms, 25 of them waiting for a CPU: 5 ms of its own, within slowMs.
      expect(call(30, 25)).toBe(true);
      expect(gate.shut).toBe(false);
    }
  });

  it("a slow call the CPU wait does not cover shuts it: it waited for the device", () => {
    const { gate, call, reopen } = busyGate();
    call(20);
    reopen();
    expect(call(1)).toBe(true);
    expect(call(30, 20)).toBe(true); // 10 ms of its own, past slowMs (5): 5 ms not covered
    expect(gate.shut).toBe(true);
    reopen();
    expect(call(20)).toBe(true); // never descheduled
    expect(gate.shut).toBe(true);
  });

  it("a CPU wait earlier in the window excuses a slow call once; the next calls are judged alone", () => {
    const { gate, counter, call, reopen } = busyGate();
    call(20);
    reopen();
    for (let i = 0; i < 64; i++) call(1); // past the calls judged alone after the shut
    expect(call(1)).toBe(true); // the window's first call
    counter.waitedMs += 50; // descheduled between the calls
    expect(call(20)).toBe(true); // a 20 ms device wait: the window's 50 ms cover it
    expect(gate.shut).toBe(false);
    expect(call(1)).toBe(true);
    counter.waitedMs += 50;
    expect(call(20)).toBe(true); // judged alone now: 0 ms of its own wait
    expect(gate.shut).toBe(true);
  });

  it("reads the counter every 8 calls while watchful, around each call for 64 after a shut", () => {
    const { counter, call, reopen } = busyGate();
    call(20);
    reopen();
    let reads = counter.reads;
    for (let i = 0; i < 64; i++) call(1);
    expect(counter.reads - reads).toBe(64);
    reads = counter.reads;
    for (let i = 0; i < 80; i++) call(1);
    expect(counter.reads - reads).toBe(10);
  });

  it("probes after a shut are judged by their own wait", () => {
    const { gate, counter, call, reopen } = busyGate();
    call(20);
    reopen();
    counter.waitedMs += 50;
    expect(call(20)).toBe(true);
    expect(gate.shut).toBe(true);
  });

  it("every slow call starts a fresh window: a CPU wait counts for one call only", () => {
    const { gate, call, reopen } = busyGate();
    call(20);
    reopen();
    expect(call(40, 40)).toBe(true);
    expect(gate.shut).toBe(false);
    expect(call(20)).toBe(true);
    expect(gate.shut).toBe(true);
  });

  it("stops reading the counter watchMs after the last slow call", () => {
    const { gate, clock, counter, call, reopen } = busyGate({ watchMs: 500 });
    call(20);
    reopen();
    clock.t += 500;
    const reads = counter.reads;
    for (let i = 0; i < 100; i++) call(1);
    expect(counter.reads).toBe(reads);
    // A slow call now is judged as the first one was: it shuts the gate.
    expect(call(20, 20)).toBe(true);
    expect(gate.shut).toBe(true);
  });

  it("without the counter (not Linux) every slow call shuts it, as before", () => {
    const { gate, call, reopen } = busyGate({ cpuWaitMs: () => undefined });
    call(20, 20);
    reopen();
    expect(call(20, 20)).toBe(true);
    expect(gate.shut).toBe(true);
  });
});
