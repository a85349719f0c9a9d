/*
 * The door to the loader: opening a log whose directory holds files (open-log-files.ts) loads it
 * through here. An `import()`, so a bundler that splits puts the recovery walk, the plan and its
 * carrying out (log-loader.ts and what only it uses) in a chunk that a page writing new logs
 * never loads (docs/entry-points.md). With it, the segment's load (the loader walks and checks
 * segments, and leaves idle ones: src/segment/load/lazy-segment-load.ts). The web demo, one classic
 * script whose crash checks recover logs, swaps this file for a static import (web/build.mjs).
 */
import { withSegmentLoad } from "../../segment/load/lazy-segment-load.js";

export function loadLoader(): Promise<typeof import("./log-loader.js")> {
  return withSegmentLoad(import("./log-loader.js"));
}
