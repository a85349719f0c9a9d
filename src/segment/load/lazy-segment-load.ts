/*
 * The door to a segment's load: the recovery walk, the clean open's index checks, their commit
 * and the tail scan after a cut (segment-load.ts). An `import()`, so a bundler that splits puts
 * them in a chunk of their own: a new segment (a new log, a roll) never runs them. The `Segment`
 * methods that need it load it through here; every part that gives a log segments to load (the
 * loader, the read-only mode, the cleaner) or cuts one (truncation) loads it with its own chunk
 * (`withSegmentLoad`), so a segment's first use, which may run inside retention under the log's
 * failure guard, finds it loaded and never fails for a chunk. The web demo, one classic script,
 * swaps this file for a static import (web/build.mjs).
 */
export function loadSegmentLoad(): Promise<typeof import("./segment-load.js")> {
  return import("./segment-load.js");
}

/** `part` (a lazy part's `import()`), resolved once the segment's load is loaded too. */
export async function withSegmentLoad<T>(part: Promise<T>): Promise<T> {
  const [loaded] = await Promise.all([part, loadSegmentLoad()]);
  return loaded;
}
