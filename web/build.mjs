/**
 * Builds the web demo into a folder that works opened from disk or served statically:
 * index.html, style.css and two classic scripts (IIFE, minified) bundled by esbuild from
 * pagelog's own sources:
 *
 * - app.js (web/src/main.ts), the page: the log on the simulated disk, the steps, the strip. The
 *   page loads this one script at start, and nothing else.
 * - checks.js (web/src/checks/main.ts), the checks' Web Worker: the course's cases and the
 *   crash-test engine (`crashTest`) with its own copy of the log. The page adds it as a
 *   `<script>` only when the reader first asks for it ("Check my code", or "Run the log on my
 *   code", whose trial runs the cases), and starts the worker from its source: the bundle is
 *   wrapped in `function pagelogChecks()`, which in a window only hands itself to the page
 *   (`globalThis.pagelogChecks`, read by web/src/checks/loader.ts) and in the worker runs the
 *   checks.
 *
 * Classic scripts, not module chunks: a page opened from file:// loads no modules (Chromium
 * refuses them, and any worker file, from a file:// URL), so esbuild's `splitting` cannot serve
 * it; a classic `<script>` added later does load, and a worker from a Blob URL does start.
 *
 * One classic script cannot load a part of itself later: esbuild would inline every `import()`
 * behind lazy initialisers, which costs more than the part. pagelog's lazy parts
 * (docs/entry-points.md) each have one door (`src/log/<room>/lazy-*.ts` or `door-*.ts`, the
 * segment's `src/segment/load/lazy-segment-load.ts` and `door-segment-time.ts` and
 * `src/segment/policies/door-policies.ts`, the descriptor pool's
 * `src/storage/pool/door-handle-pool.ts` and the compressed batches' `src/format/compressed/door-compressed.ts`).
 * Neither script uses the read-only mode, the cleaner nor the topics (the checks run the swarm
 * workload, which never compacts), nor the log's timers (both run their logs on a clock of their
 * own, which arms none), nor the write paths' expensive checks (a page has no PAGELOG_CHECKS), nor
 * reads a compressed batch (their logs hold only pagelog's own, uncompressed), so the build swaps
 * their doors for ones that reject,
 * saying the page leaves that part out (LEFT_OUT): those parts are in neither script. The demo on
 * the page never moves a log's start, looks a record up by time, iterates or follows a log
 * (`records()`, `waitFor()`), keeps consumer positions or meets a transaction, and its directory
 * has no descriptor bound (a simulated disk has no limit: the session opens it with
 * `maxOpenFiles` the largest safe integer), so app.js leaves those parts and the descriptor pool
 * out too (LEFT_OUT_OF_PAGE); the checks' engine does all of that but transactions, and runs logs
 * with small bounds. Both recover and truncate logs, run a reader's policies and give their logs
 * a clock, so the other
 * doors become static imports (KEPT), with no lazy wrapper.
 */
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const WEB = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUTDIR = join(WEB, "dist");
/** The files the built folder holds, and nothing else (web/serve.mjs serves exactly these). */
export const FILES = ["index.html", "style.css", "app.js", "checks.js"];

/**
 * Builds into `outdir`, writing only the page's own files (FILES) and leaving the folder
 * otherwise as it was; returns each script's size, minified and gzipped (`js…`: app.js, what the
 * page loads at start; `checks…`: checks.js, loaded on the first check). A folder that holds
 * anything else is refused before anything is written: `node web/serve.mjs ~` must never touch
 * a reader's files.
 */
export async function buildWeb(outdir = DEFAULT_OUTDIR) {
  await checkOutdir(outdir);
  const [page, checks] = await Promise.all([build(webBuildOptions()), build(webBuildOptions("checks"))]);
  const js = page.outputFiles[0].contents;
  const checksJs = checks.outputFiles[0].contents;
  await mkdir(outdir, { recursive: true });
  await writeFile(join(outdir, "app.js"), js);
  await writeFile(join(outdir, "checks.js"), checksJs);
  await copyFile(join(WEB, "index.html"), join(outdir, "index.html"));
  await copyFile(join(WEB, "style.css"), join(outdir, "style.css"));
  return {
    outdir: resolve(outdir),
    jsBytes: js.length,
    jsGzipBytes: gzipSync(js, { level: 9 }).length,
    checksBytes: checksJs.length,
    checksGzipBytes: gzipSync(checksJs, { level: 9 }).length,
  };
}

/**
 * esbuild's options for app.js, or with "checks" for checks.js (scripts/bundle-report.mjs
 * --web builds with them too). checks.js is wrapped in `function pagelogChecks()`, which in a
 * window hands itself to the page and returns before any of the bundle runs.
 */
export function webBuildOptions(script = "page") {
  const checks = script === "checks";
  return {
    entryPoints: [join(WEB, checks ? "src/checks/main.ts" : "src/main.ts")],
    plugins: [leaveLazyPartsOut(checks ? "checks" : "page")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
    ...(checks && {
      banner: {
        js: '(function pagelogChecks(){if(typeof document<"u"){globalThis.pagelogChecks=pagelogChecks;return}',
      },
      footer: { js: "})();" },
    }),
  };
}

/** pagelog's lazy doors (`src/log/<room>/<file>`, `src/segment/<room>/<file>`, `src/storage/pool/<file>`, `src/format/compressed/<file>`), each with the function it exports and what it loads. */
const LEFT_OUT = {
  "compaction/lazy-cleaner.ts": ["loadCleaner", "the log cleaner (a log whose cleanupPolicy compacts)"],
  "read-only/lazy-read-only.ts": ["loadReadOnlyMode", "read-only opens"],
  "topic/lazy-topics.ts": ["loadTopics", "topics"],
  "write/door-timers.ts": ["loadTimers", "the log's timers (flushMs and retention checks on the system clock)"],
  "write/door-write-checks.ts": ["loadWriteChecks", "the expensive checks (PAGELOG_CHECKS=all)"],
  "compressed/door-compressed.ts": [
    "loadCompressed",
    "compressed batches (its logs hold only pagelog's, uncompressed)",
  ],
};

/**
 * pagelog's lazy doors the page keeps (as in LEFT_OUT), each with the function it
 * exports, the module it loads and the names pagelog takes from it (only those: a namespace
 * object would keep every export of the module).
 */
const KEPT = {
  "load/lazy-loader.ts": ["loadLoader", "./log-loader.js", ["loadLog"]],
  "read/door-transactions.ts": [
    "loadTransactionWalk",
    "./transaction-walk.js",
    ["transactionsOf", "isAborted", "holdsControlRecords"],
  ],
  "write/door-retention.ts": ["loadRetention", "./log-retention.js", ["retentionCount", "applyRetention", "moveStart"]],
  "checkpoints/door-position-files.ts": [
    "loadPositionFiles",
    "./consumer-positions.js",
    ["readConsumers", "storeFor", "closeStores"],
  ],
  "checkpoints/door-checkpoint-read.ts": ["loadCheckpointRead", "./checkpoint-read.js", ["readRootCheckpoints"]],
  "read/door-time-lookup.ts": ["loadTimeLookup", "./find-by-time.js", ["findOffsetForTimestamp"]],
  "durable/door-durable.ts": ["loadDurableReads", "./durable-reads.js", ["readDurableRecords", "readDurableBatches"]],
  "load/door-segment-time.ts": ["loadSegmentTimeLookup", "./time-lookup.js", ["segmentOffsetForTimestamp"]],
  "read/door-follower.ts": ["loadFollower", "./follow-tail.js", ["tailRecords", "keepTail", "gatherAppends"]],
  "read/door-records.ts": ["loadRecords", "./records-body.js", ["readAhead", "step", "take", "waitFor"]],
  "write/lazy-truncate.ts": ["loadTruncation", "./log-truncate.js", ["truncateLog"]],
  "policies/door-policies.ts": ["loadPolicyHooks", "./policy-hooks.js", ["checkVarints", "lookupByPolicy"]],
  "load/lazy-segment-load.ts": [
    "loadSegmentLoad",
    "./segment-load.js",
    [
      "commit",
      "planLoadClean",
      "planRecovery",
      "scanTail",
      "planFollow",
      "catchUp",
      "openExistingFile",
      "truncateSegment",
    ],
  ],
  "pool/door-handle-pool.ts": ["loadHandlePool", "./pool-core.js", ["PoolCore"]],
  "options/door-rare-options.ts": ["loadRareOptions", "./rare-options.js", ["RARE_RESOLVERS"]],
  "load/door-crc-check.ts": ["loadCrc32cCheck", "../../format/checked/check-crc32c.js", ["checkCrc32c"]],
};

/** Doors of KEPT that app.js leaves out as LEFT_OUT does (the checks' script keeps them), with what they load. */
const LEFT_OUT_OF_PAGE = {
  "read/door-transactions.ts": "transactions (the demo writes none)",
  "write/door-retention.ts": "retention and moving a log's start",
  "checkpoints/door-position-files.ts": "consumer positions",
  "read/door-time-lookup.ts": "lookups by time",
  "load/door-segment-time.ts": "lookups by time",
  "read/door-follower.ts": "followers",
  "read/door-records.ts": "records() and waitFor()",
  "load/door-crc-check.ts": "a segment's own CRC-32C's check (the demo's logs give none)",
  "pool/door-handle-pool.ts":
    "the descriptor pool (its directory is opened with no bound: a simulated disk has no descriptor limit)",
};

/**
 * The esbuild plugin for `script` ("page" or "checks") that swaps each door of LEFT_OUT (and, on
 * the page, of LEFT_OUT_OF_PAGE) for one that rejects, and each other door of KEPT for a static
 * import of what it loads (see the file comment).
 */
/** The doors' files: `lazy-*.ts` and `door-*.ts` in a room of src/log, src/segment, src/storage or src/format. */
const DOORS = /[\\/]src[\\/](log|segment|storage|format)[\\/][a-z-]+[\\/](lazy|door)-[a-z-]+\.ts$/;

const leaveLazyPartsOut = (script) => ({
  name: "pagelog-leave-lazy-parts-out",
  setup(b) {
    b.onLoad({ filter: DOORS }, (args) => {
      const door = args.path.split(/[\\/]/).slice(-2).join("/");
      if (script === "page" && door in LEFT_OUT_OF_PAGE) {
        const name = KEPT[door][0];
        const message = JSON.stringify(`the web demo leaves out ${LEFT_OUT_OF_PAGE[door]}`);
        return {
          contents: `export function ${name}() { return Promise.reject(new Error(${message})); }`,
          loader: "js",
        };
      }
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
});

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
  const built = await buildWeb(process.argv[2]).catch((err) => {
    console.error(`web/build.mjs: ${err.message}`);
    process.exit(2);
  });
  const { outdir, jsBytes, jsGzipBytes, checksBytes, checksGzipBytes } = built;
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`built ${outdir}: app.js ${kb(jsBytes)} minified, ${kb(jsGzipBytes)} gzipped (loaded at start)`);
  console.log(`  checks.js ${kb(checksBytes)} minified, ${kb(checksGzipBytes)} gzipped (loaded on the first check)`);
  console.log(`open ${pathToFileURL(join(outdir, "index.html")).href}`);
}
