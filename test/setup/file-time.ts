// The alarm for a test file that outgrows its tier (docs/testing.md, "Test tiers"). Every tier's
// project in vitest.config.ts provides `fileLimits`: how many seconds one file may take. A file
// over its CPU-seconds limit fails (its afterAll throws, naming the file, the figures and the
// way out: make it smaller, or `git mv` it to the next tier); a file over its wall-clock limit
// only warns, because wall time on a shared 2-core machine measures the neighbours as much as
// the file. CPU time is this worker's own (process.cpuUsage), so it does not count child
// processes: the tiers that spawn them are held by their wall-clock warning and their testTimeout.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect, inject } from "vitest";
import { BUDGET } from "../support/budget.js";
import { fileTimeVerdict } from "../support/file-time.js";

// Set when the worker imports this setup file, just before the test file itself: the window
// includes the file's own imports and collection, which a contributor waits for too.
const startWall = performance.now();
const startCpu = process.cpuUsage();
const startChildren = childrenCpuSeconds();
const startedAt = Date.now();

/**
 * CPU seconds of this worker's child processes that have ended (Linux: /proc/self/stat's cutime
 * and cstime, which also hold their own reaped children's), or undefined where there is no /proc.
 * For the profile below only: the alarm itself counts the worker's own CPU.
 */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces) start at field 3; cutime, cstime are 16, 17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

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
  // PAGELOG_FILE_TIMES=<file>: one JSON line per test file, to profile a run (docs/testing.md).
  const record = process.env.PAGELOG_FILE_TIMES;
  if (record !== undefined && record !== "") {
    const children = childrenCpuSeconds();
    const line = {
      file: expect.getState().testPath,
      tier: limits.tier,
      startedAt,
      wallSeconds: (performance.now() - startWall) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      childCpuSeconds: children === undefined || startChildren === undefined ? null : children - startChildren,
      pid: process.pid,
    };
    appendFileSync(record, `${JSON.stringify(line)}\n`);
  }
  if (verdict.failure !== undefined) throw new Error(verdict.failure);
});
