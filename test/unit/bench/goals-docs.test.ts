/**
 * One source of truth for the bench's goals: src/bench/goals.ts. The goal columns of docs/cli.md
 * (the rows table) and docs/performance.md (the main table) say the same for every row they list,
 * cli.md lists every row with a goal entry, and the table names no row the bench does not have.
 * docs/performance.md gives one run (its history is in CHANGELOG.md).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type Goal, GOALS, goalText } from "../../../src/bench/goals.js";
import { ROWS } from "../../../src/bench/rows/rows.js";

/** How the docs write a goal: "≥ 0.5", "pagelog < 100 ms", "peak RSS < 150 MB", "—" for none. */
function docText(goal: Goal | null): string {
  if (goal === null) return "—";
  return `${goal.on === "pagelog" ? "pagelog " : goal.on === "rss" ? "peak " : ""}${goalText(goal)}`;
}

/** The rows of the markdown table whose header has a `goal` column: row name (first `code`) → goal cell. */
function goalColumn(file: string, header: RegExp): Map<string, string> {
  const lines = readFileSync(file, "utf8").split("\n");
  const start = lines.findIndex((l) => header.test(l));
  expect(start, `${file}: no table headed ${header}`).toBeGreaterThanOrEqual(0);
  const heads = lines[start]!.split("|").map((c) => c.trim());
  const at = heads.indexOf("goal");
  const out = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").map((c) => c.trim());
    const name = /^`([^`]+)`/.exec(cells[1]!)?.[1];
    if (name !== undefined) out.set(name, cells[at]!.replace(/\*\*/g, ""));
  }
  return out;
}

describe("bench goals: the docs agree with src/bench/goals.ts", () => {
  it("docs/cli.md's rows table lists every row of the goals table, each with its goal", () => {
    const docs = goalColumn("docs/cli.md", /^\| row \| pagelog \| reference \| goal \|$/);
    for (const [row, goal] of Object.entries(GOALS)) expect(docs.get(row), row).toBe(docText(goal));
  });

  it("docs/performance.md's main table gives each row it lists the goal of the goals table", () => {
    const docs = goalColumn("docs/performance.md", /^\| row \| unit \| .*\| goal \| met \|$/);
    expect(docs.size).toBeGreaterThan(10);
    for (const [row, goal] of docs) {
      expect(Object.hasOwn(GOALS, row), `${row} is in docs/performance.md but not in the goals table`).toBe(true);
      expect(goal, row).toBe(docText(GOALS[row] ?? null));
    }
  });

  it("docs/performance.md is the current figures, not a notebook: one table of one run, dated, no passes", () => {
    const text = readFileSync("docs/performance.md", "utf8");
    const lines = text.split("\n");
    const tables = lines.filter((l) => /^\| row \| unit \| .*\| goal \| met \|$/.test(l));
    expect(tables, "main tables (an older run's table belongs in CHANGELOG.md)").toHaveLength(1);
    // The run it gives says when and where it was measured, above the table.
    const before = lines.slice(0, lines.indexOf(tables[0]!)).join(" ");
    expect(before).toMatch(/\b20\d\d-\d\d-\d\d\b/);
    expect(before).toMatch(/\d+ cores/);
    // History (a pass, a dated run, an issue's before/after) is the changelog's, not a heading here.
    const headings = lines.filter((l) => l.startsWith("#"));
    expect(headings.filter((h) => /\bissue \d+|\bpass\b|\b20\d\d-\d\d-\d\d\b|\bbefore\b/i.test(h))).toEqual([]);
    expect(headings).toEqual(expect.arrayContaining(["## Reproduce", "## What bounds each row"]));
  });

  it("every row of the goals table is a row the bench runs (or one of its sub-rows)", () => {
    const names = new Set(ROWS.map((r) => r.name));
    for (const row of Object.keys(GOALS)) expect(names.has(row) || names.has(row.split("/")[0]!), row).toBe(true);
  });
});
