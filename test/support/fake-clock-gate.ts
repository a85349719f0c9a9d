/*
 * A SyncGate for tests of FsFile's synchronous paths: 64-byte calls at most (a larger request
 * goes in parts), slow at 5 ms whatever their size, on an injected clock, with no turn budget (the
 * tests' calls all run in one event-loop turn; the budget has its own tests in sync-gate.test.ts).
 */
import { SyncGate } from "../../src/storage/sync-gate.js";

export function fakeClockGate(now: () => number): SyncGate {
  return new SyncGate({
    maxBytes: 64,
    slowMs: 5,
    graceMs: 5,
    minBytesPerMs: Infinity,
    cooldownMs: 100,
    maxCooldownMs: 1000,
    turnBudgetMs: Infinity,
    now,
    nextTurn: () => {},
  });
}
