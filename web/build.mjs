/**
 * Builds the web demo into a folder that works opened from disk or served statically:
 * index.html, style.css and app.js, one classic script (IIFE, minified) bundled by esbuild from
 * web/src/main.ts and pagelog's own sources. The bundle is wrapped in `function pagelogDemo()`
 * so the page can start its checks' Web Worker from that function's source (web/src/main.ts).
 *
 * One classic script cannot load a part later (file:// loads no module chunks): esbuild would
 * inline every `import()` behind lazy initialisers, which costs more than the part. pagelog's
 * lazy parts (docs/entry-points.md) each have one door (`src/log/<room>/lazy-*.ts`, and the
 * segment's load `src/segment/load/lazy-segment-load.ts`). The page
 * uses neither the read-only mode, the cleaner nor the topics (its checks run the swarm workload,
 * which never compacts), so the build swaps their doors for ones that reject, saying the page
 * leaves that part out (LEFT_OUT): those parts are not in app.js at all. It does recover and
 * truncate logs, so the loader's, truncation's and the segment's load's doors become static
 * imports (KEPT): in app.js, with no lazy wrapper.
 */
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const WEB = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUTDIR = join(WEB, "dist");
/** The files the built folder holds, and nothing else (web/serve.mjs serves exactly these). */
export const FILES = ["index.html", "style.css", "app.js"];

/**
 * Builds into `outdir`, writing only the page's own files (FILES) and leaving the folder
 * otherwise as it was; returns the script's size, minified and gzipped. A folder that holds
 * anything else is refused before anything is written: `node web/serve.mjs ~` must never touch
 * a reader's files.
 */
export async function buildWeb(outdir = DEFAULT_OUTDIR) {
  await checkOutdir(outdir);
  const result = await build(webBuildOptions());
  const js = result.outputFiles[0].contents;
  await mkdir(outdir, { recursive: true });
  await writeFile(join(outdir, "app.js"), js);
  await copyFile(join(WEB, "index.html"), join(outdir, "index.html"));
  await copyFile(join(WEB, "style.css"), join(outdir, "style.css"));
  return { outdir: resolve(outdir), jsBytes: js.length, jsGzipBytes: gzipSync(js, { level: 9 }).length };
}

/** esbuild's options for app.js (scripts/bundle-report.mjs --web builds with them too). */
export function webBuildOptions() {
  return {
    entryPoints: [join(WEB, "src/main.ts")],
    plugins: [leaveLazyPartsOut],
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
  };
}

/** pagelog's lazy doors (`src/log/<room>/<file>`, `src/segment/load/<file>`), each with the function it exports and what it loads. */
const LEFT_OUT = {
  "compaction/lazy-cleaner.ts": ["loadCleaner", "the log cleaner (a log whose cleanupPolicy compacts)"],
  "read-only/lazy-read-only.ts": ["loadReadOnlyMode", "read-only opens"],
  "topic/lazy-topics.ts": ["loadTopics", "topics"],
};

/**
 * pagelog's lazy doors the page keeps (as in LEFT_OUT), each with the function it
 * exports, the module it loads and the names pagelog takes from it (only those: a namespace
 * object would keep every export of the module).
 */
const KEPT = {
  "load/lazy-loader.ts": ["loadLoader", "./log-loader.js", ["loadLog"]],
  "write/lazy-truncate.ts": ["loadTruncation", "./log-truncate.js", ["truncateLog"]],
  "load/lazy-segment-load.ts": [
    "loadSegmentLoad",
    "./segment-load.js",
    ["commit", "planLoadClean", "planRecovery", "scanTail"],
  ],
};

/**
 * The esbuild plugin that swaps each door of LEFT_OUT for one that rejects, and each of KEPT for
 * a static import of what it loads (see the file comment).
 */
const leaveLazyPartsOut = {
  name: "pagelog-leave-lazy-parts-out",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/](log|segment)[\\/][a-z-]+[\\/]lazy-[a-z-]+\.ts$/ }, (args) => {
      const door = args.path.split(/[\\/]/).slice(-2).join("/");
      if (door in KEPT) {
        const [name, module, names] = KEPT[door];
        const list = names.join(", ");
        return {
          contents: `import { ${list} } from ${JSON.stringify(module)};\nexport function ${name}() { return Promise.resolve({ ${list} }); }`,
          loader: "ts",
          resolveDir: dirname(args.path),
        };
      }
      if (!(door in LEFT_OUT))
        throw new Error(`web/build.mjs: pagelog has a lazy door neither LEFT_OUT nor KEPT names: ${door}`);
      const [name, part] = LEFT_OUT[door];
      const message = JSON.stringify(`the web demo leaves out ${part}`);
      return { contents: `export function ${name}() { return Promise.reject(new Error(${message})); }`, loader: "js" };
    });
  },
};

/** Throws unless `outdir` is missing, or a folder holding nothing but files named in FILES. */
async function checkOutdir(outdir) {
  let entries;
  try {
    entries = await readdir(outdir, { withFileTypes: true });
  } catch (err) {
    if (err.code === "ENOENT") return;
    if (err.code === "ENOTDIR") throw new Error(`${resolve(outdir)} is not a folder: build the web demo into a folder`);
    throw err;
  }
  const foreign = entries.filter((e) => !(e.isFile() && FILES.includes(e.name))).map((e) => e.name);
  if (foreign.length > 0)
    throw new Error(
      `${resolve(outdir)} holds ${foreign.length === 1 ? "something" : `${foreign.length} things`} the web demo did not build (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}): refusing to build into it. Give an empty or new folder`,
    );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { outdir, jsBytes, jsGzipBytes } = await buildWeb(process.argv[2]).catch((err) => {
    console.error(`web/build.mjs: ${err.message}`);
    process.exit(2);
  });
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`built ${outdir}: app.js ${kb(jsBytes)} minified, ${kb(jsGzipBytes)} gzipped`);
  console.log(`open ${pathToFileURL(join(outdir, "index.html")).href}`);
}
