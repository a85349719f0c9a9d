/*
 * The door to the background cleaner from outside compaction/: `openLog` (log.ts) loads it
 * through here, only for a log whose policy compacts. An `import()`, so a bundler that splits puts
 * the cleaner in a chunk of its own and every other log's path goes without it
 * (docs/entry-points.md). With it, the segment's load (a swap gives the log segments to load:
 * src/segment/load/lazy-segment-load.ts). The web demo, one classic script that never compacts, swaps
 * this file for one that refuses (web/build.mjs).
 */
import { withSegmentLoad } from "../../segment/load/lazy-segment-load.js";

export function loadCleaner(): Promise<typeof import("./background-cleaner.js")> {
  return withSegmentLoad(import("./background-cleaner.js"));
}
