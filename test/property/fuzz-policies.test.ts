/**
 * `pagelog fuzz --policies` and `pagelog demo --policies`: the real log on a reader's module.
 * A wrong recover fails the fuzz with the smallest failing case as a command that replays it,
 * and the demo shows BROKEN with where reading breaks; pagelog's own policies pass both.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { framesOfTheirCode } from "../../src/testing/engine/error-report.js";
import { cli } from "../unit/cli/helpers.js";

const fixture = (name: string) => `test/fixtures/policies/${name}`;

/** Runs a printed `npx pagelog …` command in-process. */
const rerun = (command: string) => cli(command.replace(/^npx pagelog /, "").split(" "));

describe("pagelog fuzz --policies", () => {
  it("a recover that trusts lengths without the CRC fails, with a shrunk case that replays", async () => {
    const run = await cli(["fuzz", "--policies", fixture("recover-no-crc.mjs"), "--runs", "300", "--seed", "1"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("running on: your recover");
    expect(run.stdout).toMatch(/your recover kept \d+ bytes of \S+, but reading breaks at position \d+: .*CRC/);
    const shrunk = /smallest failing case: (\d+) of the (\d+) steps/.exec(run.stdout);
    expect(shrunk).not.toBeNull();
    expect(Number(shrunk![1])).toBeLessThan(Number(shrunk![2]));
    const commands = [...run.stdout.matchAll(/^replay: (npx pagelog fuzz .*)$/gm)].map((m) => m[1]!);
    expect(commands).toHaveLength(2);
    expect(commands[1]).toMatch(/^npx pagelog fuzz --policies \S+recover-no-crc\.mjs --replay \d+ --steps [\d,-]+$/);
    for (const command of commands) {
      const again = await rerun(command);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(/on your recover: VIOLATION\n[\s\S]*your recover/);
    }
  });

  it("each wrong recover is caught naming it, and the shrunk case keeps the wording and the step numbers", async () => {
    for (const file of ["recover-length-at-zero.mjs", "recover-cuts-valid-batches.mjs", "recover-off-by-one.mjs"]) {
      const run = await cli(["fuzz", "--policies", fixture(file), "--runs", "300", "--seed", "1"]);
      expect(run.code, file).toBe(1);
      const [full, shrunk] = run.stdout.split(/^smallest failing case: /m);
      expect(full, file).toMatch(/^step #\d+ \w+: your recover /m);
      expect(shrunk, `${file}: shrunk`).toBeDefined();
      const head =
        /^\d+ of the \d+ steps of schedule \d+ \(steps ([\d,-]+), numbered as in the full schedule; running on: your recover\):\n(.*)$/m.exec(
          shrunk!,
        );
      expect(head, `${file}: ${shrunk!.slice(0, 300)}`).not.toBeNull();
      expect(head![2], file).toMatch(/your recover (kept|threw|returned)/);
      // Each step shown is numbered as in the full schedule: exactly the steps the case kept.
      const kept = head![1]!.split(",").flatMap((part) => {
        const [from, to = from] = part.split("-").map(Number);
        return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
      });
      const shown = [...shrunk!.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1]));
      if (kept.length <= 40) expect(shown, file).toEqual(kept);
    }
  });

  it("the table in docs/homework.md is what --runs 300 --seed 1 prints, for every row the fuzz catches", async () => {
    const doc = readFileSync("docs/homework.md", "utf8");
    const rows = [
      ...doc.matchAll(
        /^\| .*\(`([\w.-]+)`\) \| fuzz, schedule (\d+)(?:, at the first append)?(?:; shrunk to (\d+) of (\d+) steps)?;.* \| `(.*)` \|$/gm,
      ),
    ];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const [, file, schedule, kept, of, says] of rows) {
      const run = await cli(["fuzz", "--policies", fixture(file!), "--runs", "300", "--seed", "1"]);
      expect(run.stdout, file).toContain(`VIOLATION in schedule ${schedule} `);
      if (kept !== undefined) expect(run.stdout, file).toContain(`smallest failing case: ${kept} of the ${of} steps`);
      expect(run.stdout, file).toContain(says);
    }
  });

  it("pagelog's own policies from a module pass", async () => {
    const run = await cli(["fuzz", "--policies", fixture("pagelog.mjs"), "--runs", "150", "--seed", "5"]);
    expect(run.stdout).toContain("running on: your writeVarint, lookup, segmentsToDelete, recover");
    expect(run.stdout).toContain(" 0 violations");
    expect(run.code).toBe(0);
  });

  it.each([
    ["lookup-first-above.mjs", /your lookup returned the entry for offset \d+ .* for target \d+/],
    [
      "varint-no-zigzag.mjs",
      /your writeVarint is wrong: writeVarint\(\d+\) returned \[\d+\], which reads back as -?\d+; Kafka's bytes are \[\d+\]/,
    ],
    ["throws.cjs", /your writeVarint threw Error/],
  ])("%s is caught, naming the function", async (file, message) => {
    const run = await cli(["fuzz", "--policies", fixture(file), "--runs", "300", "--seed", "1"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(message);
  });

  it("a violation names their function and shows their code's frames only: no pagelog internals", async () => {
    for (const [file, message, frames] of [
      [
        "recover-throws.mjs",
        /your recover threw Error: recover is not written yet/,
        [/at recover \(\S*recover-throws\.mjs:3:\d+\)/],
      ],
      [
        "recover-bad-read.mjs",
        /your recover threw RangeError: readInt32\(log, \d+\): bytes/,
        [/at nextBatch \(\S*recover-bad-read\.mjs:8:\d+\)/, /at recover \(\S*recover-bad-read\.mjs:4:\d+\)/],
      ],
      [
        "throws.cjs",
        /step #\d+ append .*: your writeVarint threw Error: not written yet/,
        [/at \S*writeVarint \(\S*throws\.cjs:5:\d+\)/],
      ],
    ] as const) {
      const run = await cli(["fuzz", "--policies", fixture(file), "--runs", "50", "--seed", "1"]);
      expect(run.code, file).toBe(1);
      expect(run.stdout).toMatch(message);
      for (const frame of frames) expect(run.stdout).toMatch(frame);
      // pagelog's own frames (src/ here, dist/chunk-*.js installed) and Node's are not shown.
      expect(run.stdout).not.toMatch(
        /\/src\/|dist\/chunk|node:internal|at policyError|at callPolicy|at keptByPolicy|PagelogError/,
      );
      expect(run.stdout).toMatch(/smallest failing case: \d+ of the \d+ steps/);
      expect(run.stdout).toMatch(/^replay: npx pagelog fuzz --policies \S+ --replay \d+ --steps \S+$/m);
    }
  });

  it("framesOfTheirCode drops the frames of pagelog's own directory and Node's", () => {
    const stack = [
      "RangeError: readInt32(log, 108): bytes 108..112 are not in the log (100 bytes)",
      "    at readInt32 (file:///p/node_modules/pagelog/dist/chunk-3R6OB3DL.js:120:11)",
      "    at recover (file:///p/src/my-policies.mjs:7:20)",
      "    at file:///p/node_modules/pagelog/dist/chunk-3R6OB3DL.js:247:10",
      "    at keptByPolicy (file:///p/node_modules/pagelog/dist/chunk-3R6OB3DL.js:250:3)",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ].join("\n");
    expect(framesOfTheirCode(stack, "file:///p/node_modules/pagelog/dist/")).toEqual([
      "    at recover (file:///p/src/my-policies.mjs:7:20)",
    ]);
  });

  it("usage: --policies with --broken, --steps without --replay, bad --steps, a module of none", async () => {
    for (const args of [
      ["--policies", fixture("pagelog.mjs"), "--broken", "skip-crc-in-recovery"],
      ["--steps", "0,1"],
      ["--replay", "5", "--steps", "x"],
      ["--replay", "5", "--steps", "999"],
      ["--policies", fixture("none.mjs")],
    ]) {
      const run = await cli(["fuzz", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/^pagelog fuzz: /);
    }
  });
});

describe("pagelog demo --policies", () => {
  const script = "produce 4, writeback, produce 2, cut, restart";

  it("says what it runs on, and a recover that keeps a torn batch shows BROKEN with where reading breaks", async () => {
    const run = await cli(["demo", "--policies", fixture("recover-no-crc.mjs"), "--script", `${script}, own, restart`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("running on: your recover");
    expect(run.stdout).toMatch(
      /> restart after a power cut: BROKEN: your recover kept \d+ bytes of \S+, but reading breaks at position (\d+): batch at \1 has CRC/,
    );
    expect(run.stdout).toMatch(/broken: reading breaks at position \d+ \(page \d+\)/);
    // `own` switches to pagelog's functions: the next restart recovers.
    expect(run.stdout).toContain("running on: pagelog's own functions");
    expect(run.stdout).toMatch(/> restart after a power cut: recovery cut \d+ bytes/);
  });

  it("a recover that throws shows THREW, a throwing writeVarint fails the produce; pagelog's own recover as usual", async () => {
    const threw = await cli(["demo", "--policies", fixture("recover-throws.mjs"), "--script", script]);
    expect(threw.code).toBe(0);
    expect(threw.stdout).toContain(
      "> restart after a power cut: THREW: your recover threw Error: recover is not written yet",
    );
    const varint = await cli(["demo", "--policies", fixture("throws.cjs"), "--script", "produce"]);
    expect(varint.code).toBe(0);
    expect(varint.stdout).toContain(
      "> produce failed: your writeVarint threw Error: not written yet: nothing was appended",
    );
    const own = await cli(["demo", "--policies", fixture("pagelog.mjs"), "--script", script]);
    expect(own.stdout).toContain("running on: your writeVarint, lookup, segmentsToDelete, recover");
    expect(own.stdout).not.toContain("BROKEN");
    expect(own.stdout).toMatch(/> restart after a power cut: recovery cut \d+ bytes/);
  });
});
