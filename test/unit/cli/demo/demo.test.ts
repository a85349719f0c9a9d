import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../../../../src/cli/terminal/io.js";
import { cli } from "../helpers.js";

/** The frames of a non-interactive run, split on their "── n. step" titles. */
function frames(stdout: string): Array<{ title: string; body: string }> {
  return stdout
    .split(/^── /m)
    .slice(1)
    .map((chunk) => ({
      title: chunk.slice(0, chunk.indexOf("\n")).replace(/ ─+$/, ""),
      body: chunk.slice(chunk.indexOf("\n") + 1),
    }));
}

describe("pagelog demo, non-interactive", () => {
  it("demo: a fixed seed and script print one frame per step, the same every run, with no colour under NO_COLOR", async () => {
    const argv = ["demo", "--seed", "1", "--script", "produce 5, writeback, cut, restart"];
    const run = await cli(argv);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).not.toMatch(/\x1b\[/);
    expect((await cli(argv)).stdout).toBe(run.stdout); // deterministic by seed
    const f = frames(run.stdout);
    expect(f.map((x) => x.title)).toEqual(["0. start", "1. produce 5", "2. writeback", "3. cut", "4. restart"]);
    for (const { body } of f) {
      expect(body).toMatch(/^pagelog demo · seed 1 · 64-byte pages, 16-byte sectors · flush every: off$/m);
      expect(body).toMatch(/^sensors-0\/00000000000000000000\.log · segment 1 of 1 · \d+ bytes, size on disk \d+$/m);
      expect(body).toMatch(/^\s+0 ┆/m); // the strip's first row, with a page tick
      expect(body).toMatch(/^last recovery: /m);
    }
    // produce: only in the page cache (gold), batches marked from offset 0, the status line.
    expect(f[1]!.body).toMatch(/▒/);
    expect(f[1]!.body).not.toMatch(/█{16}/);
    expect(f[1]!.body).toMatch(/^ +╵0 /m);
    expect(f[1]!.body).toMatch(
      /^log end offset \d+ · recovery point 0 · dirty pages [1-9]\d* · acknowledged records lost so far: 0$/m,
    );
    expect(f[1]!.body).toMatch(
      /^> produced 5 batches, \d+ records, offsets 0-\d+: acknowledged, only in the page cache$/m,
    );
    // writeback: some pages are now on disk (green), some still dirty.
    expect(f[2]!.body).toMatch(/█/);
    expect(f[2]!.body).toMatch(/^> the OS wrote back \d+ of \d+ dirty pages/m);
    // cut: the broker is down and the log needs recovery.
    expect(f[3]!.body).toMatch(/^POWER OFF .* the log needs recovery: restart \(r\)$/m);
    expect(f[3]!.body).toMatch(/^> POWER CUT with \d+ dirty pages?/m);
    // restart: what recovery did, LEO before -> after, acknowledged records lost.
    const leo = /log end offset (\d+) -> (\d+)/.exec(f[4]!.body);
    expect(leo).not.toBeNull();
    const [before, after] = [Number(leo![1]), Number(leo![2])];
    expect(after).toBeLessThanOrEqual(before);
    expect(f[4]!.body).toMatch(
      after === before ? /nothing lost/ : new RegExp(`${before - after} acknowledged records? LOST`),
    );
    expect(f[4]!.body).toMatch(/^last recovery: scanned 1 segment \(\d+ bytes\), cut \d+ bytes; log end offset/m);
    expect(f[4]!.body).toMatch(new RegExp(`^log end offset ${after} · recovery point ${after} · dirty pages 0`, "m"));
  });

  it("demo: a restart without a cut is a clean shutdown: clean, nothing lost", async () => {
    const run = await cli(["demo", "--script", "p, p, s, p, r"]);
    expect(run.code).toBe(0);
    const last = frames(run.stdout).at(-1)!;
    expect(last.title).toBe("5. restart");
    expect(last.body).toMatch(/^> restart after a clean shutdown: clean, nothing lost$/m);
    expect(last.body).toMatch(/^last recovery: clean shutdown: nothing to recover/m);
    expect(frames(run.stdout)[3]!.body).toMatch(
      /^> flushed: fsync of the segment and its indexes, then the recovery point moved 0 -> \d+$/m,
    );
  });

  it("demo: with flush every 1 batch, a cut after producing loses nothing", async () => {
    const run = await cli(["demo", "--seed", "3", "--flush-every", "1", "--script", "produce 6, cut, restart"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/flush every: 1 batch/);
    expect(run.stdout).toMatch(/log end offset (\d+) -> \1: nothing lost/);
  });

  it("demo: without a terminal and without --script, it runs the default script", async () => {
    const run = await cli(["demo"]);
    expect(run.code).toBe(0);
    expect(frames(run.stdout).map((f) => f.title)).toEqual([
      "0. start",
      "1. produce 4",
      "2. writeback",
      "3. produce 2",
      "4. cut",
      "5. restart",
    ]);
  });

  it("demo: --color forces ANSI colours even without a terminal", async () => {
    const run = await cli(["demo", "--color", "--script", "produce 2"], { env: {} });
    expect(run.stdout).toMatch(/\x1b\[33m█/); // gold: cached only
    expect((await cli(["demo", "--color", "--no-color", "--script", "produce 2"], { env: {} })).stdout).not.toMatch(
      /\x1b\[/,
    );
  });

  it("break-it: flush every 1 batch loses nothing; flushing off loses acknowledged records over several cuts", async () => {
    for (const seed of ["1", "2", "5", "11"]) {
      const run = await cli(["demo", "--seed", seed, "--script", "break-it"]);
      expect(run.code).toBe(0);
      const every = /flush every 1 batch: +(\d+) power cuts, (\d+) of (\d+) acknowledged records lost/.exec(run.stdout);
      const off = /flush off: +(\d+) power cuts, (\d+) of (\d+) acknowledged records lost/.exec(run.stdout);
      expect(every, `seed ${seed}`).not.toBeNull();
      expect(off, `seed ${seed}`).not.toBeNull();
      expect(Number(every![1])).toBe(3);
      expect(Number(every![2]), `seed ${seed}: lost with flush every 1`).toBe(0);
      expect(Number(every![3])).toBeGreaterThan(0);
      const offCuts = Number(off![1]);
      expect(offCuts).toBeGreaterThanOrEqual(3);
      expect(Number(off![2]), `seed ${seed}: lost with flushing off`).toBeGreaterThan(0);
      expect(Number(off![2])).toBeLessThanOrEqual(Number(off![3]));
      // Every step printed a frame: 2 policy changes + 4 steps per power cut, after the start.
      expect(frames(run.stdout)).toHaveLength(1 + 2 + 4 * (3 + offCuts));
    }
  });

  it("break-it: the flush-off half shows recovery cutting a torn batch, and says so", async () => {
    for (const seed of ["1", "3", "4", "9", "12"]) {
      const run = await cli(["demo", "--seed", seed, "--script", "break-it"]);
      const all = frames(run.stdout);
      const offStart = all.findIndex((f) => f.title === "1. flush-every 1 batch") + 1 + 4 * 3;
      expect(all[offStart]!.title, `seed ${seed}`).toMatch(/flush-every off/);
      const cutBytes = all
        .slice(offStart)
        .filter((f) => / restart$/.test(f.title))
        .map((f) => Number(/> restart after a power cut: recovery cut (\d+) bytes?;/.exec(f.body)?.[1] ?? 0));
      const torn = cutBytes.filter((n) => n > 0);
      expect(torn.length, `seed ${seed}: ${cutBytes.join(",")}`).toBeGreaterThan(0);
      const total = torn.reduce((a, b) => a + b, 0);
      expect(run.stdout).toMatch(
        new RegExp(`recovery found a torn batch and cut it and everything after it \\(${total} bytes? in all\\)`),
      );
    }
  });

  it("break-it on a recover that cuts whole batches: BROKEN, it stops, and no sentence its counts deny", async () => {
    const run = await cli([
      "demo",
      "--policies",
      "test/fixtures/policies/recover-off-by-one.mjs",
      "--script",
      "break-it",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /> restart after a power cut: BROKEN: your recover kept \d+ bytes of \S+, but bytes \d+ to \d+ are whole batches whose CRC matches/,
    );
    for (const m of run.stdout.matchAll(/(\d+) of (\d+) acknowledged records? lost/g))
      expect(Number(m[1])).toBeLessThanOrEqual(Number(m[2]));
    expect(run.stdout).toMatch(
      /Break it stopped at power cut 1 \(flush every 1 batch\): the restart was BROKEN: your recover kept/,
    );
    expect(run.stdout).not.toMatch(/nothing acknowledged was lost/);
    expect(run.stdout).not.toMatch(/^ +flush off:/m);
    // After the broken restart, no more rounds run on a log that is down.
    expect(frames(run.stdout).at(-1)!.title).toMatch(/restart$/);
  });

  it("a recover that cuts flushed, whole, valid batches is BROKEN naming it, not an ordinary loss", async () => {
    for (const [fixture, script] of [
      ["recover-cuts-valid-batches.mjs", "produce 3, flush, cut, restart"],
      ["recover-off-by-one.mjs", "produce 3, flush, cut, restart"],
      ["recover-cuts-valid-batches.mjs", "flush-every 1, produce 5, writeback, cut, restart"],
    ]) {
      const run = await cli(["demo", "--policies", `test/fixtures/policies/${fixture}`, "--script", script!]);
      expect(run.code).toBe(0);
      const last = frames(run.stdout).at(-1)!.body;
      expect(last, fixture).toMatch(/> restart after a power cut: BROKEN: your recover kept \d+ bytes/);
      expect(last, fixture).toMatch(/^broken: your recover kept/m);
      expect(run.stdout, fixture).not.toMatch(/acknowledged records? LOST/);
    }
  });

  it("demo: bad arguments and bad scripts are one-line errors with exit 2", async () => {
    for (const argv of [
      ["demo", "--script", "produce 5, explode"],
      ["demo", "--script", "produce zero"],
      ["demo", "--seed", "x"],
      ["demo", "--page-size", "64", "--sector-size", "24"],
      ["demo", "--flush-every", "3"],
      ["demo", "--bogus"],
      ["demo", "extra"],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stdout, argv.join(" ")).toBe("");
      expect(run.stderr, argv.join(" ")).toMatch(/^pagelog demo: [^\n]+\n$/);
    }
  });

  it("demo --help lists the keys and the script steps", async () => {
    const run = await cli(["demo", "--help"]);
    expect(run.code).toBe(0);
    for (const key of [
      "p  produce",
      "c  cut the power",
      "r  restart",
      "w  let the OS",
      "f  cycle",
      "s  flush now",
      "q  quit",
      "break-it",
      "--seed",
      "--no-color",
    ]) {
      expect(run.stdout).toContain(key);
    }
  });
});

describe("pagelog demo, interactive", () => {
  it("demo: at a terminal, keys drive the log in raw mode: produce, cut, restart, quit", async () => {
    const stdin = Object.assign(new PassThrough(), {
      isTTY: true,
      rawModes: [] as boolean[],
      setRawMode(raw: boolean) {
        this.rawModes.push(raw);
        return this;
      },
    });
    let stdout = "";
    const io: CliIo = {
      stdout: { write: (t: string) => (stdout += t), isTTY: true, columns: 80 },
      stderr: { write: () => true },
      stdin,
      env: { NO_COLOR: "1" },
    };
    const { main } = await import("../../../../src/cli/commands.js");
    const done = main(["demo", "--seed", "4"], io);
    stdin.write("ppp");
    stdin.write("c");
    stdin.write("r");
    stdin.write("q");
    expect(await done).toBe(0);
    expect(stdin.rawModes).toEqual([true, false]);
    const screens = stdout.split("\x1b[H\x1b[2J").slice(1);
    expect(screens).toHaveLength(1 + 5); // the first frame, then one per key before q
    expect(screens[3]).toMatch(
      /^> produced a batch of \d records?, offsets \d+-\d+: acknowledged, only in the page cache$/m,
    );
    expect(screens[4]).toMatch(/the log needs recovery/);
    expect(screens[5]).toMatch(/^> restart after a power cut: recovery cut \d+ bytes; log end offset \d+ -> \d+/m);
    expect(screens[5]).toMatch(/^keys: p produce · c cut power · r restart/m);
  });

  it("demo: under TERM=dumb the frames are plain text, with no clear-screen or cursor codes", async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    let stdout = "";
    const io: CliIo = {
      stdout: { write: (t: string) => (stdout += t), isTTY: true, columns: 80 },
      stderr: { write: () => true },
      stdin,
      env: { TERM: "dumb" },
    };
    const { main } = await import("../../../../src/cli/commands.js");
    const done = main(["demo", "--seed", "4"], io);
    stdin.write("pc");
    stdin.write("q");
    expect(await done).toBe(0);
    expect(stdout).not.toMatch(/\x1b/);
    // Three frames (the first, then one per key before q), each ending with the keys line.
    expect(stdout.match(/^keys: p produce/gm)).toHaveLength(3);
    expect(stdout).toMatch(/^> produced a batch of \d records?/m);
    expect(stdout).toMatch(/the log needs recovery/);
  });
});
