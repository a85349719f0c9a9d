/*
 * The door to the log's timers (retention-timer.ts: the retention check of
 * `retentionCheckIntervalMs`, and the flush timer of `flushMs`, flush-timer.ts). `openLog` (log.ts)
 * loads them through here, before anything is opened, only for a log that arms one (`timersOf`,
 * retain-now.ts): on the system clock, with `flushMs` above 0 or a retention check with something
 * to do (retention on, or a cleaner). An `import()`, so a bundler that splits puts them in a chunk
 * of their own, which a page whose logs keep everything and leave flushing to the page cache (the
 * defaults) never loads (docs/entry-points.md). A chunk that fails to load fails that
 * `dir.log()`, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadTimers = lazyPart(() => import("./retention-timer.js"));
