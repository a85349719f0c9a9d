/**
 * The goal of the file-descriptor work, in a real process under a real limit: a child started
 * with `ulimit -n 256` writes a log directory on FsStorage with far more files than descriptors
 * (2,000 partitions of three files each; one partition rolled to 2,000 segments), flushes, closes
 * it cleanly, reopens it and reads every record back. Before the descriptor pool each segment
 * held three descriptors for as long as it was open, and both failed with EMFILE at the 79th.
 *
 * The child proves the limit is in force (it opens /dev/null until EMFILE) and reports what it
 * used: descriptors open at the end of each phase (from /proc/self/fd), the pool's own peak, and
 * how many files it opened and evicted. The data lives on /dev/shm where there is one, so the
 * test measures descriptors, not the disk's fsync latency (the pool's work is the same).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateBuild } from "../support/private-build.js";

const repo = resolve(import.meta.dirname, "../..");
const child = join(repo, "test/integration/fixtures/fd-limit-child.mjs");
const LIMIT = 256;
const COUNT = 2000;

let buildDir: string;
const dataDirs: string[] = [];

beforeAll(() => {
  // The run's private build of the package (test/support/private-build.ts): dist/ may be rebuilt
  // by other suites at the same time.
  buildDir = privateBuild();
}, 60_000);

afterAll(() => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

interface ChildReport {
  scenario: string;
  count: number;
  limit: number;
  atStart: number;
  spare: number;
  peakDescriptors: number;
  maxOpenFiles: number;
  poolPeak: number;
  opens: [number, number];
  evictions: [number, number];
  evictionSyncs: [number, number];
  phases: Record<string, number>;
  totalMs: number;
}

function runChild(scenario: "partitions" | "segments"): Promise<ChildReport> {
  const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const dir = mkdtempSync(join(base, `pagelog-fd-limit-${scenario}-`));
  dataDirs.push(dir);
  const command = `ulimit -n ${LIMIT} && exec "$0" "$@"`;
  return new Promise((resolvePromise, reject) => {
    execFile(
      "bash",
      ["-c", command, process.execPath, child, dir, scenario, String(COUNT)],
      { env: { ...process.env, PAGELOG_MODULE: join(buildDir, "node.js") }, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err !== null) {
          reject(new Error(`child (${scenario}) failed: ${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`));
          return;
        }
        resolvePromise(JSON.parse(stdout.trim().split("\n").at(-1)!) as ChildReport);
      },
    );
  });
}

function check(report: ChildReport): void {
  console.log(`ulimit -n ${LIMIT}, ${report.count} ${report.scenario}: ${JSON.stringify(report)}`);
  // The limit was in force: the child could not open LIMIT descriptors beyond what it held.
  if (report.limit !== -1) expect(report.limit).toBe(LIMIT);
  expect(report.atStart + report.spare).toBeLessThanOrEqual(LIMIT);
  expect(report.poolPeak).toBeLessThanOrEqual(report.maxOpenFiles);
  if (report.peakDescriptors !== -1)
    expect(report.peakDescriptors).toBeLessThanOrEqual(report.atStart + report.maxOpenFiles + 8);
  // Far more files than descriptors were used: the pool really evicted and reopened.
  expect(report.evictions[0] + report.evictions[1]).toBeGreaterThan(COUNT);
}

describe
  .skipIf(process.platform === "win32")
  .concurrent(`under ulimit -n ${LIMIT} (a real child process on FsStorage)`, () => {
    it(`${COUNT} partitions: append, flush, close, reopen, read back in full`, async () => {
      check(await runChild("partitions"));
    });

    it(`one partition rolled to ${COUNT} segments: append, flush, close, reopen, read back in full`, async () => {
      check(await runChild("segments"));
    });
  });
