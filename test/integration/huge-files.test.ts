/**
 * Files of gigabytes on the real file system (sparse: `truncate` costs no disk): checkpoints,
 * indexes and segments of 2^31 − 1 … 10 GiB. Opening gives the right records or a PagelogError,
 * `verify` and `dump` give a verdict, and none of them aborts the process: Node 20 dies with
 * `Assertion failed: args[3]->IsInt32()` (exit 134, uncatchable) if a read length past 2^31 − 1
 * ever reaches node:fs, and leaks an internal message for a buffer it cannot allocate.
 *
 * In-process checks give the exact answers; child processes (a private build, run with
 * --max-old-space-size=256) prove the "no abort" property, which no in-process test can.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateBuild } from "../support/private-build.js";
import { ErrorCode, isPagelogError, LogDir } from "../../src/index.js";
import { cli } from "../unit/cli/helpers.js";

const GiB = 2 ** 30;
const PARTITION = "huge-0";
const OPTIONS = { segmentBytes: 1500, indexIntervalBytes: 100 };
const RECORDS = 40;
const SIZES = [3 * GiB, 4 * GiB + 1, 10 * GiB];
const LOG_SIZES = [2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1];

let work: string;
let template: string;
let segments: string[];
let buildDir: string;

const valueAt = (offset: number) => `value ${offset} `.padEnd(40, "x");

/** A fresh copy of the cleanly closed template; `unclean` removes the clean-shutdown marker. */
function copy(name: string, unclean = false): string {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  if (unclean) rmSync(join(dir, ".kafka_cleanshutdown"));
  return dir;
}

async function readBack(dir: string): Promise<{ values: string[]; indexesRebuilt: number; bytesTruncated: number }> {
  const logDir = await LogDir.open(dir);
  try {
    const log = await logDir.log(PARTITION, OPTIONS);
    const values: string[] = [];
    for await (const r of log.records()) values.push(new TextDecoder().decode(r.value!));
    return { values, indexesRebuilt: logDir.recovery.indexesRebuilt, bytesTruncated: logDir.recovery.bytesTruncated };
  } finally {
    await logDir.close();
  }
}

const allValues = () => Array.from({ length: RECORDS }, (_, i) => valueAt(i));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pagelog-huge-"));
  template = join(work, "template");
  const logDir = await LogDir.open(template);
  const log = await logDir.log(PARTITION, OPTIONS);
  for (let i = 0; i < RECORDS; i++)
    await log.append([{ key: `k${i}`, value: valueAt(i), timestamp: 1_700_000_000_000 + i }]);
  await logDir.close();
  segments = (await import("node:fs"))
    .readdirSync(join(template, PARTITION))
    .filter((n) => n.endsWith(".log"))
    .sort();
  expect(segments.length).toBeGreaterThan(1);
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("huge files, in process: the right records or a PagelogError", () => {
  for (const file of ["recovery-point-offset-checkpoint", "log-start-offset-checkpoint"]) {
    for (const size of SIZES) {
      for (const unclean of [false, true]) {
        it(`a ${size}-byte ${file} (${unclean ? "unclean" : "clean"}) is malformed: every record reads back`, async () => {
          const dir = copy("cp", unclean);
          truncateSync(join(dir, file), size);
          expect((await readBack(dir)).values).toEqual(allValues());
        });
      }
    }
  }

  for (const size of [2 ** 31 + 1, 3 * GiB, 10 * GiB]) {
    it(`a stale ${size}-byte .lock is read only as far as a lock file goes, and taken over`, async () => {
      const dir = copy("lock");
      writeFileSync(join(dir, ".lock"), "");
      truncateSync(join(dir, ".lock"), size);
      expect((await readBack(dir)).values).toEqual(allValues());
    });
  }

  for (const suffix of [".index", ".timeindex"]) {
    for (const size of SIZES) {
      for (const unclean of [false, true]) {
        it(`a ${size}-byte ${suffix} (${unclean ? "unclean" : "clean"}) is rebuilt without being read`, async () => {
          const dir = copy("ix", unclean);
          const path = join(dir, PARTITION, segments[0]!.replace(".log", suffix));
          truncateSync(path, size);
          const got = await readBack(dir);
          expect(got.values).toEqual(allValues());
          expect(got.indexesRebuilt).toBeGreaterThanOrEqual(1);
          expect(statSync(path).size).toBeLessThan(4096);
        });
      }
    }
  }

  for (const size of LOG_SIZES) {
    it(`a last .log of ${size} bytes (zeros after the batches): unclean, recovery cuts the zeros; clean, PAGELOG_CORRUPT and the file untouched`, async () => {
      const last = segments[segments.length - 1]!;
      const original = readFileSync(join(template, PARTITION, last));
      const unclean = copy("log-unclean", true);
      truncateSync(join(unclean, PARTITION, last), size);
      const got = await readBack(unclean);
      expect(got.values).toEqual(allValues());
      expect(got.bytesTruncated).toBe(size - original.length);
      expect(statSync(join(unclean, PARTITION, last)).size).toBe(original.length);

      const clean = copy("log-clean");
      const path = join(clean, PARTITION, last);
      truncateSync(path, size);
      let thrown: unknown;
      try {
        await readBack(clean);
      } catch (err) {
        thrown = err;
      }
      expect(isPagelogError(thrown, ErrorCode.CORRUPT), String(thrown)).toBe(true);
      expect(statSync(path).size).toBe(size);
      const head = Buffer.alloc(original.length + 4096);
      const fd = (await import("node:fs")).openSync(path, "r");
      (await import("node:fs")).readSync(fd, head, 0, head.length, 0);
      (await import("node:fs")).closeSync(fd);
      expect(head.subarray(0, original.length).equals(original)).toBe(true);
      expect(head.subarray(original.length).every((b) => b === 0)).toBe(true);
    });
  }
});

describe("huge files, in process: verify and dump give a verdict", () => {
  it("verify: a 10 GiB .timeindex and a 3 GiB .index are problems naming the unread bytes, exit 1", async () => {
    const dir = copy("verify");
    const base = join(dir, PARTITION, segments[0]!.replace(".log", ""));
    truncateSync(`${base}.timeindex`, 10 * GiB);
    truncateSync(`${base}.index`, 3 * GiB);
    const run = await cli(["verify", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\.timeindex byte \d+: the file is 10737418240 bytes: \d+ entries, more than a \.log of \d+ bytes can need \(at most \d+\); bytes from \d+ on were not read/,
    );
    expect(run.stdout).toMatch(/\.index byte \d+: the file is 3221225472 bytes: /);
  });

  it("verify: a 3 GiB recovery-point checkpoint is malformed (a note), the logs still verify clean", async () => {
    const dir = copy("verify-cp");
    truncateSync(join(dir, "recovery-point-offset-checkpoint"), 3 * GiB);
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^note: recovery-point-offset-checkpoint: malformed: 3221225472 bytes, more than the \d+ a checkpoint of 1 partition can need/m,
    );
  });

  it("dump: a 10 GiB .timeindex alone, and beside its .log, is one clear report, not Node's message", async () => {
    const dir = copy("dump");
    const base = join(dir, PARTITION, segments[0]!.replace(".log", ""));
    truncateSync(`${base}.timeindex`, 10 * GiB);
    const beside = await cli(["dump", `${base}.timeindex`]);
    expect(beside.stderr).toBe("");
    expect(beside.code).toBe(0);
    expect(beside.stdout).toMatch(
      /^DAMAGED at byte \d+: the file is 10737418240 bytes: \d+ entries, more than a \.log of \d+ bytes can need/m,
    );
    rmSync(`${base}.log`);
    const alone = await cli(["dump", "--json", `${base}.timeindex`]);
    expect(alone.code).toBe(0);
    const file = (
      JSON.parse(alone.stdout) as {
        files: Array<{
          size: number;
          entries: Array<{ slot: number; repeats?: number }>;
          fileProblems: Array<{ problem: string }>;
        }>;
      }
    ).files[0]!;
    expect(file.size).toBe(10 * GiB);
    // The entries written, then the zeros up to 16 MiB as one entry and a count.
    const last = file.entries.at(-1)!;
    expect(last.slot + (last.repeats ?? 0) + 1).toBe(Math.floor((16 * 2 ** 20) / 12));
    expect(file.entries.length).toBeLessThan(100);
    expect(file.fileProblems.at(-1)!.problem).toMatch(
      /more than the 16777216 bytes read of an index without its \.log/,
    );
  });
});

describe("huge files, in a child process: never an abort", () => {
  beforeAll(() => {
    // The run's private build (test/support/private-build.ts): the library and the CLI.
    buildDir = privateBuild();
  }, 60_000);

  function node(args: string[]): {
    status: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  } {
    const run = spawnSync(process.execPath, ["--max-old-space-size=256", ...args], {
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
  }

  function expectNoAbort(run: ReturnType<typeof node>, what: string): void {
    expect(run.signal, `${what}: ${run.stderr}`).toBe(null);
    expect(run.status, `${what}: ${run.stderr}`).not.toBe(134);
    expect(run.stderr, what).not.toMatch(/Assertion failed|node:internal|ERR_[A-Z_]+|at [^\n]+\(/);
  }

  it("LogDir.open with a 1.5 GiB .lock, a 3 GiB checkpoint, a 4 GiB + 1 .index and a 10 GiB .timeindex reads every record", () => {
    const dir = copy("child-open");
    writeFileSync(join(dir, ".lock"), "");
    truncateSync(join(dir, ".lock"), 1.5 * GiB);
    truncateSync(join(dir, "recovery-point-offset-checkpoint"), 3 * GiB);
    truncateSync(join(dir, "log-start-offset-checkpoint"), 10 * GiB);
    truncateSync(join(dir, PARTITION, segments[0]!.replace(".log", ".index")), 4 * GiB + 1);
    truncateSync(join(dir, PARTITION, segments[1]!.replace(".log", ".timeindex")), 10 * GiB);
    const script = join(work, "open.mjs");
    writeFileSync(
      script,
      `import { LogDir } from ${JSON.stringify(join(buildDir, "node.js"))};
const dir = await LogDir.open(process.argv[2]);
const log = await dir.log(${JSON.stringify(PARTITION)}, ${JSON.stringify(OPTIONS)});
const values = [];
for await (const r of log.records()) values.push(new TextDecoder().decode(r.value));
await dir.close();
process.stdout.write(JSON.stringify(values));
`,
    );
    const run = node([script, dir]);
    expectNoAbort(run, "open");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(allValues());

    // An unclean open of a last .log of 4 GiB + 1 (zeros after the batches), in 256 MiB of heap.
    const unclean = copy("child-open-log", true);
    truncateSync(join(unclean, PARTITION, segments[segments.length - 1]!), 2 ** 32 + 1);
    const recovered = node([script, unclean]);
    expectNoAbort(recovered, "open unclean");
    expect(JSON.parse(recovered.stdout)).toEqual(allValues());
  });

  it("pagelog verify and dump on 3 GiB, 4 GiB + 1 and 10 GiB files exit with a verdict", () => {
    const cliPath = join(buildDir, "main.js");
    for (const size of SIZES) {
      const dir = copy(`child-cli-${size}`);
      const base = join(dir, PARTITION, segments[0]!.replace(".log", ""));
      truncateSync(join(dir, "recovery-point-offset-checkpoint"), size);
      truncateSync(`${base}.index`, size);
      truncateSync(`${base}.timeindex`, size);
      const verify = node([cliPath, "verify", dir]);
      expectNoAbort(verify, `verify ${size}`);
      expect(verify.status, verify.stdout).toBe(1);
      for (const file of [`${base}.index`, `${base}.timeindex`, join(dir, "recovery-point-offset-checkpoint")]) {
        const dump = node([cliPath, "dump", file]);
        expectNoAbort(dump, `dump ${file} ${size}`);
        // A checkpoint is not a segment file: a usage error (2).
        expect([0, 1, 2], dump.stderr).toContain(dump.status);
        if (dump.status !== 0) expect(dump.stderr).toMatch(/^pagelog dump: [^\n]+\n$/);
      }
    }
  });

  it("pagelog dump into a pipe its reader closed (`| head -1`) ends quietly, without a stack trace", () => {
    // Far more output than a pipe holds, so the writer meets EPIPE.
    const dir = join(work, "child-pipe");
    const script = join(work, "fill.mjs");
    writeFileSync(
      script,
      `import { LogDir } from ${JSON.stringify(join(buildDir, "node.js"))};
const dir = await LogDir.open(process.argv[2]);
const log = await dir.log("pipe-0");
for (let i = 0; i < 100; i++) await log.append(Array.from({ length: 50 }, (_, j) => ({ value: "v" + (i * 50 + j) })));
await dir.close();
`,
    );
    expect(node([script, dir]).status).toBe(0);
    const cliPath = join(buildDir, "main.js");
    const run = spawnSync(
      "bash",
      [
        "-c",
        `set -o pipefail; "$0" "$1" dump --records "$2" | head -c 20 >/dev/null`,
        process.execPath,
        cliPath,
        join(dir, "pipe-0"),
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.status, run.stderr).toBe(0);
  });
});
