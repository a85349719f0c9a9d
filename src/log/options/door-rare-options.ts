/*
 * The door to the resolvers of the log options a plain log is never given (rare-options.ts:
 * `cleanupPolicy`, `minCleanableDirtyRatio`, `crc32c` and its known-answer check, `clock`,
 * `policies`). `LogDir.open` (its `log` option) and `dir.log()` load them through here
 * (log-option-resolvers.ts, `rareOptionsFor`), before anything is opened, only when the options
 * give one of them; once loaded they resolve every later log's. An `import()`, so a bundler that
 * splits puts them in a chunk of their own, which a page whose logs take only sizes and intervals
 * never loads (docs/entry-points.md). A chunk that fails to load fails that call, and the next
 * one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadRareOptions = lazyPart(() => import("./rare-options.js"));
