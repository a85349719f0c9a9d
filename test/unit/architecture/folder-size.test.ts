/**
 * The shape rule for files: no folder of code holds more than 15 files. It replaces a cap of 500
 * lines per file, which shaped the code instead of its concepts: files were cut in two, or split
 * off with a header saying they existed to keep another file under the cap, wherever the line
 * count fell, and nothing stopped a folder from growing to 49 files (src/log, before its rooms).
 * A long file with one job reads fine; a crowded folder hides which files belong together. So a
 * folder past 15 is split into folders named after its concepts, as src/log's rooms and
 * test/unit/cli's command folders are. Where a split would not follow a concept, the folder is in
 * ALLOWED with its reason and its count, and that list may only shrink.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { filesPerFolder, folderProblems, type AllowedFolder, type FolderRules } from "./folder-size.js";

const ROOT = resolve(import.meta.dirname, "../../..");

/** The most files one folder may hold (its subfolders' files do not count). */
const LIMIT = 15;

/** The folders of code the rule holds: every folder under these (docs/ is prose, its map the README). */
const ROOTS = ["src", "test", "web", "bench", "scripts"];

/**
 * Allowed over the limit, each because its files are a flat catalogue, not a mix of concepts.
 * An entry may not grow, and an entry whose folder shrank asks to be lowered or removed.
 */
const ALLOWED: readonly AllowedFolder[] = [
  {
    folder: "test/fixtures/policies",
    maxFiles: 32,
    reason:
      "data, not code: one student module per wrong (or right) answer of the course, named by its chapter " +
      "(lookup-*, recover-*, retention-*, varint-*); check.test.ts and docs/homework.md name them by path",
  },
  {
    folder: "test/integration",
    maxFiles: 28,
    reason:
      "a tier (vitest's integration project): real processes, real and huge files, the packed package. Each " +
      "file is one scenario already named by its subject; docs/testing.md and the README's guarantees table " +
      "link them by path. To be split by subject (cli-*, fs-*, compaction-*) when those links move with them",
  },
  {
    folder: "test/property",
    maxFiles: 27,
    reason:
      "a tier (vitest's property project): the crash and model properties, each named after the guarantee " +
      "it checks and linked by path from the README's guarantees table and docs/guarantees.md. To be split " +
      "by subject (crash, compaction, followers, course) when those links move with them",
  },
];

/** Every file under `dir`, repository-relative; node_modules and dot-folders are not the project's. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name.startsWith(".")) return [];
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

const counts = filesPerFolder(ROOTS.flatMap(filesUnder));

describe("files per folder", () => {
  it(`no folder of code holds more than ${LIMIT} files but the allowed ones, which may only shrink`, () => {
    // Printed on every run: the fullest folders, the next to split.
    const fullest = [...counts].sort(([, a], [, b]) => b - a).slice(0, 6);
    console.log(`fullest folders:\n  ${fullest.map(([f, n]) => `${n} ${f}`).join("\n  ")}`);
    expect(counts.get("src/log/compaction")).toBeGreaterThan(5);
    expect(folderProblems(counts, { limit: LIMIT, allowed: ALLOWED })).toEqual([]);
  });

  it("every allowed folder says why a split would not follow a concept", () => {
    for (const entry of ALLOWED) expect(entry.reason, entry.folder).toMatch(/\w{4,}.{40,}/);
  });

  it("no source file says it exists to keep another file within a size", () => {
    // With the cap gone, such a file is either a concept of its own (and its header says which)
    // or folded back into the file it was cut from.
    const excuse =
      /(stays?|keeps?|kept) (with)?in (its|the|a) (size|cap|line cap|\d+ lines)|under the (\d+-line )?cap/i;
    const excuses = filesUnder("src").filter((path) => excuse.test(readFileSync(join(ROOT, path), "utf8")));
    expect(excuses).toEqual([]);
    expect(excuse.test("Its own file so that `log-dir.ts` stays within its size.")).toBe(true);
  });
});

describe("the folder checker on planted trees", () => {
  const RULES: FolderRules = { limit: 3, allowed: [] };
  const folder = (name: string, n: number) => Array.from({ length: n }, (_, i) => `${name}/f${i}.ts`);

  it("counts the files directly in each folder, not its subfolders'", () => {
    const found = filesPerFolder([...folder("src/log", 2), ...folder("src/log/read", 3), "README.md"]);
    expect(Object.fromEntries(found)).toEqual({ "src/log": 2, "src/log/read": 3, ".": 1 });
  });

  it("refuses a planted folder over the limit, and passes one at it", () => {
    const counts = filesPerFolder([...folder("src/crowded", 4), ...folder("src/fits", 3)]);
    expect(folderProblems(counts, RULES)).toEqual([
      "src/crowded: 4 files, over 3; split it into folders named after its concepts",
    ]);
  });

  it("an allowed folder may not grow; one that shrank asks to lower its count, or to go", () => {
    const allow = (maxFiles: number): FolderRules => ({
      ...RULES,
      allowed: [{ folder: "test/tier", maxFiles, reason: "a tier" }],
    });
    const five = filesPerFolder(folder("test/tier", 5));
    expect(folderProblems(five, allow(5))).toEqual([]);
    expect(folderProblems(five, allow(4))).toEqual(["test/tier: 5 files, more than the 4 it was allowed; split it"]);
    expect(folderProblems(five, allow(6))).toEqual(["test/tier: now 5 files; lower its maxFiles from 6 to 5"]);
    expect(folderProblems(filesPerFolder(folder("test/tier", 3)), allow(5))).toEqual([
      "test/tier: allowed over 3 files but now 3 files; remove its entry",
    ]);
    expect(folderProblems(new Map(), allow(5))).toEqual([
      "test/tier: allowed over 3 files but now gone; remove its entry",
    ]);
  });
});
