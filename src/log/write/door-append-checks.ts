/*
 * The door to the append path's expensive check (append-checks.ts: each encoded batch parsed back
 * and compared), which runs only with `PAGELOG_CHECKS=all` (the tests; never in a browser, which
 * has no environment to set it in). `openLog` (log.ts) loads it through here, before anything is
 * opened, only when the switch is on. An `import()`, so a bundler that splits leaves it out of
 * what loads first (docs/entry-points.md). A chunk that fails to load fails that `dir.log()`, and
 * the next one loads it.
 */
type AppendChecks = typeof import("./append-checks.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: AppendChecks | undefined;

export function loadAppendChecks(): Promise<AppendChecks> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./append-checks.js").then((part) => (loaded = part));
}
