// The alarm for a test file that outgrows its tier (docs/testing.md, "Test tiers"). Every tier's
// project in vitest.config.ts provides `fileLimits`: how many seconds one file may take. A file
// over its CPU-seconds limit fails (its afterAll throws, naming the file, the figures and the
// way out: make it smaller, or `git mv` it to the next tier); a file over its wall-clock limit
// only warns, because wall time on a shared 2-core machine measures the neighbours as much as
// the file. CPU time is this worker's own (process.cpuUsage), so it does not count child
// processes: the tiers that spawn them are held by their wall-clock warning and their testTimeout.
import { afterAll, inject } from "vitest";
import { BUDGET } from "../support/budget.js";
import { fileTimeVerdict } from "../support/file-time.js";

// Set when the worker imports this setup file, just before the test file itself: the window
// includes the file's own imports and collection, which a contributor waits for too.
const startWall = performance.now();
const startCpu = process.cpuUsage();

afterAll(() => {
  const limits = inject("fileLimits");
  // The limits are for the ci budget's sizes; a soak is ten times longer on purpose.
  if (limits === undefined || BUDGET === "soak") return;
  const cpu = process.cpuUsage(startCpu);
  const verdict = fileTimeVerdict(
    { wallSeconds: (performance.now() - startWall) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 },
    limits,
  );
  if (verdict.warning !== undefined) console.warn(verdict.warning);
  if (verdict.failure !== undefined) throw new Error(verdict.failure);
});
