/**
 * SimStorage forgets what no power cut can bring back: a long run on one storage (the fuzzer,
 * the web page) keeps only the files a name or an unsynced directory change still reaches.
 * Structural, not timed: the storage's own count of the files and page bytes it holds.
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../src/log/log-dir.js";
import { SimStorage } from "../../src/storage/sim-storage.js";

const MiB = 1024 * 1024;

describe("SimStorage memory over long runs", () => {
  it("2,000 LogDir open/close cycles keep the storage's memory bounded", async () => {
    const sim = new SimStorage({ seed: 1 });
    let after100 = 0;
    for (let i = 0; i < 2000; i++) {
      const dir = await LogDir.open(sim);
      const log = await dir.log("orders-0");
      if (i % 10 === 0) await log.append([{ value: `cycle ${i}` }]);
      await dir.close();
      if (i === 99) after100 = sim.memory().bytes;
    }
    const { files, bytes } = sim.memory();
    expect(files).toBeLessThan(20);
    expect(bytes).toBeLessThan(1 * MiB);
    expect(bytes).toBeLessThanOrEqual(after100 + 64 * 1024);
  }, 60_000);

  it("retention cycling 64 MiB through a 256 KiB log keeps a few MiB", async () => {
    const sim = new SimStorage({ seed: 2 });
    const dir = await LogDir.open(sim);
    const log = await dir.log("orders-0", { segmentBytes: 64 * 1024, retentionBytes: 256 * 1024 });
    const value = new Uint8Array(16 * 1024).fill(7);
    for (let written = 0; written < 64 * MiB; written += value.length) await log.append([{ value }]);
    expect(log.size).toBeLessThan(400 * 1024);
    const { files, bytes } = sim.memory();
    expect(files).toBeLessThan(40);
    expect(bytes).toBeLessThan(4 * MiB);
    await dir.close();
  }, 60_000);

  it("flushes that checkpoint every time (checkpointIntervalMs 0) do not accumulate replaced checkpoint files", async () => {
    const sim = new SimStorage({ seed: 3 });
    const dir = await LogDir.open(sim, { checkpointIntervalMs: 0 });
    const log = await dir.log("orders-0");
    for (let i = 0; i < 3000; i++) {
      await log.append([{ value: `r${i}` }]);
      await log.flush();
    }
    const { files, bytes } = sim.memory();
    expect(files).toBeLessThan(20);
    expect(bytes).toBeLessThan(1 * MiB);
    await dir.close();
  }, 60_000);
});
