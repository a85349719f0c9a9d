/*
 * The door to the lookup by time (find-by-time.ts, and with its first use the segment's own,
 * src/segment/load/time-lookup.ts): `Log.offsetForTimestamp` loads it through here. An
 * `import()`, so a bundler that splits puts it in a chunk of its own, which a page that never
 * looks an offset up by time never loads (docs/entry-points.md). A read, outside the log's failure
 * guard: a chunk that fails to load fails that call, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadTimeLookup = lazyPart(() => import("./find-by-time.js"));
