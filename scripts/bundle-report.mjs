#!/usr/bin/env node
/**
 * What is in the browser bundle, by source file and by folder:
 *
 *   node scripts/bundle-report.mjs            # LogDir + SimStorage, as the budget test builds it
 *   node scripts/bundle-report.mjs --web      # the web demo's app.js (web/build.mjs), loaded at start
 *   node scripts/bundle-report.mjs --web-checks  # its checks.js, loaded on the first check
 *   node scripts/bundle-report.mjs --top 40   # more rows (default 25)
 *
 * The entry is built the way test/integration/browser-bundle.test.ts measures it: esbuild for the
 * browser, minified, every `import()` left out (a bundler that splits puts it in a chunk of its
 * own). esbuild's metafile gives each input's minified bytes in the output; a file's gzipped
 * figure is its share of the minified bytes times the bundle's gzipped size, so the rows add up
 * to the total (gzip compresses some files better than others: the figures are estimates, the
 * total is exact; to know what moving a file out saves, move it and run this again).
 */
import { relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const repo = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const webChecks = args.includes("--web-checks");
const web = webChecks || args.includes("--web");
const top = args.includes("--top") ? Number(args[args.indexOf("--top") + 1]) : 25;

/** Leaves every `import()` out, as a splitting bundler leaves it to a chunk loaded on first use. */
const leaveLazyOut = {
  name: "leave-lazy-out",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) =>
      a.kind === "dynamic-import" ? { path: relative(repo, resolve(a.resolveDir, a.path)), external: true } : undefined,
    );
  },
};

async function entryBundle() {
  const result = await build({
    stdin: { contents: 'export { LogDir, SimStorage } from "./src/index.ts";', resolveDir: repo, loader: "ts" },
    plugins: [leaveLazyOut],
    bundle: true,
    platform: "browser",
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

async function webBundle() {
  // web/build.mjs's own options (its plugin that leaves the lazy parts out), with a metafile.
  const { webBuildOptions } = await import("../web/build.mjs");
  const result = await build({ ...webBuildOptions(webChecks ? "checks" : "page"), write: false, metafile: true });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

const { code, metafile } = web ? await webBundle() : await entryBundle();
const gzipped = gzipSync(code, { level: 9 }).length;
const output = Object.values(metafile.outputs)[0];
const files = Object.entries(output.inputs)
  .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
  .filter((f) => f.bytes > 0);
const minified = files.reduce((sum, f) => sum + f.bytes, 0);
const gzShare = (bytes) => (bytes / minified) * gzipped;

/** The folder a row belongs to: node_modules/<package>, or the source file's directory. */
const folderOf = (path) =>
  path.startsWith("node_modules/") ? path.split("/").slice(0, 2).join("/") : path.split("/").slice(0, -1).join("/");
const folders = new Map();
for (const f of files) folders.set(folderOf(f.path), (folders.get(folderOf(f.path)) ?? 0) + f.bytes);

const kb = (n) => (n / 1024).toFixed(1).padStart(6);
const pct = (n) => `${((n / minified) * 100).toFixed(1).padStart(5)}%`;
console.log(
  `${webChecks ? "web demo checks.js" : web ? "web demo app.js" : "LogDir + SimStorage (browser, before a lazy part is used)"}: ` +
    `${code.length} bytes minified, ${gzipped} gzipped (${(gzipped / 1024).toFixed(1)} KiB), ${files.length} files`,
);
console.log(`\nby folder (KiB gz share, KiB minified, share)`);
for (const [folder, bytes] of [...folders].sort((a, b) => b[1] - a[1]))
  console.log(`${kb(gzShare(bytes))} ${kb(bytes)} ${pct(bytes)}  ${folder}`);

console.log(`\ntop ${top} files (KiB gz share, KiB minified, share)`);
for (const f of files.sort((a, b) => b.bytes - a.bytes).slice(0, top))
  console.log(`${kb(gzShare(f.bytes))} ${kb(f.bytes)} ${pct(f.bytes)}  ${f.path}`);
