/**
 * dump and verify stream an index: a sparse 10 GiB `.timeindex` (and `.index`, and `.log`) costs
 * a chunk of memory, and its zeros are one entry and a count, not millions of lines. Run in a
 * child process with a 64 MB heap, where holding the file, or one object per entry, would abort.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeBatch } from "../../src/format/checked/batch-functions.js";
import { LogDir } from "../../src/log/log-dir.js";
import { privateBuild } from "../support/private-build.js";
import { tempDir } from "../unit/cli/helpers.js";

const GiB = 2 ** 30;
let buildDir: string;

beforeAll(() => {
  buildDir = privateBuild();
}, 60_000);

/** `pagelog …` in a 64 MB heap with stdout sent through `filter` (a shell pipeline). */
function piped(filter: string, ...args: string[]) {
  const run = spawnSync(
    "bash",
    [
      "-c",
      `set -o pipefail; "$0" --max-old-space-size=64 "$@" | ${filter}`,
      process.execPath,
      join(buildDir, "main.js"),
      ...args,
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

function pagelog(...args: string[]) {
  const run = spawnSync(process.execPath, ["--max-old-space-size=64", join(buildDir, "main.js"), ...args], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 2 ** 20,
  });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

describe("dump and verify on a sparse 10 GiB index, in a 64 MB heap", () => {
  it("beside a sparse 10 GiB .log: every file dumped, exit 0, a few lines", () => {
    const dir = join(tempDir("huge"), "zeros-0");
    mkdirSync(dir);
    const base = join(dir, "00000000000000000000");
    for (const suffix of [".log", ".index", ".timeindex"]) {
      writeFileSync(base + suffix, "");
      truncateSync(base + suffix, 10 * GiB);
    }
    for (const target of [dir, `${base}.timeindex`, `${base}.index`]) {
      const run = pagelog("dump", target);
      expect(run.signal, run.stderr).toBe(null);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout.length).toBeLessThan(4000);
      expect(run.stdout).toMatch(/^\.\.\. and \d+ more identical entries \(slots 1-\d+, bytes \d+-\d+\)$/m);
      expect(run.stdout).toMatch(/^DAMAGED at byte \d+: the file is 10737418240 bytes: .*were not read/m);
    }
    const json = pagelog("dump", "--json", `${base}.timeindex`);
    expect(json.status, json.stderr).toBe(0);
    const file = (JSON.parse(json.stdout) as { files: Array<{ entries: Array<{ repeats?: number }> }> }).files[0]!;
    expect(file.entries).toHaveLength(1);
    expect(file.entries[0]!.repeats).toBeGreaterThan(1_000_000);

    const verify = pagelog("verify", dir);
    expect(verify.signal, verify.stderr).toBe(null);
    expect(verify.status, verify.stderr).toBe(1);
    expect(verify.stdout.length).toBeLessThan(4000);
    expect(verify.stdout).toMatch(/\.timeindex byte 0: entry 0: .*; the same in the \d+ identical entries after it/);
  });

  it("alone, and beside a real .log: the entries it holds, then one line for the zeros", async () => {
    const root = tempDir("huge-real");
    const logDir = await LogDir.open(root);
    const log = await logDir.log("t-0", { indexIntervalBytes: 1 });
    for (let i = 0; i < 5; i++) await log.append([{ value: `v${i}`, timestamp: 1_700_000_000_000 + i }]);
    await logDir.close();
    const base = join(root, "t-0", "00000000000000000000");
    truncateSync(`${base}.timeindex`, 10 * GiB);
    const beside = pagelog("dump", `${base}.timeindex`);
    expect(beside.signal, beside.stderr).toBe(null);
    expect(beside.status, beside.stderr).toBe(0);
    const entries = beside.stdout.split("\n").filter((l) => l.startsWith("timestamp: 17"));
    expect(entries.length).toBeGreaterThan(2);
    expect(entries.every((l) => !l.includes("MISMATCH"))).toBe(true);
    // Then the zeros: as many as the .log's sanity bound allows, in one entry and a count.
    expect(beside.stdout).toContain(`timestamp: 0 offset: 0 MISMATCH at byte ${entries.length * 12}: `);
    expect(beside.stdout).toMatch(/^\.\.\. and 1 more identical entry \(slot \d+, bytes \d+-\d+\)$/m);
    expect(beside.stdout.length).toBeLessThan(4000);
    rmSync(`${base}.log`);
    const alone = pagelog("dump", `${base}.timeindex`);
    expect(alone.status, alone.stderr).toBe(0);
    expect(alone.stdout).toMatch(/more than the 16777216 bytes read of an index without its \.log/);
  });

  it("a .log of 100,000 batches, with --records, text and JSON: one batch in memory at a time", () => {
    const dir = join(tempDir("many"), "many-0");
    mkdirSync(dir);
    const batches: Uint8Array[] = [];
    for (let i = 0; i < 100_000; i++)
      batches.push(
        encodeBatch([{ key: `k${i}`, value: `value ${i}` }], { baseOffset: i, timestamp: 1_700_000_000_000 }),
      );
    writeFileSync(join(dir, "00000000000000000000.log"), Buffer.concat(batches));
    const text = piped("tail -n 1", "dump", "--records", join(dir, "00000000000000000000.log"));
    expect(text.signal, text.stderr).toBe(null);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Summary: 100000 batches, offsets 0-99999, \d+ bytes; every batch valid\n$/);
    const json = piped("wc -c", "dump", "--json", "--records", dir);
    expect(json.signal, json.stderr).toBe(null);
    expect(json.status, json.stderr).toBe(0);
    expect(Number(json.stdout.trim())).toBeGreaterThan(100_000 * 100);
  }, 120_000);
});
