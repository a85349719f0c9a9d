/**
 * Every export of every entry is listed in docs/entry-points.md, and nothing listed there is
 * missing: a name added to or dropped from an entry fails here until the doc says so. Also the
 * split itself: the root has no FsStorage and no codec, the Node root adds only FsStorage.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const doc = readFileSync(resolve(repo, "docs/entry-points.md"), "utf8");

/** The names in the first column of the tables of the doc's section `## \`heading\``. */
function documented(heading: string): string[] {
  const start = doc.indexOf(`## \`${heading}\`\n`);
  expect(start, `docs/entry-points.md has a section ## \`${heading}\``).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([A-Za-z0-9_]+)` \|/gm)].map((m) => m[1]!);
}

/** The type-only names an entry file exports (`export type { … }`), following `export *` of local entries. */
function typeExports(file: string): string[] {
  const source = readFileSync(resolve(repo, "src", file), "utf8");
  const names = [...source.matchAll(/export type \{([^}]*)\}/g)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((n) =>
        n
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      )
      .filter((n) => n.length > 0),
  );
  for (const m of source.matchAll(/export \* from "\.\/([a-z-]+)\.js"/g)) names.push(...typeExports(`${m[1]}.ts`));
  return names;
}

async function exportsOf(file: string): Promise<string[]> {
  const values = Object.keys((await import(resolve(repo, "src", file))) as object);
  return [...new Set([...values, ...typeExports(file)])].sort();
}

describe("the entry points match docs/entry-points.md", () => {
  it("pagelog (the browser-clean root, src/index.ts)", async () => {
    const names = await exportsOf("index.ts");
    const listed = documented("pagelog").filter((n) => n !== "FsStorage");
    expect(names).toEqual([...new Set(listed)].sort());
    expect(names).not.toContain("FsStorage");
    expect(names).not.toContain("ErrorCodeValue");
    expect(names).not.toContain("encodeBatch");
  });

  it("pagelog in Node (src/node.ts) is the root plus FsStorage", async () => {
    const root = await exportsOf("index.ts");
    expect(await exportsOf("node.ts")).toEqual([...root, "FsStorage"].sort());
    expect(documented("pagelog")).toContain("FsStorage");
  });

  it("pagelog/format", async () => {
    expect(await exportsOf("format.ts")).toEqual([...new Set(documented("pagelog/format"))].sort());
  });

  it("pagelog/kafka", async () => {
    expect(await exportsOf("kafka.ts")).toEqual([...new Set(documented("pagelog/kafka"))].sort());
  });

  it("pagelog/course", async () => {
    expect(await exportsOf("course.ts")).toEqual(documented("pagelog/course").sort());
  });

  it("pagelog/fs", async () => {
    expect(await exportsOf("fs.ts")).toEqual(documented("pagelog/fs").sort());
  });
});
