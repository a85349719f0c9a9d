/**
 * Names a reader can trust: an exported name is declared in one src/ file (grepping `Step` lands
 * on one thing), and a src/ file exports only what some file imports or a public entry
 * (src/*.ts, which the docs' examples import as `pagelog`, `pagelog/testing`, …) exports. The
 * importers counted are src/, web/src (the page) and test/: a test that imports an internal
 * bound to probe it (`MAX_READ_BYTES`) uses that export as a seam, where the alternative is a
 * copy of the number. A new collision or dead export fails; the few dead exports still listed
 * below may only go (an entry that is no longer one fails too: delete it from the list).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkExports } from "./export-names.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every .ts/.mts file under `dir`, as repository-relative path and text. */
function readTree(dir: string): Array<[string, string]> {
  return readdirSync(join(ROOT, dir)).flatMap((name): Array<[string, string]> => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return readTree(path);
    return /\.m?ts$/.test(name) ? [[path, readFileSync(join(ROOT, path), "utf8")]] : [];
  });
}

/**
 * Names declared in several files on purpose: every CLI command module exports its `run`, which
 * main.ts picks by the command's name.
 */
const SHARED_NAMES = new Set(["run"]);

/**
 * Exports nothing imports that were there when the rule came in, and are left: one inspect file's,
 * kept for the engineer changing that file in the same round as the rest were cleared. Each should
 * lose its `export` (or go); the list only shrinks.
 */
const KNOWN_DEAD: Record<string, readonly string[]> = {
  "src/inspect/dir-kind.ts": ["DirContents", "LOG_DIR_FILES", "LogDirScan", "isPartitionFileName"],
};

const findings = checkExports(new Map([...readTree("src"), ...readTree("test"), ...readTree("web/src")]));

describe("exported names", () => {
  it("each exported name is declared in one src/ file", () => {
    const collisions = findings.collisions.filter((c) => !SHARED_NAMES.has(c.slice(0, c.indexOf(":"))));
    expect(collisions).toEqual([]);
  });

  it("every export of a src/ file is imported somewhere or public (but the known ones)", () => {
    const known = Object.entries(KNOWN_DEAD).flatMap(([file, names]) => names.map((n) => `${file}: ${n}`));
    expect(findings.dead).toEqual(known.sort());
  });

  it("src/log has no collision and no dead export left", () => {
    expect(findings.collisions.filter((c) => c.includes("src/log/"))).toEqual([]);
    expect(findings.dead.filter((d) => d.startsWith("src/log/"))).toEqual([]);
  });
});

/** Every module the code blocks of a Markdown page import or load. */
function codeBlockImports(text: string): string[] {
  const blocks = [...text.matchAll(/^```(?:ts|js|mjs|cjs|typescript|javascript)\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  return blocks.flatMap((code) =>
    [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([^"']+)["']/gm)].map(
      (m) => m[1]!,
    ),
  );
}

/** The imports of pagelog among `imports` that are not one of its entries (`pagelog`, `pagelog/testing`, …). */
function pastTheEntries(imports: readonly string[]): string[] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: object };
  const entries = new Set(Object.keys(exports).map((k) => (k === "." ? "pagelog" : `pagelog${k.slice(1)}`)));
  return imports.filter((i) => (i.startsWith("pagelog") || /(^|\/)(src|dist)\//.test(i)) && !entries.has(i));
}

describe("the docs' examples", () => {
  const pages = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((n) => n.endsWith(".md"))
      .map((n) => `docs/${n}`),
  ];
  const imports = pages.flatMap((page) => codeBlockImports(readFileSync(join(ROOT, page), "utf8")));

  it("import pagelog only through the package's entries, so an entry's exports are all they can use", () => {
    expect(imports.filter((i) => i === "pagelog").length).toBeGreaterThan(5);
    expect(pastTheEntries(imports)).toEqual([]);
  });

  it("a planted example reaching past the entries is refused", () => {
    const page = [
      "```ts",
      'import { LogDir } from "pagelog";',
      'import { Log } from "pagelog/src/log/log.js";',
      'const { readRecords } = await import("../src/format/record-codec.js");',
      "```",
    ].join("\n");
    expect(pastTheEntries(codeBlockImports(page))).toEqual(["pagelog/src/log/log.js", "../src/format/record-codec.js"]);
  });
});

describe("the export checker on planted trees", () => {
  const CLEAN = {
    "src/index.ts": 'export { open } from "./log/log.js";',
    "src/log/log.ts": 'import { Q } from "./queue.js";\nexport function open(): Q { return new Q(); }',
    "src/log/queue.ts": "export class Q {}",
    "test/log.test.ts": 'import * as all from "../src/log/queue.js";',
  };
  const check = (planted: Record<string, string>) => checkExports(new Map(Object.entries({ ...CLEAN, ...planted })));

  it("finds nothing in a clean tree: a public export, an imported one, a namespace import", () => {
    expect(check({})).toEqual({ collisions: [], dead: [] });
  });

  it("refuses an export nothing imports, whatever its kind", () => {
    const found = check({
      "src/log/queue.ts":
        "export class Q {}\nexport const LIMIT = 3;\nexport interface Unused {}\nconst a = 1;\nexport { a as alias };",
      "test/log.test.ts": 'import { Q } from "../src/log/queue.js";',
    });
    expect(found.dead).toEqual(["src/log/queue.ts: LIMIT", "src/log/queue.ts: Unused", "src/log/queue.ts: alias"]);
  });

  it("counts an import type expression, an export from and an import() as uses", () => {
    const found = check({
      "src/log/queue.ts": "export class Q {}\nexport type T = 1;\nexport const U = 2;\nexport const V = 3;",
      "src/log/more.ts": 'export { U } from "./queue.js";\nexport type X = import("./queue.js").T;',
      "src/log/lazy.ts": 'export const load = () => import("./queue.js");',
      "test/log.test.ts":
        'import { X } from "../src/log/more.js";\nimport { U } from "../src/log/more.js";\nimport { load } from "../src/log/lazy.js";',
    });
    expect(found.dead).toEqual([]);
  });

  it("refuses one name declared in two files, a type and a function alike", () => {
    const found = check({
      "src/demo/step.ts": "export type Step = 1;",
      "src/log/plan.ts": "export function Step() {}",
      "test/t.test.ts": 'import { Step } from "../src/demo/step.js";\nimport { Step as S } from "../src/log/plan.js";',
    });
    expect(found).toEqual({ collisions: ["Step: src/demo/step.ts, src/log/plan.ts"], dead: [] });
  });
});
