/*
 * The door to a segment's lookup by time (time-lookup.ts): `Segment.offsetForTimestamp` loads it
 * through here on its first call. An `import()`, so a bundler that splits puts it in a chunk of
 * its own, which a page that never looks an offset up by time never loads
 * (docs/entry-points.md). A read, outside any failure guard: a chunk that fails to load fails
 * that lookup, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadSegmentTimeLookup = lazyPart(() => import("./time-lookup.js"));
