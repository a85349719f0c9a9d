/**
 * What docs/cli.md says of dump's exit status: 0 when it read every file (damage is printed, not
 * judged: that is verify's job), 1 when a file could not be read, 2 for a usage error.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, flipByte, tempDir } from "../helpers.js";

async function partition(): Promise<string> {
  const root = tempDir("dump-exit");
  const dir = await LogDir.open(root);
  const log = await dir.log("o-0");
  for (let i = 0; i < 3; i++) await log.append([{ value: `v${i}` }]);
  await dir.close();
  return `${root}/o-0`;
}

describe("dump: exit status", () => {
  it("0 with damage printed; 1 when a file cannot be read; 2 for a path that is not there", async () => {
    const dir = await partition();
    flipByte(`${dir}/00000000000000000000.log`, 40);
    const damaged = await cli(["dump", dir]);
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toMatch(/DAMAGED at byte 0/);

    fs.rmSync(`${dir}/00000000000000000000.index`);
    fs.mkdirSync(`${dir}/00000000000000000000.index`); // an index that is a directory: unreadable
    const unreadable = await cli(["dump", dir]);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toMatch(/^pagelog dump: /);

    const missing = await cli(["dump", `${dir}/nope.log`]);
    expect(missing.code).toBe(2);
  });
});
