/**
 * The folder layout is a picture of the layers (docs/design.md draws it), and this test keeps it
 * true: imports only go down (storage, format, policies and text → segment → log → course →
 * testing → inspect → demo → bench → cli, as MAY_IMPORT says exactly), `node:` built-ins
 * appear only in the fs storage, the bench and the CLI, no two files import each other (directly
 * or round a circle), src/log's rooms import only what LOG_ROOMS lets them, and the web page
 * reaches only browser-clean files (no src/cli, src/bench or fs storage file). How many files a
 * folder may hold is folder-size.test.ts's rule. The checker (import-graph.ts) reads every import
 * form with the TypeScript compiler; layers-checker.test.ts shows it catches what it should.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkTree, type LayerRules, layerOf, roomOf } from "./import-graph.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** What each layer may import, besides itself and the two modules every layer shares (`errors.ts`, `options.ts`). */
const MAY_IMPORT: LayerRules["mayImport"] = {
  util: [],
  storage: ["util"],
  format: ["util"],
  policies: [],
  text: [],
  segment: ["storage", "format", "policies", "util"],
  log: ["storage", "format", "segment", "policies", "util"],
  course: ["storage", "format", "segment", "log", "policies"],
  testing: ["storage", "format", "segment", "log", "course", "policies"],
  inspect: ["storage", "format", "segment", "log", "text"],
  demo: ["storage", "format", "segment", "log", "course", "testing", "policies", "text", "inspect"],
  bench: ["storage", "format", "segment", "log", "testing", "text"],
  kafka: ["storage", "format", "segment", "log", "policies"],
  cli: [
    "storage",
    "format",
    "segment",
    "log",
    "course",
    "testing",
    "policies",
    "text",
    "inspect",
    "demo",
    "bench",
    "kafka",
    "entry",
  ],
  entry: ["storage", "format", "segment", "log", "course", "testing", "policies", "kafka"],
};

/**
 * The rooms of src/log (docs/design.md draws them), bottom up: what each may import besides
 * itself. A room is a folder under src/log, or one of its top files (the façades `log.ts` and
 * `log-dir.ts`). `read-only` sits above `log.ts`: it opens a log in the read-only mode, and
 * nothing below `log-dir.ts` imports it (LogDir loads it only for a read-only open, so a writable
 * log neither runs nor bundles it). A new folder or top file fails the test until it gets a row here.
 */
const LOG_ROOMS: Record<string, readonly string[]> = {
  util: [],
  policies: [],
  options: ["policies"],
  checkpoints: ["util", "options"],
  state: ["options"],
  compaction: ["state", "options"],
  load: ["state", "options", "util", "compaction"],
  write: ["state", "options", "policies", "util", "checkpoints", "compaction"],
  read: ["state", "options"],
  durable: ["state", "options", "read"],
  "log.ts": ["util", "options", "state", "compaction", "load", "write", "read", "durable"],
  "read-only": ["state", "options", "load", "compaction", "checkpoints", "log.ts"],
  consumers: ["util", "options", "checkpoints", "log.ts"],
  topic: ["util", "options", "checkpoints", "consumers", "read", "log.ts"],
  "log-dir.ts": ["util", "options", "checkpoints", "consumers", "topic", "log.ts", "read-only"],
};

/** Where `node:` built-ins may be imported: the fs storage, the benchmark harness and the CLI. */
const MAY_USE_NODE: LayerRules["mayUseNode"] = (file) =>
  /^storage\/fs-[^/]+\.ts$/.test(file) || file.startsWith("bench/") || file.startsWith("cli/");

/** Every .ts/.mts file under `dir` (repository-relative, `/`-separated), as path and text. */
function readTree(dir: string): Array<[string, string]> {
  return readdirSync(join(ROOT, dir)).flatMap((name): Array<[string, string]> => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return readTree(path);
    return /\.m?ts$/.test(name) ? [[path, readFileSync(join(ROOT, path), "utf8")]] : [];
  });
}

const layerOfPath = (path: string) => (path.startsWith("src/") ? layerOf(path.slice(4)) : path);

const tree = new Map([...readTree("src"), ...readTree("web/src")]);
const report = checkTree(tree, { mayImport: MAY_IMPORT, mayUseNode: MAY_USE_NODE, rooms: { log: LOG_ROOMS } });

describe("layers", () => {
  it("imports only go down the layers", () => {
    expect(report.upward).toEqual([]);
  });

  it("src/log's rooms import only the rooms their row of the table names", () => {
    expect(report.rooms).toEqual([]);
  });

  it("every room of src/log has a row, and no row names a room that is gone", () => {
    const rooms = new Set([...tree.keys()].filter((p) => p.startsWith("src/log/")).map((p) => roomOf(p.slice(4))));
    expect([...rooms].sort()).toEqual(Object.keys(LOG_ROOMS).sort());
  });

  it("node: built-ins only in the fs storage, the bench and the CLI", () => {
    expect(report.node).toEqual([]);
  });

  it("no import cycle between files, runtime or type-only", () => {
    expect(report.cycles).toEqual([]);
  });

  it("every relative import names a file, and none is computed outside the CLI", () => {
    expect(report.unresolved).toEqual([]);
    expect(report.computed).toEqual([]);
  });

  it("web/src reaches only browser-clean files: nothing in src/cli, src/bench or the fs storage", () => {
    expect(report.web).toEqual([]);
    const reached = report.edges.filter((e) => e.from.startsWith("web/src/") && e.target?.startsWith("src/"));
    expect(reached.some((e) => e.target!.startsWith("src/demo/"))).toBe(true);
  });

  it("the course policy types are declared once, in src/policies/policy-types.ts, and imported from there", () => {
    const names = [
      "CoursePolicies",
      "IndexEntry",
      "RetentionSegment",
      "RetentionConfig",
      "RecoverHelpers",
      "PolicyName",
    ];
    const declares = new RegExp(`^\\s*(export\\s+)?(declare\\s+)?(interface|type)\\s+(${names.join("|")})\\b`, "m");
    const declaring = [...tree].filter(([, text]) => declares.test(text)).map(([path]) => path);
    expect(declaring).toEqual(["src/policies/policy-types.ts"]);
    const users = new Set(
      report.edges.filter((e) => e.target === "src/policies/policy-types.ts").map((e) => layerOfPath(e.from)),
    );
    for (const layer of ["segment", "log", "course"]) expect(users).toContain(layer);
  });

  it("every file a src/ comment names (`log-loader.ts`, `main.ts`) is a file of the repository", () => {
    const names = new Set(
      [...tree.keys(), ...readTree("test").map(([path]) => path)].map((p) => p.slice(p.lastIndexOf("/") + 1)),
    );
    const named = [...tree]
      .filter(([path]) => path.startsWith("src/"))
      .flatMap(([path, text]) =>
        [...text.matchAll(/(?<![\w.-])[a-z0-9][a-z0-9-]*\.m?ts\b/g)].map((m) => [path, m[0]] as const),
      );
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter(([, name]) => !names.has(name)).map(([path, name]) => `${path} names ${name}`)).toEqual([]);
  });

  it("the test sees the whole tree and every import form", () => {
    expect(tree.size).toBeGreaterThan(150);
    expect(tree.has("src/log/load/log-loader.ts")).toBe(true);
    expect(tree.has("web/src/main.ts")).toBe(true);
    const forms = new Set(report.edges.map((e) => e.form));
    for (const form of ["import", "export from", "import()", "require()", "import type expression"])
      expect(forms).toContain(form);
    expect(report.edges.filter((e) => e.target !== undefined).length).toBeGreaterThan(600);
  });
});
