/**
 * Builds the web demo into a folder that works opened from disk or served statically:
 * index.html, style.css and app.js, one classic script (IIFE, minified) bundled by esbuild from
 * web/src/main.ts and pagelog's own sources. The bundle is wrapped in `function pagelogDemo()`
 * so the page can start its checks' Web Worker from that function's source (web/src/main.ts).
 *
 *   node web/build.mjs [outdir]     (default web/dist)
 */
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const WEB = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUTDIR = join(WEB, "dist");
/** The files the built folder holds, and nothing else (web/serve.mjs serves exactly these). */
export const FILES = ["index.html", "style.css", "app.js"];

/** Builds into `outdir` (emptied first); returns the script's size, minified and gzipped. */
export async function buildWeb(outdir = DEFAULT_OUTDIR) {
  const result = await build({
    entryPoints: [join(WEB, "src/main.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
    banner: { js: "(function pagelogDemo(){" },
    footer: { js: "})();" },
  });
  const js = result.outputFiles[0].contents;
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await writeFile(join(outdir, "app.js"), js);
  await copyFile(join(WEB, "index.html"), join(outdir, "index.html"));
  await copyFile(join(WEB, "style.css"), join(outdir, "style.css"));
  return { outdir: resolve(outdir), jsBytes: js.length, jsGzipBytes: gzipSync(js, { level: 9 }).length };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { outdir, jsBytes, jsGzipBytes } = await buildWeb(process.argv[2]);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`built ${outdir}: app.js ${kb(jsBytes)} minified, ${kb(jsGzipBytes)} gzipped`);
  console.log(`open ${pathToFileURL(join(outdir, "index.html")).href}`);
}
