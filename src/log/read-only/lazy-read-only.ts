/*
 * The door to the read-only mode: LogDir (log-dir.ts) loads it through here when a directory
 * opened read-only opens its first log. An `import()`, so a bundler that splits puts the whole
 * read-only room in a chunk of its own, which a writable directory never loads
 * (docs/entry-points.md). With it, the segment's load (its slots load segments on first use:
 * src/segment/load/lazy-segment-load.ts). The web demo, one classic script that never opens
 * read-only, swaps this file for one that refuses (web/build.mjs).
 */
import { withSegmentLoad } from "../../segment/load/lazy-segment-load.js";

export function loadReadOnlyMode(): Promise<typeof import("./read-only-open.js")> {
  return withSegmentLoad(import("./read-only-open.js"));
}
