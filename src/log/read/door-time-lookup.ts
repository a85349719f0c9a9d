/*
 * The door to the lookup by time (find-by-time.ts, and with its first use the segment's own,
 * src/segment/load/time-lookup.ts): `Log.offsetForTimestamp` loads it through here. An
 * `import()`, so a bundler that splits puts it in a chunk of its own, which a page that never
 * looks an offset up by time never loads (docs/entry-points.md). A read, outside the log's failure
 * guard: a chunk that fails to load fails that call, and the next one loads it.
 */
type FindByTime = typeof import("./find-by-time.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: FindByTime | undefined;

export function loadTimeLookup(): Promise<FindByTime> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./find-by-time.js").then((part) => (loaded = part));
}
