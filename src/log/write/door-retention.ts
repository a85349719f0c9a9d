/*
 * The door to retention (log-retention.ts: which segments `retentionBytes` / `retentionMs` and a
 * reader's rule delete, and moving the start offset forward). An `import()`, so a bundler that
 * splits puts it in a chunk of its own, which a page whose logs keep everything (retention is off
 * by default) and never call `deleteRecordsBefore` never loads (docs/entry-points.md). Loaded
 * outside the log's failure guard by each call that needs it: a roll of a log that retains (before
 * it writes anything), `applyRetention()` and the retention timer of such a log, and
 * `deleteRecordsBefore`. A chunk that fails to load fails that call, never the log.
 */
type Retention = typeof import("./log-retention.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: Retention | undefined;

export function loadRetention(): Promise<Retention> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./log-retention.js").then((part) => (loaded = part));
}
