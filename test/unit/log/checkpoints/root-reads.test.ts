/*
 * A clean LogDir.open reads the root's files (marker, offset checkpoints, clean points, consumer
 * positions) off one listing of the root, and together: a reopen must not list the root once per
 * checkpoint file nor wait for each read before starting the next.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage, type StorageOp } from "../../../../src/testing/hooked-storage.js";

/** A dir with two partitions, records, a consumer's commit and a clean close. */
async function cleanlyClosed(): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 7 });
  const dir = await LogDir.open(sim);
  for (const name of ["orders-0", "orders-1"]) {
    const log = await dir.log(name);
    await log.append([{ value: new TextEncoder().encode(name) }]);
  }
  await dir.consumer("billing").commit("orders-0", 1);
  await dir.close();
  return sim;
}

/** Every root-level call of a reopen, with how many were in flight when each started. */
async function reopenCalls(sim: SimStorage): Promise<{ op: StorageOp; inFlight: number }[]> {
  const calls: { op: StorageOp; inFlight: number }[] = [];
  let inFlight = 0;
  const hooked = new HookedStorage(sim, async (op, run) => {
    const root = !op.path.includes("/");
    if (root) calls.push({ op, inFlight });
    if (root) inFlight++;
    try {
      return await run();
    } finally {
      if (root) inFlight--;
    }
  });
  const dir = await LogDir.open(hooked);
  await dir.close();
  return calls;
}

describe("LogDir.open: the root's reads", () => {
  it("lists the root once on a clean reopen", async () => {
    const calls = await reopenCalls(await cleanlyClosed());
    const lists = calls.filter((c) => c.op.kind === "list" && c.op.path === "");
    expect(lists.length).toBe(1);
  });

  it("reads the root's checkpoint files together, not one after another", async () => {
    const calls = await reopenCalls(await cleanlyClosed());
    const reads = calls.filter((c) => c.op.kind === "open" || c.op.kind === "stat");
    expect(Math.max(...reads.map((c) => c.inFlight))).toBeGreaterThan(0);
  });
});
