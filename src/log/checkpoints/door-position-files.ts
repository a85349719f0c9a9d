/*
 * The door to the files of consumer positions (position-files.ts: reading a positions file, the
 * consumer's directories and lock before its first write, each write of its file). An open whose
 * directory holds positions files, a consumer's `refresh()` and its first commit load it through
 * here, each already asynchronous. An `import()`, so a bundler that splits puts it in a chunk of
 * its own, which a page whose directories keep no positions and that commits none never loads
 * (docs/entry-points.md). `dir.consumer(name)` stays synchronous: what the open read is in memory.
 * A chunk that fails to load fails that call (the open, the refresh, the commits of that write),
 * and the next one loads it.
 */
type PositionFiles = typeof import("./position-files.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: PositionFiles | undefined;

export function loadPositionFiles(): Promise<PositionFiles> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./position-files.js").then((part) => (loaded = part));
}
