/**
 * The folder layout is a picture of the layers, and this test keeps it true: imports only go
 * down (storage and format → segment → log → testing → cli), and `node:` built-ins appear only
 * in the fs storage and the CLI, so the log and the simulator run in a browser. And no source
 * file grows past 500 lines.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");

/** What each layer may import, besides itself and the two modules every layer shares (`errors.ts`, `options.ts`). */
const MAY_IMPORT: Record<string, readonly string[]> = {
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
const MAY_USE_NODE = (file: string) => /^storage\/fs-[^/]+\.ts$/.test(file) || file.startsWith("cli/");
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** The layer of a file under src/: its top folder, `entry` for the package entries, `shared` for errors.ts and options.ts. */
const SHARED = new Set(["errors.ts", "options.ts"]);
function layerOf(file: string): string {
  if (SHARED.has(file)) return "shared";
  return file.includes("/") ? file.slice(0, file.indexOf("/")) : "entry";
}

/** Every module a file imports or re-exports, static or dynamic (type-only imports included: they are dependencies too). */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    found.push(m[1] ?? m[2]!);
  }
  return found;
}

const files = sources(SRC).map((path) => relative(SRC, path).split("\\").join("/"));

describe("layers", () => {
  it("imports only go down the layers", () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const spec of importsOf(readFileSync(join(SRC, file), "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const target = relative(SRC, resolve(dirname(join(SRC, file)), spec))
          .split("\\")
          .join("/")
          .replace(/\.js$/, ".ts");
        const to = layerOf(target);
        if (to === from || to === "shared") continue;
        if (!(MAY_IMPORT[from] ?? []).includes(to)) wrong.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("node: built-ins only in the fs storage and the CLI", () => {
    const wrong: string[] = [];
    for (const file of files) {
      for (const spec of importsOf(readFileSync(join(SRC, file), "utf8"))) {
        if (BUILTINS.has(spec) && !MAY_USE_NODE(file)) wrong.push(`${file} imports ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("small files with one job: none in src/ is over 500 lines", () => {
    const long = files
      .map((file) => [file, readFileSync(join(SRC, file), "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > 500);
    expect(long).toEqual([]);
  });

  it("the test sees the whole tree", () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files).toContain("log/log-loader.ts");
  });
});
