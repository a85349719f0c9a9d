import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { cli } from "./helpers.js";

describe("pagelog fuzz", () => {
  // The first two tests read the same deterministic run (seed 3, 25 schedules): run it once, on
  // first use, not twice (it is the unit tier's costliest call, about 4 CPU-s).
  let seeded: ReturnType<typeof cli> | undefined;
  const seededRun = () => (seeded ??= cli(["fuzz", "--runs", "25", "--seed", "3"]));

  it("fuzz: a seeded run prints its seed, a summary, and exits 0 with no violation", async () => {
    const run = await seededRun();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^pagelog fuzz · seed 3 · 25 schedules/);
    expect(run.stdout).toMatch(/summary: 25 schedules, \d+ power cuts, \d+ records recovered, 0 violations/);
  });

  it("fuzz: ends with the reach table, each decision with the times it fired, one that never did marked NEVER", async () => {
    const run = await seededRun();
    const table = run.stdout.slice(run.stdout.indexOf("reach (decision, times it fired):"));
    expect(table).not.toBe("");
    const rows = table
      .split("\n")
      .slice(1)
      .filter((line) => line.startsWith("  "))
      .map((line) => /^ {2}(\S+) +(\d+)(  NEVER)?/.exec(line));
    const counts = Object.fromEntries(rows.map((m) => [m![1], Number(m![2])]));
    for (const name of [
      "crash-step",
      "nested-cut",
      "fsync-failed",
      "page-torn",
      "size-undone",
      "tail-cut",
      "clean-open",
    ])
      expect(counts, name).toHaveProperty(name);
    expect(counts["crash-recovery"]).toBeGreaterThanOrEqual(50); // two runs per schedule, each reopens after a cut
    for (const m of rows) expect(m![3] !== undefined, m![0]).toBe(Number(m![2]) === 0);
  });

  it("fuzz --workload classic: runs the first engine's mix, and its replay command says so", async () => {
    const run = await cli([
      "fuzz",
      "--runs",
      "200",
      "--seed",
      "1",
      "--broken",
      "skip-crc-in-recovery",
      "--workload",
      "classic",
    ]);
    expect(run.code).toBe(0);
    const replay = /replay: npx pagelog fuzz --replay (\d+) --broken skip-crc-in-recovery --workload classic$/m.exec(
      run.stdout,
    );
    expect(replay).not.toBeNull();
    // The seed replays the same (classic) schedule: it fails again, with the same message.
    const again = await cli([
      "fuzz",
      "--replay",
      replay![1]!,
      "--broken",
      "skip-crc-in-recovery",
      "--workload",
      "classic",
    ]);
    expect(again.code).toBe(1);
    const bad = await cli(["fuzz", "--runs", "1", "--workload", "vintage"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--workload must be swarm, classic or compaction, got 'vintage'/);
  });

  it("fuzz --workload compaction: cleans a compacted log; a compaction --broken variant runs it by default, and its replay says so", async () => {
    const run = await cli(["fuzz", "--runs", "15", "--seed", "2", "--workload", "compaction"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}records-cleaned +[1-9]\d*/m);
    const caught = await cli(["fuzz", "--runs", "100", "--seed", "1", "--broken", "clean-point-not-durable"]);
    expect(caught.code).toBe(0);
    const replay =
      /replay: npx pagelog fuzz --replay (\d+) --broken clean-point-not-durable --workload compaction$/m.exec(
        caught.stdout,
      );
    expect(replay).not.toBeNull();
    const again = await cli(["fuzz", "--replay", replay![1]!, "--broken", "clean-point-not-durable"]);
    expect(again.code).toBe(1);
  });

  it("fuzz --replay: runs one schedule by its seed and prints its trace", async () => {
    const run = await cli(["fuzz", "--replay", "12345"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^open \(pagelog .*\): pageSize \d+, sectorSize \d+, write-back [\d.]+; cut /m);
    expect(run.stdout).toMatch(/schedule 12345: no violation/);
  });

  it("fuzz --broken: a broken log is caught (exit 0), with the replay command of the schedule that caught it", async () => {
    const run = await cli(["fuzz", "--runs", "200", "--seed", "1", "--broken", "skip-crc-in-recovery"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/VIOLATION in schedule \d+ \(seed (\d+)\)/);
    expect(run.stdout).toMatch(/replay: npx pagelog fuzz --replay \d+ --broken skip-crc-in-recovery/);
    expect(run.stdout).toMatch(/was caught at schedule/);
  });

  it("fuzz: bad arguments are one-line errors with exit 2", async () => {
    for (const argv of [
      ["fuzz", "--runs", "x"],
      ["fuzz", "--broken", "nope"],
      ["fuzz", "--runs", "1", "--minutes", "1"],
      ["fuzz", "--bogus"],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), argv.join(" ")).toHaveLength(1);
    }
  });
});

describe("pagelog fuzz --adapter", () => {
  const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/adapters/${name}`, import.meta.url));

  it("fuzz --adapter: pagelog's own adapter module (default export, ES module) passes", async () => {
    const run = await cli(["fuzz", "--adapter", fixture("pagelog.mjs"), "--runs", "20", "--seed", "5"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^pagelog fuzz · adapter pagelog\(\{\}\) · seed 5 · 20 schedules/);
    expect(run.stdout).toMatch(/summary: 20 schedules, \d+ power cuts, \d+ records recovered, 0 violations/);
  });

  it("fuzz --adapter: a broken log (CommonJS, named export) is caught, exit 1, and its replay command reproduces it", async () => {
    const path = fixture("no-fsync.cjs");
    const run = await cli(["fuzz", "--adapter", path, "--runs", "200", "--seed", "1"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/VIOLATION in schedule \d+ \(seed \d+\)/);
    expect(run.stdout).toMatch(/durability|no allowed state/);
    const replay = /replay: npx pagelog fuzz (.*)$/m.exec(run.stdout)?.[1];
    expect(replay).toMatch(/^--adapter \S+no-fsync\.cjs --replay \d+$/);
    const again = await cli(["fuzz", ...replay!.split(" ")]);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/schedule \d+: VIOLATION\n/);
    const firstMessage = run.stdout.split("\n").find((l) => /durability|allowed state/.test(l));
    expect(again.stdout).toContain(firstMessage);
  });

  it("fuzz --adapter --replay: a passing schedule says so", async () => {
    const run = await cli(["fuzz", "--adapter", fixture("pagelog.mjs"), "--replay", "77"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/schedule 77: no violation/);
  });

  it("fuzz --adapter: a missing module, a module without an adapter, or --broken with it are one-line errors with exit 2", async () => {
    for (const argv of [
      ["fuzz", "--adapter", fixture("nope.mjs")],
      ["fuzz", "--adapter", fixture("no-adapter.mjs")],
      ["fuzz", "--adapter", fixture("pagelog.mjs"), "--broken", "skip-crc-in-recovery"],
      ["fuzz", "--max-ops", "0"],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), argv.join(" ")).toHaveLength(1);
    }
  });
});
