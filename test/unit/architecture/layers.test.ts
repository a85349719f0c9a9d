/**
 * The folder layout is a picture of the layers, and this test keeps it true: imports only go
 * down (storage and format → segment → log → course → testing → cli), `node:` built-ins appear
 * only in the fs storage and the CLI, no two files import each other (directly or round a
 * circle), and the web page reaches only browser-clean files. And no source file grows past 500
 * lines. The checker (import-graph.ts) reads every import form with the TypeScript compiler;
 * layers-checker.test.ts shows it catches what it should.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkTree, type LayerRules } from "./import-graph.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** What each layer may import, besides itself and the two modules every layer shares (`errors.ts`, `options.ts`). */
const MAY_IMPORT: LayerRules["mayImport"] = {
  storage: [],
  format: [],
  segment: ["storage", "format"],
  log: ["storage", "format", "segment"],
  course: ["storage", "format", "segment", "log"],
  testing: ["storage", "format", "segment", "log", "course"],
  cli: ["storage", "format", "segment", "log", "course", "testing", "entry"],
  entry: ["storage", "format", "segment", "log", "course", "testing"],
};

/** Where `node:` built-ins may be imported. */
const MAY_USE_NODE: LayerRules["mayUseNode"] = (file) =>
  /^storage\/fs-[^/]+\.ts$/.test(file) || file.startsWith("cli/");

/**
 * The src/cli files the web page reaches today (directly or through each other), all free of
 * `node:`. They belong in browser-clean layers of their own (issue 19: the demo session and strip
 * in one, the lenient batch walker in another); the move empties this list, and the test fails
 * both on a file the page newly reaches in src/cli and on an entry here the page no longer needs.
 */
const WEB_ALLOWED_CLI = new Set([
  "cli/demo/policy-outcome.ts",
  "cli/demo/render.ts",
  "cli/demo/script.ts",
  "cli/demo/session.ts",
  "cli/demo/strip.ts",
  "cli/files/batch-walk.ts",
  "cli/io.ts",
  "cli/plural.ts",
  "cli/style.ts",
]);

/** Every .ts/.mts file under `dir` (repository-relative, `/`-separated), as path and text. */
function readTree(dir: string): Array<[string, string]> {
  return readdirSync(join(ROOT, dir)).flatMap((name): Array<[string, string]> => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return readTree(path);
    return /\.m?ts$/.test(name) ? [[path, readFileSync(join(ROOT, path), "utf8")]] : [];
  });
}

const tree = new Map([...readTree("src"), ...readTree("web/src")]);
const report = checkTree(tree, { mayImport: MAY_IMPORT, mayUseNode: MAY_USE_NODE, webAllowed: WEB_ALLOWED_CLI });

describe("layers", () => {
  it("imports only go down the layers", () => {
    expect(report.upward).toEqual([]);
  });

  it("node: built-ins only in the fs storage and the CLI", () => {
    expect(report.node).toEqual([]);
  });

  it("no import cycle between files, runtime or type-only", () => {
    expect(report.cycles).toEqual([]);
  });

  it("every relative import names a file, and none is computed outside the CLI", () => {
    expect(report.unresolved).toEqual([]);
    expect(report.computed).toEqual([]);
  });

  it("web/src reaches only browser-clean files (src/cli only through the shrinking allow-list)", () => {
    expect(report.web).toEqual([]);
    expect(report.webAllowedUsed).toEqual([...WEB_ALLOWED_CLI].sort());
  });

  it("small files with one job: none in src/ is over 500 lines", () => {
    const long = [...tree]
      .filter(([path]) => path.startsWith("src/"))
      .map(([path, text]) => [path, text.split("\n").length - 1] as const)
      .filter(([, lines]) => lines > 500);
    expect(long).toEqual([]);
  });

  it("the test sees the whole tree and every import form", () => {
    expect(tree.size).toBeGreaterThan(150);
    expect(tree.has("src/log/log-loader.ts")).toBe(true);
    expect(tree.has("web/src/main.ts")).toBe(true);
    const forms = new Set(report.edges.map((e) => e.form));
    for (const form of ["import", "export from", "import()", "require()", "import type expression"])
      expect(forms).toContain(form);
    expect(report.edges.filter((e) => e.target !== undefined).length).toBeGreaterThan(600);
  });
});
