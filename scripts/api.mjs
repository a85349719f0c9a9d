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
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const { Extractor, ExtractorConfig, ExtractorLogLevel, ExtractorMessageCategory } = require("@microsoft/api-extractor");

/** The entry points package.json exports, by their file in src/. */
export const ENTRIES = ["index", "node", "format", "fs", "testing", "course", "kafka"];
/** Entries whose .d.ts is a rollup; `node` re-exports two of them. */
const ROLLED_UP = ENTRIES.filter((e) => e !== "node");
// This process's own: a build (a test's ensure-built) and a lint may run at once.
const TYPES = join(repo, `.tmp/types-${process.pid}`);

/** What dist/node.d.ts says, for ESM and (with .cjs) CJS: src/node.ts's exports, by name. */
function nodeEntry(ext) {
  return [
    "/** The package root in Node: the browser-clean root plus FsStorage (and `LogDir.open(path)`). */",
    `export * from "./index.${ext}";`,
    `export { FsStorage } from "./fs.${ext}";`,
    "",
  ].join("\n");
}

function emitDeclarations() {
  const tsc = join(repo, "node_modules/typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(repo, "tsconfig.build.json"), "--outDir", TYPES], {
      cwd: repo,
      stdio: "pipe",
    });
  } catch (err) {
    process.stderr.write(`${err.stdout ?? ""}${err.stderr ?? ""}`);
    throw new Error("tsc -p tsconfig.build.json failed");
  }
}

/** api-extractor's configuration for one entry point. */
function configFor(entry, mode) {
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
      reportTempFolder: join(TYPES, "api"),
    },
    docModel: { enabled: false },
    tsdocMetadata: { enabled: false },
    dtsRollup: { enabled: mode === "build", untrimmedFilePath: join(repo, "dist", `${entry}.d.ts`) },
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

function extract(entry, mode) {
  const extractorConfig = ExtractorConfig.prepare({
    configObject: configFor(entry, mode),
    configObjectFullPath: join(repo, "api-extractor.json"),
    packageJsonFullPath: join(repo, "package.json"),
  });
  const problems = [];
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
      // api-extractor's progress lines are noise in `npm run lint`.
      message.handled = true;
    },
  });
  if (result.apiReportChanged && mode === "check") {
    problems.push(`etc/${entry}.api.md differs from what src/${entry}.ts exports: run \`npm run api:update\``);
  }
  return problems;
}

function main(mode) {
  if (!["build", "check", "update"].includes(mode)) throw new Error(`usage: api.mjs build|check|update`);
  let problems;
  try {
    emitDeclarations();
    if (mode === "update") mkdirSync(join(repo, "etc"), { recursive: true });
    problems = (mode === "build" ? ROLLED_UP : ENTRIES).flatMap((entry) => extract(entry, mode));
  } finally {
    rmSync(TYPES, { recursive: true, force: true });
  }
  if (mode === "build") {
    mkdirSync(join(repo, "dist"), { recursive: true });
    writeFileSync(join(repo, "dist/node.d.ts"), nodeEntry("js"));
    writeFileSync(join(repo, "dist/node.d.cts"), nodeEntry("cjs"));
    // The rollups import nothing relative: the same text types the CJS build.
    for (const entry of ROLLED_UP) copyFileSync(join(repo, `dist/${entry}.d.ts`), join(repo, `dist/${entry}.d.cts`));
  }
  if (problems.length > 0) {
    process.stderr.write(problems.join("\n") + "\n");
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main(process.argv[2]);
}
