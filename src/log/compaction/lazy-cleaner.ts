/*
 * The door to the background cleaner from outside compaction/: `openLog` (log.ts) loads it
 * through here, only for a log whose policy compacts. An `import()`, so a bundler that splits puts
 * the cleaner in a chunk of its own and every other log's path goes without it
 * (docs/entry-points.md). A build that cannot split (the web demo's one classic script) swaps this
 * file for a static import of the same module (web/build.mjs): no lazy wrapper to pay for there.
 */
export function loadCleaner(): Promise<typeof import("./background-cleaner.js")> {
  return import("./background-cleaner.js");
}
