/*
 * The door to a segment's lookup by time (time-lookup.ts): `Segment.offsetForTimestamp` loads it
 * through here on its first call. An `import()`, so a bundler that splits puts it in a chunk of
 * its own, which a page that never looks an offset up by time never loads
 * (docs/entry-points.md). A read, outside any failure guard: a chunk that fails to load fails
 * that lookup, and the next one loads it.
 */
type TimeLookup = typeof import("./time-lookup.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: TimeLookup | undefined;

export function loadSegmentTimeLookup(): Promise<TimeLookup> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./time-lookup.js").then((part) => (loaded = part));
}
