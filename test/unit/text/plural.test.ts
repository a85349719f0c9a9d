/**
 * Every count the CLI prints goes through one helper: `1 batch`, `1 problem`, `1 schedule`,
 * never `1 batches`, `1 problems`, `1 schedules`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../src/log/log-dir.js";
import { plural, pluralOf } from "../../../src/text/plural.js";
import { cli, flipByte, tempDir } from "../cli/helpers.js";

/** "1 <a plural noun>": what no line may say. */
const ONE_PLURAL =
  /(^|[^\d.,])1 (damaged )?(batches|problems|schedules|entries|bytes|segments|partitions|files|records|power cuts|violations|cases|steps|dirty pages|cores|repeats|identical entries)\b/m;

describe("plurals", () => {
  it("plural: the count, then the noun in the singular for 1 and the plural otherwise", () => {
    expect(plural(1, "batch")).toBe("1 batch");
    expect(plural(0, "batch")).toBe("0 batches");
    expect(plural(2, "entry")).toBe("2 entries");
    expect(plural(1, "power cut")).toBe("1 power cut");
    expect(plural(3, "power cut")).toBe("3 power cuts");
    expect(plural(2, "day")).toBe("2 days");
    expect(plural(2, "person", "people")).toBe("2 people");
    expect(pluralOf("box")).toBe("boxes");
  });

  it("dump and verify of one damaged batch and one bad index entry say 1 damaged batch, 1 problem", async () => {
    const root = tempDir("plural");
    const dir = await LogDir.open(root);
    const log = await dir.log("p-0", { indexIntervalBytes: 1 });
    for (let i = 0; i < 3; i++) await log.append([{ value: `v${i}` }]);
    await dir.close();
    const base = join(root, "p-0", "00000000000000000000");
    // A byte of the first record's value: a bad CRC and nothing else. (Byte 40, in maxTimestamp,
    // also made the time index wrong whenever the appends shared a millisecond and bit 22 of the
    // clock was set: a third problem, half the time on a fast machine.)
    flipByte(`${base}.log`, 67);
    const index = readFileSync(`${base}.index`);
    index.writeInt32BE(12345, index.length - 4); // the last entry: no batch starts there
    writeFileSync(`${base}.index`, index);
    const dump = await cli(["dump", join(root, "p-0")]);
    expect(dump.code).toBe(0);
    expect(dump.stdout).toMatch(/; 1 damaged batch$/m);
    expect(dump.stdout).toMatch(/^Summary: \d+ entr(y|ies), \d+ bytes; 1 problem$/m);
    expect(dump.stdout).not.toMatch(ONE_PLURAL);
    const verify = await cli(["verify", root]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(/^DAMAGED: 2 problems in 2 files$/m);
    expect(verify.stdout).not.toMatch(ONE_PLURAL);
    const one = await cli(["verify", join(root, "p-0")]);
    expect(one.stdout).not.toMatch(ONE_PLURAL);
  });

  it("a torn tail of 1 byte is '1 byte … is not a whole batch'", async () => {
    const root = tempDir("plural-byte");
    writeFileSync(join(root, "00000000000000000000.log"), Buffer.from([7]));
    const run = await cli(["dump", join(root, "00000000000000000000.log")]);
    expect(run.stdout).toMatch(/^1 byte at position 0 is not a whole batch: 1 byte at the end/m);
    expect(run.stdout).toMatch(/^Summary: 0 batches, no offsets, 1 byte; an invalid tail$/m);
  });

  it("fuzz --runs 1 says 1 schedule", async () => {
    const run = await cli(["fuzz", "--runs", "1", "--seed", "1"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ · 1 schedule\n/);
    expect(run.stdout).toMatch(/^summary: 1 schedule, /m);
    expect(run.stdout).not.toMatch(ONE_PLURAL);
  });

  it("the demo's lines: a cut of 1 dirty page, 1 segment scanned", async () => {
    const run = await cli(["demo", "--script", "produce, cut, restart"]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(ONE_PLURAL);
  });
});
