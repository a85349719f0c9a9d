#!/usr/bin/env node
/**
 * `npm run demo`, `fuzz` and `bench` run the built CLI: this builds dist/ first only when it is
 * missing or older than what it is built from, so that a built checkout starts in about a second
 * instead of after a 20 s rebuild. When it must build, it says so in one line on stderr and keeps
 * tsup's hundred lines to itself unless the build fails. `npm run build` (and `prepack`) still
 * always build from scratch.
 *
 * Run in the package root (npm runs scripts there): `node scripts/ensure-built.mjs`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

/** What dist/ is built from, besides everything under src/. */
const CONFIG_FILES = ["package.json", "tsup.config.ts", "tsconfig.json", "tsconfig.build.json", "scripts/api.mjs"];

/** Every file and directory under `dir` (a directory's mtime moves when an entry is added, removed or renamed). */
function* walk(dir) {
  yield dir;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** The built files package.json promises: every path in `exports`, `main`, `module`, `types` and `bin`. */
function outputsOf(manifest) {
  const paths = [];
  const collect = (value) => {
    if (typeof value === "string") paths.push(value);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect([manifest.exports, manifest.main, manifest.module, manifest.types, manifest.bin]);
  // "./package.json" is the manifest itself, not a build output.
  return [...new Set(paths)].filter((p) => p !== "./package.json");
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch (err) {
    if (err.code === "ENOENT") return undefined;
    throw err;
  }
}

/** Why `root`'s build must be redone ("dist/cli.js is missing", "src/log/log.ts changed since the build"), or null. */
export function staleReason(root) {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const outputs = outputsOf(manifest);
  if (outputs.length === 0) return "package.json names no built file";
  const mtimes = outputs.map((output) => mtimeOf(join(root, output)));
  if (mtimes.every((m) => m === undefined)) return "no build yet";
  const missing = outputs.find((_, i) => mtimes[i] === undefined);
  if (missing !== undefined) return `${join(missing)} is missing`;
  const oldestOutput = Math.min(...mtimes);
  const inputs = [...CONFIG_FILES.map((f) => join(root, f)), ...walk(join(root, "src"))];
  for (const input of inputs) {
    const mtime = mtimeOf(input);
    if (mtime !== undefined && mtime > oldestOutput) return `${relative(root, input) || "."} changed since the build`;
  }
  return null;
}

/** Builds `root` with `npm run build` when {@link staleReason} says so. Returns whether it built. */
export function ensureBuilt(root, { log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const reason = staleReason(root);
  if (reason === null) return false;
  log(`pagelog: building dist/ (${reason})…`);
  const started = Date.now();
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const build = spawnSync(npm, ["run", "build", "--silent"], { cwd: root, encoding: "utf8", shell: false });
  if (build.status !== 0) {
    const output = `${build.stdout ?? ""}${build.stderr ?? ""}${build.error ? String(build.error) : ""}`;
    throw new Error(`npm run build failed (exit ${build.status}):\n${output}`);
  }
  log(`pagelog: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    ensureBuilt(process.cwd());
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  }
}
