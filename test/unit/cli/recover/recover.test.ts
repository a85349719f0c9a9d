import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { progressPrinter } from "../../../../src/cli/recover/progress.js";
import { cli, tempDir } from "../helpers.js";

/**
 * A log dir as a crash leaves it: written and closed, then the clean-shutdown marker and the
 * recovery-point checkpoint removed (so the next open walks every segment from 0) and garbage
 * appended to the active segment of orders-0 (a torn tail for the recovery to cut).
 */
async function uncleanLogDir(): Promise<string> {
  const dir = tempDir("recover");
  const logDir = await LogDir.open(dir);
  for (const name of ["orders-0", "orders-1"]) {
    const log = await logDir.log(name, { segmentBytes: 1500, indexIntervalBytes: 150 });
    for (let i = 0; i < 60; i++) await log.append([{ key: `k${i}`, value: `value ${i}`.repeat(3) }]);
  }
  await logDir.close();
  rmSync(join(dir, ".kafka_cleanshutdown"));
  rmSync(join(dir, "recovery-point-offset-checkpoint"));
  const logs = readdirSync(join(dir, "orders-0"))
    .filter((f) => f.endsWith(".log"))
    .sort();
  appendFileSync(join(dir, "orders-0", logs[logs.length - 1]!), Buffer.alloc(37, 0xab));
  return dir;
}

const PROGRESS = /^recovering (orders-[01]): \d+(\.\d)? (B|KiB) of \d+(\.\d)? (B|KiB) \(\d+%\), \d+ segments? left$/;

describe("pagelog recover", () => {
  it("recover: an unclean directory prints progress, recovers every partition, closes clean; a second run says clean", async () => {
    const dir = await uncleanLogDir();
    const run = await cli(["recover", dir]);
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(PROGRESS);
    for (const log of ["orders-0", "orders-1"]) {
      const own = lines.filter((l) => l.startsWith(`recovering ${log}:`));
      expect(own.length).toBeGreaterThanOrEqual(2);
      expect(own[0]).toMatch(/: 0 B of .*\(0%\)/);
      expect(own[own.length - 1]).toMatch(/\(100%\), 0 segments left$/);
    }
    expect(run.stdout).toMatch(/no clean-shutdown marker/);
    expect(run.stdout).toMatch(
      /^orders-0: recovered, [2-9]\d* segments, \d+ bytes \(.*\) scanned, 37 bytes truncated, 0 segments deleted, \d+ (index|indexes) rebuilt$/m,
    );
    expect(run.stdout).toMatch(
      /^orders-1: recovered, [2-9]\d* segments, \d+ bytes \(.*\) scanned, 0 bytes truncated,/m,
    );
    expect(run.stdout).toMatch(
      /^recovered: 2 partitions, \d+ segments, \d+ bytes \(.*\) scanned, 37 bytes truncated,/m,
    );
    expect(run.stdout).toMatch(/^closed cleanly/m);
    expect(existsSync(join(dir, ".kafka_cleanshutdown"))).toBe(true);
    expect(existsSync(join(dir, ".lock"))).toBe(false);

    const again = await cli(["recover", dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.stdout).toMatch(/clean-shutdown marker present/);
    expect(again.stdout).toMatch(/^orders-0: clean$/m);
    expect(again.stdout).toMatch(/^orders-1: clean$/m);
    expect(again.stdout).toMatch(/^clean: 2 partitions, nothing to recover$/m);
    expect((await cli(["verify", dir])).code).toBe(0);
  });

  it("recover: --json has each partition's recovery and the directory's totals", async () => {
    const dir = await uncleanLogDir();
    const run = await cli(["recover", "--json", dir]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      root: string;
      closedCleanly: boolean;
      partitions: Array<{ name: string; recovery: { clean: boolean; bytesTruncated: number; bytesScanned: number } }>;
      totals: { clean: boolean; logsOpened: number; bytesScanned: number; bytesTruncated: number };
    };
    expect(report.root).toBe(dir);
    expect(report.closedCleanly).toBe(true);
    expect(report.partitions.map((p) => p.name)).toEqual(["orders-0", "orders-1"]);
    expect(report.partitions.map((p) => p.recovery.clean)).toEqual([false, false]);
    expect(report.partitions[0]!.recovery.bytesTruncated).toBe(37);
    expect(report.totals).toMatchObject({ clean: false, logsOpened: 2, bytesTruncated: 37 });
    expect(report.totals.bytesScanned).toBe(report.partitions.reduce((n, p) => n + p.recovery.bytesScanned, 0));
  });

  it("recover: a missing path, a file, and a folder that is not a log directory are one-line errors, exit 2", async () => {
    const dir = tempDir("recover-bad");
    const missing = await cli(["recover", join(dir, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^pagelog recover: cannot read .*nope: ENOENT\n$/);
    expect(existsSync(join(dir, "nope"))).toBe(false); // never created
    writeFileSync(join(dir, "file.txt"), "x");
    const file = await cli(["recover", join(dir, "file.txt")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/^pagelog recover: .*file\.txt is a file; recover takes a log directory\n$/);
    const notLogDir = await cli(["recover", dir]);
    expect(notLogDir.code).toBe(2);
    expect(notLogDir.stderr).toMatch(/^pagelog recover: .* is not a log directory: [^\n]*\n$/);
    expect(existsSync(join(dir, ".lock"))).toBe(false); // nothing written into a stranger's folder
    expect((await cli(["recover"])).code).toBe(2);
  });

  it("recover: a partition directory is refused, naming the log directory to give instead", async () => {
    const dir = await uncleanLogDir();
    const run = await cli(["recover", join(dir, "orders-0")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `pagelog recover: ${join(dir, "orders-0")} is a partition directory; recover takes the log directory that holds it (${dir})\n`,
    );
  });

  it("recover: a log the loader refuses is a one-line error, exit 1, and the directory stays unclean and unlocked", async () => {
    const dir = await uncleanLogDir();
    writeFileSync(join(dir, "orders-1", "00000000000000000000.log.swap"), "");
    const run = await cli(["recover", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split("\n").pop()).toMatch(/^pagelog recover: .*swap/);
    expect(run.stdout).toBe("");
    expect(existsSync(join(dir, ".kafka_cleanshutdown"))).toBe(false); // the next open recovers again
    expect(existsSync(join(dir, ".lock"))).toBe(false);
  });

  it("recover: a directory whose lock is held is a one-line PAGELOG_LOCKED error, exit 2, and changes nothing", async () => {
    const dir = await uncleanLogDir();
    const holder = await LogDir.open(dir);
    try {
      const run = await cli(["recover", dir]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^pagelog recover: .* is open in another process \(PAGELOG_LOCKED: [^\n]*\)\n$/);
      expect(run.stdout).toBe("");
    } finally {
      await holder.close();
    }
  });

  it("recover: progress is throttled to the first, the last and one line per step of the walk", () => {
    let out = "";
    const printer = progressPrinter({ write: (t: string) => (out += t) }, false, 0.1);
    const total = 1000;
    for (let walked = 0; walked <= total; walked++)
      printer.listener({
        log: "big-0",
        bytesWalked: walked * 1000,
        bytesToWalk: total * 1000,
        segmentsWalked: walked,
        segmentsLeft: total - walked,
      });
    const lines = out.trimEnd().split("\n");
    expect(lines.length).toBe(11); // 0%, 10%, …, 100%
    expect(lines[0]).toBe("recovering big-0: 0 B of 976.6 KiB (0%), 1000 segments left");
    expect(lines[10]).toBe("recovering big-0: 976.6 KiB of 976.6 KiB (100%), 0 segments left");

    let tty = "";
    const redraw = progressPrinter({ write: (t: string) => (tty += t) }, true, 0.5);
    for (let walked = 0; walked <= 4; walked++)
      redraw.listener({
        log: "a-0",
        bytesWalked: walked,
        bytesToWalk: 4,
        segmentsWalked: walked,
        segmentsLeft: 4 - walked,
      });
    redraw.listener({ log: "b-0", bytesWalked: 0, bytesToWalk: 0, segmentsWalked: 0, segmentsLeft: 1 });
    redraw.end();
    expect(tty.split("\n")).toEqual([
      "\rrecovering a-0: 0 B of 4 B (0%), 4 segments left\x1b[K\rrecovering a-0: 2 B of 4 B (50%), 2 segments left\x1b[K\rrecovering a-0: 4 B of 4 B (100%), 0 segments left\x1b[K",
      "\rrecovering b-0: 0 B of 0 B (0%), 1 segment left\x1b[K",
      "",
    ]);
  });
});
