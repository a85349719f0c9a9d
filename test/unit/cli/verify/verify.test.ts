import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, flipByte, tempDir } from "../helpers.js";

/** A cleanly closed log dir: two partitions, several segments each, with index entries. */
async function writeLogDir(): Promise<string> {
  const dir = tempDir("verify");
  const logDir = await LogDir.open(dir);
  for (const name of ["orders-0", "orders-1"]) {
    const log = await logDir.log(name, { segmentBytes: 1500, indexIntervalBytes: 150 });
    for (let i = 0; i < 50; i++)
      await log.append([
        { key: `k${i}`, value: `value ${i}`, timestamp: 1_700_000_000_000 + i },
        { value: `second ${i}` },
      ]);
  }
  await logDir.close();
  return dir;
}

interface Batch {
  position: number;
  baseOffset: number;
  size: number;
}

async function batchesOf(file: string): Promise<Batch[]> {
  const run = await cli(["dump", "--json", file]);
  return (JSON.parse(run.stdout) as { files: Array<{ batches: Batch[] }> }).files[0]!.batches;
}

const SEG0 = "orders-0/00000000000000000000";

describe("pagelog verify", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await writeLogDir();
  });

  it("verify: a first segment deleted below the checkpointed start offset is damage, as the loader says", async () => {
    const { rmSync } = await import("node:fs");
    for (const suffix of [".log", ".index", ".timeindex"]) rmSync(join(dir, `${SEG0}${suffix}`));
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /log start offset of orders-0 is 0, but its first segment starts at \d+: the records between are missing/,
    );
  });

  it("verify: a cleanly closed directory is clean, exit 0", async () => {
    const run = await cli(["verify", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\(clean-shutdown marker present\)/);
    expect(run.stdout).toMatch(/^orders-0: \d+ segments, offsets 0-99, \d+ bytes$/m);
    expect(run.stdout).toMatch(/^orders-1: \d+ segments, offsets 0-99, \d+ bytes$/m);
    expect(run.stdout).toMatch(new RegExp(`^  ${SEG0}\\.log +\\d+ batches, offsets 0-\\d+, \\d+ bytes: ok$`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^  ${SEG0}\\.index +[1-9]\\d* entr(y|ies): ok$`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^  ${SEG0}\\.timeindex +[1-9]\\d* entr(y|ies): ok$`, "m"));
    expect(run.stdout).toMatch(
      /^clean: 2 partitions, \d+ segments, every batch's CRC and records, every index entry and offset checked$/m,
    );
    // One partition directory on its own works too.
    expect((await cli(["verify", join(dir, "orders-1")])).code).toBe(0);
  });

  it("verify: a flipped byte inside a batch is a bad CRC, exit 1, naming the file and the batch's byte", async () => {
    const batches = await batchesOf(join(dir, `${SEG0}.log`));
    const third = batches[2]!;
    flipByte(join(dir, `${SEG0}.log`), third.position + third.size - 3);
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^DAMAGED: 1 problem in 1 file$/m);
    expect(run.stdout).toContain(`  ${SEG0}.log byte ${third.position}: CRC 0x`);
    expect(run.stdout).toMatch(new RegExp(`^  ${SEG0}\\.log .*: DAMAGED \\(1\\)$`, "m"));
  });

  it("verify: a segment truncated mid-batch is a torn tail, the index past it and the gap to the next segment, exit 1", async () => {
    const path = join(dir, `${SEG0}.log`);
    const batches = await batchesOf(path);
    const last = batches.at(-1)!;
    truncateSync(path, last.position + 20);
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `  ${SEG0}.log byte ${last.position}: batch of ${last.size} bytes, only 20 left in the file`,
    );
    // The next segment no longer continues this one.
    expect(run.stdout).toMatch(
      /orders-0\/\d{20}\.log byte 0: segment starts at offset \d+, the previous segment ended at \d+/,
    );
  });

  it("verify: a corrupt index entry is named by file and byte, exit 1", async () => {
    const path = join(dir, `${SEG0}.index`);
    const bytes = readFileSync(path);
    expect(bytes.length).toBeGreaterThanOrEqual(16);
    bytes.writeInt32BE(bytes.readInt32BE(12) + 1, 12); // entry 1's position, one byte off
    writeFileSync(path, bytes);
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^  ${SEG0}\\.index byte 8: entry 1: no batch starts at position \\d+ of the \\.log$`, "m"),
    );
  });

  it("verify: a time index with a partial entry and a wrong timestamp, exit 1", async () => {
    const path = join(dir, `${SEG0}.timeindex`);
    const bytes = readFileSync(path);
    bytes.writeBigInt64BE(bytes.readBigInt64BE(0) + 5n, 0);
    writeFileSync(path, Buffer.concat([bytes, Buffer.from([1, 2, 3])]));
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(
        `^  ${SEG0}\\.timeindex byte 0: entry 0: the largest timestamp up to offset \\d+ is \\d+, the entry says \\d+$`,
        "m",
      ),
    );
    expect(run.stdout).toContain(
      `  ${SEG0}.timeindex byte ${bytes.length}: 3 trailing bytes do not form a whole 12-byte entry`,
    );
  });

  it("verify --json: the same findings for scripts", async () => {
    flipByte(join(dir, `${SEG0}.log`), 70);
    const run = await cli(["verify", "--json", dir]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { clean: boolean; problems: Array<{ path: string; byte: number }> };
    expect(report.clean).toBe(false);
    expect(report.problems).toEqual([expect.objectContaining({ path: `${SEG0}.log`, byte: 0 })]);
  });

  it("verify: bad arguments are one-line errors with exit 2", async () => {
    for (const argv of [
      ["verify"],
      ["verify", "/nonexistent/pagelog/dir"],
      ["verify", join(dir, `${SEG0}.log`)],
      ["verify", tempDir("empty")],
      ["verify", "-x", dir],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr, argv.join(" ")).toMatch(/^pagelog verify: [^\n]+\n$/);
    }
    expect((await cli(["verify", "--help"])).stdout).toMatch(/^pagelog verify <log-dir>/);
  });
});
