/*
 * The door to retention (log-retention.ts: which segments `retentionBytes` / `retentionMs` and a
 * reader's rule delete, and moving the start offset forward). An `import()`, so a bundler that
 * splits puts it in a chunk of its own, which a page whose logs keep everything (retention is off
 * by default) and never call `deleteRecordsBefore` never loads (docs/entry-points.md). Loaded
 * outside the log's failure guard by each call that needs it: a roll of a log that retains (before
 * it writes anything), `applyRetention()` and the retention timer of such a log, and
 * `deleteRecordsBefore`. A chunk that fails to load fails that call, never the log.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadRetention = lazyPart(() => import("./log-retention.js"));
