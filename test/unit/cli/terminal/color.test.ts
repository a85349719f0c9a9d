/**
 * Colour follows the usual conventions: --no-color / --color first; FORCE_COLOR=0 (or false) off
 * and FORCE_COLOR=1+ on, whatever the terminal; an empty FORCE_COLOR is no FORCE_COLOR; a
 * non-empty NO_COLOR off; TERM=dumb off; and otherwise only on a terminal.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { colorWanted } from "../../../../src/cli/terminal/style.js";
import { cli, tempDir } from "../helpers.js";

const io = (env: Record<string, string>, isTTY: boolean) => ({
  stdout: { write: () => true, isTTY },
  stderr: { write: () => true },
  env,
});

describe("colour", () => {
  const cases: Array<[Record<string, string>, boolean, boolean]> = [
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: "1" }, true, false],
    [{ NO_COLOR: "" }, true, true],
    [{ FORCE_COLOR: "0" }, true, false],
    [{ FORCE_COLOR: "false" }, true, false],
    [{ FORCE_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "3" }, false, true],
    // Empty is unset (force-color.org): a pipe stays plain, a terminal keeps its colour.
    [{ FORCE_COLOR: "" }, false, false],
    [{ FORCE_COLOR: "" }, true, true],
    [{ FORCE_COLOR: "", NO_COLOR: "1" }, true, false],
    [{ FORCE_COLOR: "1", TERM: "dumb" }, false, true],
    [{ TERM: "dumb" }, true, false],
    [{ TERM: "xterm-256color" }, true, true],
  ];
  for (const [env, isTTY, wanted] of cases) {
    it(`${JSON.stringify(env)} on a ${isTTY ? "terminal" : "pipe"}: ${wanted ? "on" : "off"}`, () => {
      expect(colorWanted(io(env, isTTY), {})).toBe(wanted);
    });
  }

  it("the flags outrank the environment", () => {
    expect(colorWanted(io({ FORCE_COLOR: "1" }, true), { "no-color": true })).toBe(false);
    expect(colorWanted(io({ NO_COLOR: "1", TERM: "dumb" }, false), { color: true })).toBe(true);
  });

  it("verify into a pipe: plain text, with no FORCE_COLOR, an empty one, or FORCE_COLOR=0, damaged or clean", async () => {
    const root = tempDir("color-pipe");
    const dir = await LogDir.open(root);
    await (await dir.log("c-0")).append([{ value: "v" }]);
    await dir.close();
    for (const damaged of [false, true]) {
      if (damaged) appendFileSync(join(root, "c-0", "00000000000000000000.log"), "x");
      for (const env of [{}, { FORCE_COLOR: "" }, { FORCE_COLOR: "0" }, { TERM: "xterm-256color" }]) {
        let out = "";
        const run = await cli(["verify", root], { stdout: { write: (t: string) => (out += t) }, env });
        expect(run.code).toBe(damaged ? 1 : 0);
        expect(out, JSON.stringify(env)).not.toContain("\x1b[");
      }
    }
  });

  it("verify on a terminal: coloured, but not with FORCE_COLOR=0 or TERM=dumb", async () => {
    const root = tempDir("color");
    await (await LogDir.open(root)).close();
    const on = await cli(["verify", root], { stdout: { write: () => true, isTTY: true }, env: {} });
    expect(on.code).toBe(0);
    for (const env of [{}, { FORCE_COLOR: "0" }, { TERM: "dumb" }]) {
      let out = "";
      const run = await cli(["verify", root], { stdout: { write: (t: string) => (out += t), isTTY: true }, env });
      expect(run.code).toBe(0);
      expect(out.includes("\x1b["), JSON.stringify(env)).toBe(Object.keys(env).length === 0);
    }
  });
});
