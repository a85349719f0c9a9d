/**
 * The engine's check of what a recovery claims durable (`AdapterLog.recoveredFiles`), on
 * SimStorage's own view: a file is durable only if a power cut now would leave it exactly as it
 * reads. Each way a file can fall short (its size, its bytes) is named; a file that is not there
 * and a log that lists nothing are fine; the check makes no storage operation.
 */
import { describe, expect, it } from "vitest";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { AdapterLog } from "../../../../src/testing/engine/adapter.js";
import { checkRecoveredFiles } from "../../../../src/testing/engine/recovered-files.js";
import { CrashViolation } from "../../../../src/testing/engine/violation.js";

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);

/** A log that only lists files (the check calls nothing else). */
const listing = (paths?: readonly string[]): AdapterLog =>
  ({ ...(paths === undefined ? {} : { recoveredFiles: () => paths }) }) as AdapterLog;

async function disk(): Promise<SimStorage> {
  const sim = new SimStorage({ pageSize: 512, sectorSize: 512 });
  const f = await sim.open("synced", { create: true });
  await f.write(0, bytes(1000, 1));
  await f.sync();
  await f.close();
  await sim.syncDir("");
  return sim;
}

function check(sim: SimStorage, log: AdapterLog): string | undefined {
  try {
    checkRecoveredFiles(sim, log, ["step"], "after a crash step");
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(CrashViolation);
    return (err as Error).message;
  }
}

describe("checkRecoveredFiles", () => {
  it("passes a synced file, a missing one and a log that lists nothing, without a storage operation", async () => {
    const sim = await disk();
    const ops = sim.opCount;
    expect(check(sim, listing(["synced", "missing"]))).toBeUndefined();
    expect(check(sim, listing())).toBeUndefined();
    expect(sim.opCount).toBe(ops);
  });

  it("names a file whose size change is not durable (a cut not synced)", async () => {
    const sim = await disk();
    const f = await sim.open("synced");
    await f.truncate(300);
    const message = check(sim, listing(["synced"]));
    expect(message).toMatch(
      /^after a crash step: recovery left synced not durable, though the log counts on it from now on: it reads 300 bytes but its durable size is 1000/,
    );
    expect(message).toMatch(/--- last steps ---\nstep/);
  });

  it("names the bytes only in the page cache when the size is durable (a rebuild rewritten in place)", async () => {
    const sim = await disk();
    const f = await sim.open("synced");
    await f.write(600, bytes(50, 2));
    expect(check(sim, listing(["synced"]))).toMatch(/bytes \[600, 650\) are only in the page cache/);
    await f.sync();
    expect(check(sim, listing(["synced"]))).toBeUndefined();
  });

  it("passes bytes rewritten with what the disk already holds", async () => {
    const sim = await disk();
    const f = await sim.open("synced");
    await f.write(0, bytes(1000, 1));
    expect(check(sim, listing(["synced"]))).toBeUndefined();
  });
});
