/*
 * The door to a segment's load: the recovery walk, the clean open's index checks, their commit,
 * a segment's cut and the tail scan after it (segment-load.ts). An `import()`, so a bundler that splits puts
 * them in a chunk of their own: a new segment (a new log, a roll) never runs them. The `Segment`
 * methods that need it load it through here; every part that gives a log segments to load (the
 * loader, the read-only mode, the cleaner) or cuts one (truncation) loads it with its own chunk
 * (`withSegmentLoad`), so a segment's first use, which may run inside retention under the log's
 * failure guard, finds it loaded and never fails for a chunk. The web demo, one classic script,
 * swaps this file for a static import (web/build.mjs).
 */
type SegmentLoad = typeof import("./segment-load.js");

/** The module once an `import()` of it resolved. */
let loaded: SegmentLoad | undefined;

export function loadSegmentLoad(): Promise<SegmentLoad> {
  // Kept once loaded: every commit and every first use of a segment comes through here, and an
  // `import()` of a module already loaded still costs a lookup in the module map (about 60 µs
  // under vitest's module runner). A failed load is not kept: the next call tries again.
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./segment-load.js").then((part) => (loaded = part));
}

/** `part` (a lazy part's `import()`), resolved once the segment's load is loaded too. */
export async function withSegmentLoad<T>(part: Promise<T>): Promise<T> {
  const [ready] = await Promise.all([part, loadSegmentLoad()]);
  return ready;
}
