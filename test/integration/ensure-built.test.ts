/**
 * scripts/ensure-built.mjs, which `npm run demo`, `fuzz` and `bench` run first: it builds only
 * when dist/ is missing or older than its sources, and quietly. Run on a small package of its own
 * in a temp directory, whose `build` script counts its runs and prints as much as tsup does.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const script = join(repo, "scripts/ensure-built.mjs");
let root: string;

// The build: writes every output, counts itself in builds.txt, and prints 100 lines (or fails).
const BUILD = `
const fs = require("node:fs");
if (fs.existsSync("fail")) { console.log("tsup: error in src/a.ts"); process.exit(3); }
fs.mkdirSync("dist", { recursive: true });
for (const f of ["index.js", "index.d.ts", "cli.js"]) fs.writeFileSync("dist/" + f, "");
fs.appendFileSync("builds.txt", "x");
for (let i = 0; i < 100; i++) console.log("CLI Building entry " + i);
`;

function write(path: string, text = ""): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Sets the mtime of each path to `secondsAgo` before now. */
function age(secondsAgo: number, ...paths: string[]): void {
  const t = Date.now() / 1000 - secondsAgo;
  for (const p of paths) utimesSync(join(root, p), t, t);
}

const SOURCES = ["src", "src/a.ts", "src/sub", "src/sub/b.ts", "src/sub/c.ts", "package.json", "tsup.config.ts"];
const OUTPUTS = ["dist/index.js", "dist/index.d.ts", "dist/cli.js"];

function run() {
  const result = spawnSync(process.execPath, [script], { cwd: root, encoding: "utf8" });
  const builds = readFileSync(join(root, "builds.txt"), "utf8").length;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, builds };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pagelog-ensure-built-"));
  write("build.cjs", BUILD);
  write("builds.txt");
  write(
    "package.json",
    JSON.stringify({
      name: "fixture",
      type: "module",
      exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" }, "./package.json": "./package.json" },
      bin: { fixture: "./dist/cli.js" },
      scripts: { build: "node build.cjs" },
    }),
  );
  write("tsup.config.ts", "export default {};");
  write("src/a.ts", "export const a = 1;");
  write("src/sub/b.ts", "export const b = 2;");
  write("src/sub/c.ts", "export const c = 3;");
  age(200, ...SOURCES);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A finished build, 100 s ago: newer than every source. */
function built(): void {
  expect(run().builds).toBe(1);
  age(100, ...OUTPUTS);
}

describe("scripts/ensure-built.mjs", () => {
  it("builds when dist/ is missing, saying why in one line and hiding the build's output", () => {
    const first = run();
    expect(first).toMatchObject({ status: 0, builds: 1, stdout: "" });
    expect(first.stderr).toMatch(/^pagelog: building dist\/ \(no build yet\)…\npagelog: built in [\d.]+ s\n$/);
  });

  it("does not rebuild a dist/ newer than every source, and prints nothing", () => {
    built();
    expect(run()).toEqual({ status: 0, stdout: "", stderr: "", builds: 1 });
    expect(run().builds).toBe(1);
  });

  it.each(["src/a.ts", "src/sub/c.ts", "tsup.config.ts", "package.json"])("rebuilds when %s is newer", (source) => {
    built();
    age(10, source);
    const again = run();
    expect(again).toMatchObject({ status: 0, builds: 2, stdout: "" });
    expect(again.stderr).toContain(`(${source} changed since the build)`);
    age(0, ...OUTPUTS);
    expect(run().builds).toBe(2);
  });

  it("rebuilds when a source is deleted (its directory changed), or one output is missing", () => {
    built();
    rmSync(join(root, "src/sub/b.ts"));
    expect(run()).toMatchObject({ builds: 2 });
    expect(run()).toMatchObject({ builds: 2 });
    rmSync(join(root, "dist/cli.js"));
    const again = run();
    expect(again).toMatchObject({ status: 0, builds: 3 });
    expect(again.stderr).toContain("(dist/cli.js is missing)");
  });

  it("rebuilds when one output is older than a source although the others are newer", () => {
    built();
    age(150, "src/a.ts");
    age(180, "dist/index.js");
    expect(run()).toMatchObject({ status: 0, builds: 2 });
  });

  it("a failing build exits 1 and shows the build's output", () => {
    write("fail");
    const failed = run();
    expect(failed.status).toBe(1);
    expect(failed.builds).toBe(0);
    expect(failed.stderr).toContain("npm run build failed (exit 3)");
    expect(failed.stderr).toContain("tsup: error in src/a.ts");
  });
});

it("npm run demo, fuzz and bench build through ensure-built, and build and prepack still always build", () => {
  const { scripts } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(scripts.demo).toBe("node scripts/ensure-built.mjs && node dist/cli.js demo");
  expect(scripts.fuzz).toBe("node scripts/ensure-built.mjs && node dist/cli.js fuzz");
  expect(scripts.bench).toMatch(/^node scripts\/ensure-built\.mjs && node bench\/run\.mjs/);
  expect(scripts.prepack).toBe("npm run build");
  // dist/ emptied, then tsup (the JS), then the .d.ts rollups (scripts/api.mjs): always all three.
  expect(scripts.build).toMatch(/rmSync\('dist'.* && tsup && node scripts\/api\.mjs build$/);
});
