#!/usr/bin/env node
/**
 * The published types and the API report, from one declaration emit (`tsc -p tsconfig.build.json`
 * into .tmp/types, `@internal` members stripped) run through api-extractor once per entry point.
 *
 *   node scripts/api.mjs build    dist/<entry>.d.ts and .d.cts: one self-contained file per entry
 *   node scripts/api.mjs check    fails when etc/<entry>.api.md differs from the surface, or when
 *                                 an export has no TSDoc or references a type no entry exports
 *   node scripts/api.mjs update   rewrites etc/<entry>.api.md (`npm run api:update`)
 *
 * `node` is not rolled up: it is the root plus FsStorage (src/node.ts), so its .d.ts re-exports
 * the `index` and `fs` files by name. One FsStorage declaration then serves `pagelog` and
 * `pagelog/fs`, as one class does at run time.
 *
 * The emit and the rollups are kept in .tmp/api-cache/<key>/, the key a hash of everything they
 * are made from (src/, the tsconfigs, this file, the compiler's and api-extractor's versions):
 * `npm run lint` runs `check` and then, on a clean clone, the build, whose `build` then reuses
 * the check's emit and rollups instead of making them again (about 20 CPU-s of 45).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const { Extractor, ExtractorConfig, ExtractorLogLevel, ExtractorMessageCategory } = require("@microsoft/api-extractor");

/** The entry points package.json exports, by their file in src/. */
export const ENTRIES = ["index", "node", "format", "fs", "testing", "course", "kafka"];
/** Entries whose .d.ts is a rollup; `node` re-exports two of them. */
const ROLLED_UP = ENTRIES.filter((e) => e !== "node");
/** The kept emits and rollups, one directory per key (see cacheKey). */
const CACHE = join(repo, ".tmp/api-cache");
/** A kept key unused this long is removed by the next run that makes a new one. */
const CACHE_KEEP_MS = 60 * 60_000;
// Set by main(): the kept declaration emit (`<key>/types`) this run reads.
let TYPES;
// This process's own scratch directory: a build (a test's ensure-built) and a lint may run at once.
const SCRATCH = join(CACHE, `scratch-${process.pid}`);

/** Every file under `dir`, relative to the repo, sorted. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(repo, join(dir, e.name))]));
}

/** A hash of everything the emit and the rollups are made from. */
function cacheKey() {
  const hash = createHash("sha256");
  const version = (pkg) => JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")).version;
  hash.update(`${version("typescript")} ${version("@microsoft/api-extractor")} ${version("@types/node")}\0`);
  for (const file of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts/api.mjs",
    ...filesUnder(join(repo, "src")),
  ]) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(repo, file)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 32);
}

/** Moves `from` to `to` unless another process got there first (then `from` is dropped). */
function publish(from, to) {
  try {
    renameSync(from, to);
  } catch (err) {
    if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
    rmSync(from, { recursive: true, force: true });
  }
}

/** Removes the kept keys other than `key` that no run has used for CACHE_KEEP_MS. */
function prune(key) {
  for (const name of readdirSync(CACHE)) {
    if (name === key || name.startsWith("scratch-")) continue;
    const path = join(CACHE, name);
    if (Date.now() - statSync(path).mtimeMs > CACHE_KEEP_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** What dist/node.d.ts says, for ESM and (with .cjs) CJS: src/node.ts's exports, by name. */
function nodeEntry(ext) {
  return [
    "/** The package root in Node: the browser-clean root plus FsStorage (and `LogDir.open(path)`). */",
    `export * from "./index.${ext}";`,
    `export { FsStorage } from "./fs.${ext}";`,
    "",
  ].join("\n");
}

/** The declaration emit into `outDir`. */
function emitDeclarations(outDir) {
  const tsc = join(repo, "node_modules/typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(repo, "tsconfig.build.json"), "--outDir", outDir], {
      cwd: repo,
      stdio: "pipe",
    });
  } catch (err) {
    process.stderr.write(`${err.stdout ?? ""}${err.stderr ?? ""}`);
    throw new Error("tsc -p tsconfig.build.json failed");
  }
}

/** api-extractor's configuration for one entry point; the rollup (for the rolled-up entries) goes to `rollups`. */
function configFor(entry, mode, rollups) {
  return {
    projectFolder: repo,
    mainEntryPointFilePath: join(TYPES, `${entry}.d.ts`),
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022"],
          module: "ESNext",
          moduleResolution: "Bundler",
          strict: true,
          types: ["node"],
          skipLibCheck: true,
        },
        files: [join(TYPES, `${entry}.d.ts`)],
      },
    },
    apiReport: {
      enabled: mode !== "build",
      reportFileName: entry,
      reportFolder: join(repo, "etc"),
      reportTempFolder: join(SCRATCH, "api"),
    },
    docModel: { enabled: false },
    tsdocMetadata: { enabled: false },
    // Made in `check` too (the same invocation, little more work), so that a build after it copies them.
    dtsRollup: { enabled: ROLLED_UP.includes(entry), untrimmedFilePath: join(rollups, `${entry}.d.ts`) },
    newlineKind: "lf",
    messages: {
      compilerMessageReporting: { default: { logLevel: "error" } },
      extractorMessageReporting: {
        default: { logLevel: "error", addToApiReportFile: false },
        "ae-forgotten-export": { logLevel: "error", addToApiReportFile: false },
        // Every export and every member of one is documented.
        "ae-undocumented": { logLevel: "error" },
        // No release tags: everything exported is public, and `@internal` is stripped by tsc.
        "ae-missing-release-tag": { logLevel: "none" },
        "ae-internal-missing-underscore": { logLevel: "none" },
      },
      tsdocMessageReporting: { default: { logLevel: "error", addToApiReportFile: false } },
    },
  };
}

/** The names the root entry exports (from its declaration emit), read once. */
let rootNames;
function rootExports() {
  rootNames ??= new Set(
    [...readFileSync(join(repo, "src/index.ts"), "utf8").matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
      m[1].split(",").map((name) => name.trim()),
    ),
  );
  return rootNames;
}

/**
 * A type the entry uses but does not export is a mistake (a user cannot name it), unless the
 * root exports it: `pagelog/fs`'s FsStorage takes the root's StorageFile, which a user imports
 * from `pagelog`.
 */
function forgivable(message, entry) {
  if (message.messageId !== "ae-forgotten-export") return false;
  const symbol = /The symbol "(\w+?)(?:_\d+)?"/.exec(message.text)?.[1];
  // The key of `await using`: Symbol.asyncDispose where the reader's lib has it (async-dispose.ts).
  if (symbol === "asyncDispose") return true;
  return entry !== "index" && entry !== "node" && symbol !== undefined && rootExports().has(symbol);
}

/** Runs api-extractor on one entry; returns its problems, and whether any was the compiler's. */
function extract(entry, mode, rollups) {
  const extractorConfig = ExtractorConfig.prepare({
    configObject: configFor(entry, mode, rollups),
    configObjectFullPath: join(repo, "api-extractor.json"),
    packageJsonFullPath: join(repo, "package.json"),
  });
  const problems = [];
  let compilerProblem = false;
  const result = Extractor.invoke(extractorConfig, {
    localBuild: mode === "update",
    messageCallback(message) {
      const level = message.logLevel;
      // The build fails on what breaks the types; docs and the report are lint's (`check`).
      const counts = mode !== "build" || message.category === ExtractorMessageCategory.Compiler;
      // Console messages are progress, and a stale report (said below in one line).
      const problem =
        (level === ExtractorLogLevel.Error || level === ExtractorLogLevel.Warning) &&
        message.category !== ExtractorMessageCategory.Console;
      if (counts && problem && !forgivable(message, entry)) {
        problems.push(message.formatMessageWithLocation(repo));
      }
      if (problem && message.category === ExtractorMessageCategory.Compiler) compilerProblem = true;
      // api-extractor's progress lines are noise in `npm run lint`.
      message.handled = true;
    },
  });
  if (result.apiReportChanged && mode === "check") {
    problems.push(`etc/${entry}.api.md differs from what src/${entry}.ts exports: run \`npm run api:update\``);
  }
  return { problems, compilerProblem };
}

/** The kept declaration emit for `key`, made (and kept) when there is none. Returns its directory. */
function keptEmit(key) {
  const kept = join(CACHE, key);
  if (!existsSync(join(kept, "types"))) {
    // Emitted at the depth it is kept at: the declaration maps point at src/ by relative paths.
    const fresh = join(CACHE, `${key}.${process.pid}`);
    rmSync(fresh, { recursive: true, force: true });
    emitDeclarations(join(fresh, "types"));
    publish(fresh, kept);
  }
  // In use: prune() leaves it for another CACHE_KEEP_MS.
  const now = new Date();
  utimesSync(kept, now, now);
  return kept;
}

function main(mode) {
  if (!["build", "check", "update"].includes(mode)) throw new Error(`usage: api.mjs build|check|update`);
  mkdirSync(CACHE, { recursive: true });
  const key = cacheKey();
  let problems = [];
  let rollups;
  try {
    const kept = keptEmit(key);
    TYPES = join(kept, "types");
    rollups = join(kept, "rollups");
    if (mode === "update") mkdirSync(join(repo, "etc"), { recursive: true });
    // A build after a check (lint's order) copies the check's rollups: no api-extractor run.
    if (mode !== "build" || !existsSync(rollups)) {
      const made = join(SCRATCH, "rollups");
      const results = (mode === "build" ? ROLLED_UP : ENTRIES).map((entry) => extract(entry, mode, made));
      problems = results.flatMap((r) => r.problems);
      // Kept only when the compiler found nothing: the build fails on what it finds.
      if (!results.some((r) => r.compilerProblem)) publish(made, rollups);
    }
    prune(key);
  } finally {
    rmSync(SCRATCH, { recursive: true, force: true });
  }
  if (mode === "build" && problems.length === 0) {
    mkdirSync(join(repo, "dist"), { recursive: true });
    for (const entry of ROLLED_UP) {
      copyFileSync(join(rollups, `${entry}.d.ts`), join(repo, `dist/${entry}.d.ts`));
      // The rollups import nothing relative: the same text types the CJS build.
      copyFileSync(join(rollups, `${entry}.d.ts`), join(repo, `dist/${entry}.d.cts`));
    }
    writeFileSync(join(repo, "dist/node.d.ts"), nodeEntry("js"));
    writeFileSync(join(repo, "dist/node.d.cts"), nodeEntry("cjs"));
  }
  if (problems.length > 0) {
    process.stderr.write(problems.join("\n") + "\n");
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main(process.argv[2]);
}
