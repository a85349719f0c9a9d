/**
 * `pagelog verify` on a directory that changes as it is read (issue 31): a writer appending,
 * rolling and deleting segments; a file gone between the listing and the read; a file that
 * cannot be read. `--json` always prints one JSON document with the documented exit code, and a
 * live writer holding the lock is named, with what it is in the middle of reported as in
 * progress, not as damage.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { cli, tempDir } from "../helpers.js";

interface JsonReport {
  status: string;
  writer: { pid: number } | null;
  problems: Array<{ path: string; problem: string }>;
  inProgress: Array<{ path: string; problem: string; note?: string }>;
  notes: string[];
  error?: { code: string; message: string };
}

/** Runs `verify --json`; stdout must be exactly one JSON document, whatever happened. */
async function verifyJson(path: string): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const run = await cli(["verify", path, "--json"]);
  let report: JsonReport;
  try {
    report = JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new Error(
      `verify --json printed no JSON (exit ${run.code}): stdout ${JSON.stringify(run.stdout)}, stderr ${run.stderr}`,
    );
  }
  return { code: run.code, report, stderr: run.stderr };
}

const SEGMENT0 = "00000000000000000000";

async function closedLog(segments = 1): Promise<string> {
  const root = tempDir("verify-live");
  const dir = await LogDir.open(root);
  const log = await dir.log("c-0", { segmentBytes: 100 });
  for (let i = 0; i < segments; i++) await log.append([{ value: `record ${i} `.padEnd(40, ".") }]);
  await dir.close();
  return root;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("verify --json on a directory being written", () => {
  it("a writer appending, rolling and deleting segments meanwhile: every run prints JSON, names the writer, finds no damage", async () => {
    const root = tempDir("verify-busy");
    const dir = await LogDir.open(root);
    const logs = await Promise.all(
      ["w-0", "w-1"].map((name) => dir.log(name, { segmentBytes: 200, retentionBytes: 400, indexIntervalBytes: 80 })),
    );
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++)
        await Promise.all(logs.map((log) => log.append([{ key: `k${i}`, value: "v".repeat(40) }])));
    })();
    const runs: Array<{ code: number; report: JsonReport }> = [];
    const removals = () => runs.filter((r) => r.report.notes.some((n) => n.includes("removed while verify read")));
    try {
      // Until the writer deleted files under verify's feet a few times (else this proves nothing).
      // Up to 1,000 runs: a loaded machine gives fewer such races per run (200 once fell short,
      // at load ~10); a quiet one reaches 3 within the first 30 to 200.
      for (let i = 0; i < 1000 && (i < 30 || removals().length < 3); i++) runs.push(await verifyJson(root));
    } finally {
      writing = false;
      await writer;
      await dir.close();
    }
    expect(removals().length).toBeGreaterThanOrEqual(3);
    for (const { code, report } of runs) {
      expect(report.writer).toEqual({ pid: process.pid });
      expect(report.problems).toEqual([]);
      expect([report.status, code]).toEqual(["clean", 0]);
    }
  });

  it("a segment removed between the listing and the read is a note, not an error", async () => {
    const root = await closedLog(4);
    const open = FsStorage.prototype.open;
    vi.spyOn(FsStorage.prototype, "open").mockImplementation(function (this: FsStorage, path, options) {
      // What retention does after verify listed the partition, before it reads the oldest segment:
      // the new log start checkpointed, then the segment below it deleted.
      if (path === `c-0/${SEGMENT0}.log`) {
        const checkpoint = join(root, "log-start-offset-checkpoint");
        writeFileSync(checkpoint, readFileSync(checkpoint, "utf8").replace("c 0 0\n", "c 0 1\n"));
        for (const ext of ["log", "index", "timeindex"])
          rmSync(join(root, "c-0", `${SEGMENT0}.${ext}`), { force: true });
      }
      return open.call(this, path, options);
    });
    const { code, report } = await verifyJson(root);
    expect(report.notes).toContain(
      `c-0/${SEGMENT0}.log: removed while verify read the directory (a writer rolled, cleaned or deleted it): not checked`,
    );
    expect(report.problems).toEqual([]);
    expect([report.status, code]).toEqual(["clean", 0]);
  });

  it("a partition directory removed between the listing and the read is a note", async () => {
    const root = await closedLog(2);
    const stat = FsStorage.prototype.stat;
    vi.spyOn(FsStorage.prototype, "stat").mockImplementation(function (this: FsStorage, path: string) {
      // Verify looks at the cleaner's checkpoint after it listed the partitions, before it reads them.
      if (path === "cleaner-offset-checkpoint") rmSync(join(root, "c-0"), { recursive: true, force: true });
      return stat.call(this, path);
    });
    const { code, report } = await verifyJson(root);
    expect(report.notes).toContain(
      "c-0: removed while verify read the directory (a writer rolled, cleaned or deleted it): not checked",
    );
    expect([report.status, code]).toEqual(["clean", 0]);
  });

  it("a segment that cannot be read is a problem naming it; the rest is still checked", async () => {
    const root = await closedLog(3);
    const open = FsStorage.prototype.open;
    vi.spyOn(FsStorage.prototype, "open").mockImplementation(function (this: FsStorage, path, options) {
      if (path === `c-0/${SEGMENT0}.log`)
        return Promise.reject(new PagelogError(`open "${path}" failed: EACCES: permission denied`, ErrorCode.IO));
      return open.call(this, path, options);
    });
    const { code, report } = await verifyJson(root);
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: `c-0/${SEGMENT0}.log`,
        problem: expect.stringContaining("cannot be read: open"),
      }),
    ]);
    expect([report.status, code]).toEqual(["damaged", 1]);
  });

  it("an error that stops verify is a JSON document with its code and message, and the documented exit code", async () => {
    const root = await closedLog(1);
    vi.spyOn(FsStorage.prototype, "list").mockRejectedValue(
      new PagelogError('list "." failed: EIO: i/o error', ErrorCode.IO),
    );
    const failed = await verifyJson(root);
    expect(failed.code).toBe(1);
    expect(failed.report).toMatchObject({
      status: "error",
      error: { code: "PAGELOG_IO", message: 'list "." failed: EIO: i/o error' },
    });
    expect(failed.stderr).toBe('pagelog verify: list "." failed: EIO: i/o error\n');
    vi.restoreAllMocks();
    for (const args of [
      ["verify", join(root, "nowhere"), "--json"],
      ["verify", "--json", root, "extra"],
    ]) {
      const usage = await cli(args);
      expect(usage.code).toBe(2);
      expect(JSON.parse(usage.stdout)).toMatchObject({ status: "error", error: { code: "USAGE" } });
    }
  });
});

describe("verify: a partition that cannot be read is a finding", () => {
  const cases: Array<[string, (path: string) => Promise<void> | void]> = [
    ["a file", (p) => writeFileSync(p, "not a directory")],
    ["a symbolic link to nowhere", async (p) => (await import("node:fs")).symlinkSync(join(p, "..", "missing"), p)],
    [
      "a FIFO",
      (p) =>
        new Promise<void>((done, fail) =>
          spawn("mkfifo", [p]).on("exit", (c) => (c === 0 ? done() : fail(new Error(`mkfifo exit ${c}`)))),
        ),
    ],
  ];
  for (const [what, make] of cases) {
    it(`c-0, the only partition, is ${what}: damaged, exit 1, naming it`, async () => {
      const root = await closedLog(1);
      rmSync(join(root, "c-0"), { recursive: true });
      await make(join(root, "c-0"));
      const text = await cli(["verify", root]);
      expect(text.code).toBe(1);
      expect(text.stdout).not.toMatch(/^clean/m);
      expect(text.stdout).toMatch(
        /^ {2}c-0 byte 0: named like a partition, but .*dir\.log\("c-0"\)\) fails with PAGELOG_IO/m,
      );
      const { code, report } = await verifyJson(root);
      expect([report.status, code]).toEqual(["damaged", 1]);
      expect(report.problems.map((p) => p.path)).toEqual(["c-0"]);
    });
  }

  it("a partition directory that cannot be listed (chmod 000; skipped when running as root)", async (ctx) => {
    if (process.getuid?.() === 0) ctx.skip();
    const root = await closedLog(1);
    const { chmodSync } = await import("node:fs");
    chmodSync(join(root, "c-0"), 0);
    try {
      const { code, report } = await verifyJson(root);
      expect([report.status, code]).toEqual(["damaged", 1]);
      expect(report.problems[0]!.problem).toMatch(/cannot be read/);
    } finally {
      chmodSync(join(root, "c-0"), 0o755);
    }
  });
});

describe("verify on a directory a live writer holds", () => {
  /** A log a writer holds open, whose active segment ends in a batch still being written. */
  async function heldWithTailInProgress(): Promise<{ root: string; dir: LogDir }> {
    const root = tempDir("verify-held");
    const dir = await LogDir.open(root);
    // One batch a segment: the last is the active one.
    const log = await dir.log("c-0", { segmentBytes: 80 });
    await log.append([{ value: "one" }]);
    await log.append([{ value: "two" }]);
    const file = join(root, "c-0", "00000000000000000001.log");
    // The first 30 bytes of a copy of the last batch: what a reader sees mid-write.
    const bytes = readFileSync(file);
    appendFileSync(file, bytes.subarray(bytes.length / 2, bytes.length / 2 + 30));
    return { root, dir };
  }

  it("says a writer holds the lock; its unflushed tail is in progress, not damage: exit 0", async () => {
    const { root, dir } = await heldWithTailInProgress();
    try {
      const text = await cli(["verify", root]);
      expect(text.stdout).toMatch(new RegExp(`^writer: process ${process.pid} holds the lock \\(\\.lock\\)`, "m"));
      expect(text.stdout).toMatch(/^IN PROGRESS: 1 finding the live writer \(process \d+\) explains, not damage/m);
      expect(text.stdout).toMatch(/the active segment's tail, which process \d+ is writing: expected while it runs/);
      expect(text.stdout).not.toMatch(/DAMAGED/);
      expect(text.code).toBe(0);
      const { code, report } = await verifyJson(root);
      expect(report.writer).toEqual({ pid: process.pid });
      expect(report.inProgress).toEqual([expect.objectContaining({ path: "c-0/00000000000000000001.log" })]);
      expect([report.status, code]).toEqual(["clean", 0]);
      // The partition named alone: the lock is its log directory's.
      expect((await verifyJson(join(root, "c-0"))).report.writer).toEqual({ pid: process.pid });
    } finally {
      await dir.close();
    }
  });

  it("a lock file naming another live process counts; a dead one's is stale: the same tail is damage", async () => {
    const root = await closedLog(1);
    rmSync(join(root, ".kafka_cleanshutdown"));
    appendFileSync(join(root, "c-0", `${SEGMENT0}.log`), Buffer.alloc(20, 7));
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      writeFileSync(join(root, ".lock"), `${sleeper.pid}\n${boot}\n`);
      const live = await verifyJson(root);
      expect(live.report.writer).toEqual({ pid: sleeper.pid });
      expect([live.report.status, live.code]).toEqual(["clean", 0]);
    } finally {
      sleeper.kill();
      await new Promise((done) => sleeper.once("exit", done));
    }
    const stale = await verifyJson(root);
    expect(stale.report.writer).toBeNull();
    expect(stale.report.inProgress).toEqual([]);
    expect([stale.report.status, stale.code]).toEqual(["damaged", 1]);
  });

  it("damage elsewhere is still damage while a writer runs, and says a writer holds the lock", async () => {
    const { root, dir } = await heldWithTailInProgress();
    try {
      // A bad CRC in the first segment, which no writer touches any more.
      const first = join(root, "c-0", `${SEGMENT0}.log`);
      const bytes = readFileSync(first);
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x40;
      writeFileSync(first, bytes);
      const text = await cli(["verify", root]);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(
        /^DAMAGED: \d+ problems? in 1 file \(while process \d+ writes: none of these is what a running writer leaves\)/m,
      );
    } finally {
      await dir.close();
    }
  });
});
