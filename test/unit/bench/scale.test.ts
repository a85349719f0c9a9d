/**
 * Below full scale the goals are not comparable: "met" says n/a (scale X) instead of NO, a line
 * says why, and --json gives met: null. At scale 1 (or more) they are judged as before.
 */
import { describe, expect, it } from "vitest";
import { finish, failed } from "../../../src/bench/measure.js";
import { type BenchMeta, renderJson, renderText } from "../../../src/bench/table.js";

const meta = (scale: number): BenchMeta => ({
  node: "v20",
  cpu: "cpu",
  cores: 1,
  dir: "/tmp",
  tmpfs: "/dev/shm",
  crc: "js",
  scale,
  repeats: 1,
  mode: "in-process",
});

/** A row that misses its goal (ratio 3, goal ≤ 2) and one that meets it. */
const rows = () => [
  finish(
    {
      row: "slow",
      unit: "ms",
      pagelog: [3],
      reference: [1],
      ratio: null,
      goal: { on: "ratio", op: "≤", value: 2 },
      notes: [],
    } as unknown as Parameters<typeof finish>[0],
    null,
  ),
  finish(
    {
      row: "fast",
      unit: "ms",
      pagelog: [1],
      reference: [1],
      ratio: null,
      goal: { on: "ratio", op: "≤", value: 2 },
      notes: [],
    } as unknown as Parameters<typeof finish>[0],
    null,
  ),
  failed("broken", "it threw"),
];

describe("bench goals and --scale", () => {
  it("below scale 1: n/a (scale 0.01) in the met column, a line saying why, never a NO for a goal", () => {
    const text = renderText(meta(0.01), rows());
    const slow = text.split("\n").find((l) => l.startsWith("slow"))!;
    const fast = text.split("\n").find((l) => l.startsWith("fast"))!;
    expect(slow).toMatch(/n\/a \(scale 0\.01\)/);
    expect(fast).toMatch(/n\/a \(scale 0\.01\)/);
    expect(slow).not.toMatch(/\bNO\b|\byes\b/);
    expect(text).toMatch(/^goals: n\/a at scale 0\.01: the goals are set for full-size runs \(--scale 1\)/m);
    // A failed row is still a failure.
    expect(text.split("\n").find((l) => l.startsWith("broken"))).toMatch(/FAILED.*NO/);
    const json = JSON.parse(renderJson(meta(0.01), rows())) as {
      meta: { goalsJudged: boolean };
      rows: Array<{ row: string; met: boolean | null }>;
    };
    expect(json.meta.goalsJudged).toBe(false);
    expect(json.rows.map((r) => r.met)).toEqual([null, null, false]);
  });

  it("at scale 1 the goals are judged: NO and yes", () => {
    const text = renderText(meta(1), rows());
    expect(text.split("\n").find((l) => l.startsWith("slow"))).toMatch(/\bNO\b/);
    expect(text.split("\n").find((l) => l.startsWith("fast"))).toMatch(/\byes\b/);
    expect(text).not.toMatch(/n\/a/);
    expect(text).toMatch(/· 1 core$/m);
    const json = JSON.parse(renderJson(meta(1), rows())) as { rows: Array<{ met: boolean | null }> };
    expect(json.rows.map((r) => r.met)).toEqual([false, true, false]);
  });
});
