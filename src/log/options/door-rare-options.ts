/*
 * The door to the resolvers of the log options a plain log is never given (rare-options.ts:
 * `cleanupPolicy`, `minCleanableDirtyRatio`, `crc32c` and its known-answer check, `clock`,
 * `policies`). `LogDir.open` (its `log` option) and `dir.log()` load them through here
 * (log-option-resolvers.ts, `rareOptionsFor`), before anything is opened, only when the options
 * give one of them; once loaded they resolve every later log's. An `import()`, so a bundler that
 * splits puts them in a chunk of their own, which a page whose logs take only sizes and intervals
 * never loads (docs/entry-points.md). A chunk that fails to load fails that call, and the next
 * one loads it.
 */
type RareOptions = typeof import("./rare-options.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: RareOptions | undefined;

export function loadRareOptions(): Promise<RareOptions> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./rare-options.js").then((part) => (loaded = part));
}
