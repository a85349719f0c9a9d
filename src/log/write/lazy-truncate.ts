/*
 * The door to truncation: `Log.truncateTo` (log.ts) loads log-truncate.ts through here on the
 * first truncation that cuts something. An `import()`, so a bundler that splits puts the cut (the
 * rewritten last batch, the replacement segment, the cursors it moves) in a chunk of its own,
 * which a log that only appends never loads (docs/entry-points.md). With it, the segment's load
 * (a cut scans the segment's new tail: src/segment/load/lazy-segment-load.ts). The web demo, one
 * classic script whose crash checks truncate, swaps this file for a static import (web/build.mjs).
 */
import { withSegmentLoad } from "../../segment/load/lazy-segment-load.js";

export function loadTruncation(): Promise<typeof import("./log-truncate.js")> {
  return withSegmentLoad(import("./log-truncate.js"));
}
