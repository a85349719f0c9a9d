/*
 * The door to the read-only mode: LogDir (log-dir.ts) loads it through here when a directory
 * opened read-only opens its first log. An `import()`, so a bundler that splits puts the whole
 * read-only room in a chunk of its own, which a writable directory never loads
 * (docs/entry-points.md). The web demo, one classic script that never opens read-only, swaps
 * this file for one that refuses (web/build.mjs).
 */
export function loadReadOnlyMode(): Promise<typeof import("./read-only-open.js")> {
  return import("./read-only-open.js");
}
