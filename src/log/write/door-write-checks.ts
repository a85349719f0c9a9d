/*
 * The door to the write paths' expensive checks (write-checks.ts: each encoded batch parsed back
 * and compared, each offset checkpoint's text read back), which run only with `PAGELOG_CHECKS=all`
 * (the tests; never in a browser, which has no environment to set it in). `LogDir.open` and
 * `openLog` (log.ts) load them through here, before anything is opened, only when the switch is
 * on. An `import()`, so a bundler that splits leaves them out of what loads first
 * (docs/entry-points.md). A chunk that fails to load fails that call, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadWriteChecks = lazyPart(() => import("./write-checks.js"));
