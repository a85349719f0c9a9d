/**
 * The bench prints, for each row, its ratio and whether it meets issue 23's goal; below full scale
 * it says the goal is not comparable ("n/a (scale 0.1)"), and --json carries goal and met
 * (true / false / null). Rows are summarized by name, as the bench's rows report them.
 */
import { describe, expect, it } from "vitest";
import { finish, type Measured } from "../../../src/bench/measure.js";
import { type BenchMeta, renderJson, renderText } from "../../../src/bench/table.js";

const meta = (scale: number): BenchMeta => ({
  node: "v20",
  cpu: "cpu",
  cores: 2,
  dir: "/tmp",
  tmpfs: "/dev/shm",
  crc: "js",
  scale,
  repeats: 3,
  mode: "in-process",
});

/** A row named `row` whose ratio is `ratio` in every repeat, declaring no goal (as the rows do). */
const measured = (row: string, ratio: number): Measured => ({
  row,
  unit: "x/s",
  pagelog: [ratio * 100, ratio * 100, ratio * 100],
  reference: [100, 100, 100],
  notes: [],
});

// Issue 23's goals, each probed just below and at or just above its threshold.
const ISSUE_GOALS: Array<[row: string, goal: string, below: number, above: number]> = [
  ["append-100B", "≥ 0.5", 0.49, 0.5],
  ["durable-append", "≥ 0.8", 0.79, 0.81],
  ["recovery-scan", "≥ 0.8", 0.7, 0.9],
  ["read-batches", "≥ 0.8", 0.6, 0.8],
  ["records", "≥ 0.6", 0.59, 0.61],
  ["lookups/read", "≥ 0.5", 0.05, 0.55],
  ["lookups/offsetForTimestamp", "≥ 0.3", 0.03, 0.31],
];

const lineOf = (text: string, row: string) => text.split("\n").find((l) => l.startsWith(`${row} `))!;

describe("bench goals: issue 23's, judged on the ratio's median", () => {
  it.each(ISSUE_GOALS)("%s: goal %s, met false below it and true at or above it", (row, goal, below, above) => {
    const low = finish(measured(row, below), null);
    const high = finish(measured(row, above), null);
    expect(low.goal).toBe(goal);
    expect(high.goal).toBe(goal);
    expect(low.met).toBe(false);
    expect(high.met).toBe(true);
    const text = renderText(meta(1), [low]);
    expect(lineOf(text, row)).toMatch(new RegExp(`${below.toFixed(2)} +${goal} +NO\\b`));
    expect(lineOf(renderText(meta(1), [high]), row)).toMatch(new RegExp(`${goal} +yes\\b`));
  });

  it("the goals that were there already stay: append-1KiB ≥ 0.8, the 10k reopen < 100 ms, append-4GB on RSS", () => {
    expect(finish(measured("append-1KiB", 0.3), null)).toMatchObject({ goal: "≥ 0.8", met: false });
    expect(finish(measured("append-in-flight", 0.81), null)).toMatchObject({ goal: "≥ 0.5", met: true });
    const reopen = { ...measured("reopen-10k-segments", 1), pagelog: [90, 95, 120] };
    expect(finish(reopen, null)).toMatchObject({ goal: "< 100 ms", met: true });
    expect(finish(measured("append-4GB", 0.3), 114)).toMatchObject({ goal: "RSS < 150 MB", met: true });
    expect(finish(measured("append-4GB", 0.3), null)).toMatchObject({ goal: "RSS < 150 MB", met: null });
    expect(finish(measured("follow-latency/median", 1), null)).toMatchObject({ goal: null, met: null });
  });

  it("below --scale 1: n/a (scale 0.1) for every goal, the ratio still printed; --json met null, goal kept", () => {
    const rows = ISSUE_GOALS.map(([row, , below]) => finish(measured(row, below), null));
    const text = renderText(meta(0.1), rows);
    for (const [row, goal, below] of ISSUE_GOALS) {
      const line = lineOf(text, row);
      expect(line).toMatch(new RegExp(`${below.toFixed(2)} +${goal} +n/a \\(scale 0\\.1\\)`));
      expect(line).not.toMatch(/\bNO\b|\byes\b/);
    }
    const json = JSON.parse(renderJson(meta(0.1), rows)) as {
      rows: Array<{ row: string; goal: string | null; met: boolean | null; ratio: { median: number } }>;
    };
    expect(json.rows.map((r) => [r.row, r.goal, r.met])).toEqual(ISSUE_GOALS.map(([row, goal]) => [row, goal, null]));
    expect(json.rows.map((r) => r.ratio.median)).toEqual(ISSUE_GOALS.map(([, , below]) => below));
    const full = JSON.parse(renderJson(meta(1), rows)) as { rows: Array<{ met: boolean | null }> };
    expect(full.rows.every((r) => r.met === false)).toBe(true);
  });

  it("a row with no entry in the goals table declares its own goal, or none", () => {
    const own = finish({ ...measured("compaction-new-row", 2), goal: { on: "ratio", op: "≥", value: 3 } }, null);
    expect(own).toMatchObject({ goal: "≥ 3", met: false });
    expect(finish({ ...measured("compaction-new-row", 2), goal: null }, null)).toMatchObject({ goal: null, met: null });
    expect(finish(measured("compaction-new-row", 2), null)).toMatchObject({ goal: null, met: null });
    expect(
      lineOf(renderText(meta(1), [finish(measured("compaction-new-row", 2), null)]), "compaction-new-row"),
    ).toMatch(/2\.00 +- +-/);
  });

  it("a row listed in the goals table that declares a goal too is an error: one source of truth", () => {
    expect(() => finish({ ...measured("records", 1), goal: { on: "ratio", op: "≥", value: 0.4 } }, null)).toThrow(
      /records: its goal is in src\/bench\/goals\.ts/,
    );
  });
});
