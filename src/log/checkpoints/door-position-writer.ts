/*
 * The door to the consumers' position writer (position-writer.ts: the consumer's directories and
 * lock before its first write, and each write of its file). A consumer's first commit loads it
 * through here, inside its own write queue and before anything is written. An `import()`, so a
 * bundler that splits puts the writer in a chunk of its own, which a page that never commits a
 * position never loads (docs/entry-points.md). `dir.consumer(name)` stays synchronous: positions
 * are read at open, and only their writing is loaded later. A chunk that fails to load fails the
 * commits of that write, and the next commit loads it.
 */
type PositionWriter = typeof import("./position-writer.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: PositionWriter | undefined;

export function loadPositionWriter(): Promise<PositionWriter> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./position-writer.js").then((part) => (loaded = part));
}
