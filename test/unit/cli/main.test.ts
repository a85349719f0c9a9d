import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

describe("pagelog", () => {
  it("pagelog --help lists demo, dump and verify; each command has its own --help", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    for (const command of ["demo", "dump", "verify"]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
      const own = await cli([command, "-h"]);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^pagelog ${command} `));
    }
  });

  it("pagelog: an unknown command is one line on stderr and a non-zero exit", async () => {
    const run = await cli(["nonsense"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
