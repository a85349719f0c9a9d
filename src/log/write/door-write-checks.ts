/*
 * The door to the write paths' expensive checks (write-checks.ts: each encoded batch parsed back
 * and compared, each offset checkpoint's text read back), which run only with `PAGELOG_CHECKS=all`
 * (the tests; never in a browser, which has no environment to set it in). `LogDir.open` and
 * `openLog` (log.ts) load them through here, before anything is opened, only when the switch is
 * on. An `import()`, so a bundler that splits leaves them out of what loads first
 * (docs/entry-points.md). A chunk that fails to load fails that call, and the next one loads it.
 */
type WriteChecks = typeof import("./write-checks.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: WriteChecks | undefined;

export function loadWriteChecks(): Promise<WriteChecks> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./write-checks.js").then((part) => (loaded = part));
}
