/**
 * A crash between the clean point's write and its group's swap (issue 22, Deliver 3): the clean
 * point then lies past a group that was never cleaned, so an older value of a key can sit below
 * it beside that key's tombstone. A later cleaning past the tombstone's retention must not drop
 * the tombstone while it keeps the older value: that would bring a deleted key back.
 */
import { describe, expect, it } from "vitest";
import { LogDir as Dir } from "../../../../src/node.js";
import { keepEverything, SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { NAME, readAll } from "../helpers.js";

function testClock(start: number): { now(): number; t: number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

describe("a cleaning after a crash that left a group below the clean point uncleaned", () => {
  it("keeps a tombstone while an older value of its key is still there", async () => {
    const clock = testClock(10_000);
    const options = {
      cleanupPolicy: "compact",
      segmentBytes: 300,
      indexIntervalBytes: 64,
      deleteRetentionMs: 1_000,
      clock,
    } as const;
    const sim = new SimStorage({ seed: 3 });
    // The process dies at the first .cleaned file: after the clean point moved past the group.
    let armed = false;
    const dies = new HookedStorage(sim, (op, run) =>
      armed && op.path.endsWith(".cleaned") ? Promise.reject(new Error("killed")) : run(),
    );
    const first = await Dir.open(dies, { log: options });
    const log = await first.log(NAME);
    await log.append([{ key: "gone", value: "old value", timestamp: 1_000 }]);
    await log.append([{ key: "gone", value: null, timestamp: 1_001 }]);
    for (let i = 0; i < 30; i++) await log.append([{ key: `other-${i}`, value: `v${i}`, timestamp: 1_002 + i }]);
    await log.flush();
    armed = true;
    await expect(log.compact()).rejects.toThrow();
    const rebooted = sim.crash(keepEverything);

    // After the reboot: more records, then a cleaning once the tombstone's retention is over.
    clock.t += 1_000_000;
    const dir = await Dir.open(rebooted, { log: options });
    const again = await dir.log(NAME);
    expect(again.status).toBe("open");
    for (let i = 30; i < 60; i++)
      await again.append([{ key: `other-${i % 35}`, value: `w${i}`, timestamp: 2_000 + i }]);
    await again.flush();
    await again.compact();
    await again.compact();
    const left = (await readAll(again)).filter((r) => r.key === "gone");
    // Either both went, or the tombstone is still the key's latest: never the old value alone.
    if (left.length > 0) expect(left.at(-1)!.value).toBeNull();
    await dir.close();
  });
});
