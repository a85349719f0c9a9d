/*
 * The door to the log's timers (retention-timer.ts: the retention check of
 * `retentionCheckIntervalMs`, and the flush timer of `flushMs`, flush-timer.ts). `openLog` (log.ts)
 * loads them through here, before anything is opened, only for a log that arms one (`timersOf`,
 * retain-now.ts): on the system clock, with `flushMs` above 0 or a retention check with something
 * to do (retention on, or a cleaner). An `import()`, so a bundler that splits puts them in a chunk
 * of their own, which a page whose logs keep everything and leave flushing to the page cache (the
 * defaults) never loads (docs/entry-points.md). A chunk that fails to load fails that
 * `dir.log()`, and the next one loads it.
 */
type Timers = typeof import("./retention-timer.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: Timers | undefined;

export function loadTimers(): Promise<Timers> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./retention-timer.js").then((part) => (loaded = part));
}
