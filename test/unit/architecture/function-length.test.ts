/**
 * No function in src/ over 70 lines (a reader holds one on a screen), as TigerBeetle's tidy.zig
 * holds its 70-line rule, except the few allowed below, each with its reason; and a ratchet: the
 * longest of the rest, as committed. A function that grows past it fails; one that shrinks asks
 * for the number to come down. A long function is split where its concepts part, not in halves.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  functionLengths,
  lengthProblems,
  longestFunctions,
  type Allowed,
  type LengthRules,
} from "./function-length.js";

const ROOT = resolve(import.meta.dirname, "../../..");

const LIMIT = 70;

/**
 * The ratchet: the longest function in src/ outside ALLOWED. Lower it when it shrinks; never raise
 * it. The longest today is readRecords (src/format/record-codec.ts), at the limit.
 */
const LONGEST = 70;

/**
 * Allowed over the limit. Declarative tables only, for good; the "split by …" entries are
 * temporary, for functions another change of issue 19 is splitting.
 */
const ALLOWED: readonly Allowed[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

const src = sourceFiles("src").flatMap((file) => functionLengths(file, readFileSync(join(ROOT, file), "utf8")));

/** `n` lines of body between a header and a closing line: a function `n + 2` lines long. */
function planted(header: string, n: number, footer = "}"): string {
  return [header, ...Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`), footer].join("\n");
}

const RULES: LengthRules = { limit: 100, allowed: [], longest: 100 };

describe("function length", () => {
  it(`no function in src/ is over ${LIMIT} lines but the allowed ones, and the longest is the ratchet's`, () => {
    // Printed on every run: the five to split next.
    console.log(`longest functions in src/:\n  ${longestFunctions(src, 5).join("\n  ")}`);
    expect(src.length).toBeGreaterThan(500);
    expect(lengthProblems(src, { limit: LIMIT, allowed: ALLOWED, longest: LONGEST })).toEqual([]);
  });

  it("every allowed function says why", () => {
    for (const entry of ALLOWED) expect(entry.reason, `${entry.file} ${entry.name}`).toMatch(/\w{4,}/);
  });
});

describe("the function-length checker", () => {
  it("measures declarations, methods, accessors, constructors, arrows and function expressions, by name", () => {
    const text = [
      "export function top(): void {", //                              1
      "  const inner = () => {", //                                    2
      "    return 1;", //                                              3
      "  };", //                                                       4
      "}", //                                                          5
      "class Log {", //                                                6
      "  constructor() {}", //                                         7
      "  append(): void {", //                                         8
      "    void 0;", //                                                9
      "  }", //                                                        10
      "  get size(): number {", //                                     11
      "    return 0;", //                                              12
      "  }", //                                                        13
      "}", //                                                          14
      "const RESOLVERS = {", //                                        15
      "  seed: function (x: number) {", //                             16
      "    return x;", //                                              17
      "  },", //                                                       18
      "  pageSize(x: number) { return x; },", //                       19
      "};", //                                                         20
      "[1].map((x) => x);", //                                         21
      "declare function bodiless(): void;", //                         22
    ].join("\n");
    const found = functionLengths("src/x.ts", text).map((f) => `${f.name}@${f.line}:${f.lines}`);
    expect(found).toEqual([
      "top@1:5",
      "inner@2:3",
      "Log.constructor@7:1",
      "Log.append@8:3",
      "Log.size@11:3",
      "seed@16:3",
      "RESOLVERS.pageSize@19:1",
      "<anonymous>@21:1",
    ]);
  });

  it("a planted 101-line function fails; one of 100 lines passes", () => {
    const long = functionLengths("src/long.ts", planted("export function long(): void {", 99));
    expect(long).toEqual([{ file: "src/long.ts", name: "long", line: 1, lines: 101 }]);
    expect(lengthProblems(long, RULES)).toContain(
      "src/long.ts:1 long (101 lines): over 100 lines; split it along its seams",
    );
    const arrow = functionLengths("src/a.ts", planted("export const a = async () => {", 99, "};"));
    expect(lengthProblems(arrow, RULES).join("\n")).toMatch(/src\/a\.ts:1 a \(101 lines\): over 100 lines/);
    const method = functionLengths("src/m.ts", planted("class M {\n  m(): void {", 99, "  }\n}"));
    expect(lengthProblems(method, RULES).join("\n")).toMatch(/src\/m\.ts:2 M\.m \(101 lines\): over 100 lines/);
    const fits = functionLengths("src/fits.ts", planted("function fits(): void {", 98));
    expect(lengthProblems(fits, RULES)).toEqual([]);
  });

  it("the ratchet fails a function longer than the committed longest, and asks to lower it when shorter", () => {
    const at60 = functionLengths("src/f.ts", planted("function f(): void {", 58));
    expect(lengthProblems(at60, { ...RULES, longest: 60 })).toEqual([]);
    expect(lengthProblems(at60, { ...RULES, longest: 59 })).toEqual([
      "the longest function is 60 lines, over the ratchet's 59",
    ]);
    expect(lengthProblems(at60, { ...RULES, longest: 61 })).toEqual([
      "the longest function is now 60 lines: lower the ratchet from 61 to 60",
    ]);
  });

  it("an allowed function may not grow, and an entry whose function shrank or went is stale", () => {
    const table = functionLengths("src/t.ts", planted("function table(): void {", 118)); // 120 lines
    const allow = (maxLines: number): LengthRules => ({
      ...RULES,
      longest: 0,
      allowed: [{ file: "src/t.ts", name: "table", maxLines, reason: "a declarative table" }],
    });
    expect(lengthProblems(table, allow(120))).toEqual([]);
    expect(lengthProblems(table, allow(119))).toEqual(["src/t.ts table: 120 lines, more than the 119 it was allowed"]);
    const split = functionLengths("src/t.ts", planted("function table(): void {", 50));
    expect(lengthProblems(split, allow(120))).toEqual([
      "src/t.ts table: allowed over 100 lines but now 52 lines; remove its entry",
    ]);
    expect(lengthProblems([], allow(120))).toEqual([
      "src/t.ts table: allowed over 100 lines but now gone; remove its entry",
    ]);
  });
});
