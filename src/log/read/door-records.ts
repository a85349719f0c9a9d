/*
 * The door to the body of `Log.records()` and `Log.waitFor()` (records-body.ts: each read ahead
 * and its checks, a follower's waits, `waitFor`'s wait). An iteration loads it through here at its
 * first next(), inside that next()'s read in the log's queue (so the read keeps its place at the
 * call) and outside the log's failure guard; a `waitFor` that must wait loads it before it waits,
 * outside the queue. A chunk that fails to load fails that next() (ending that iteration, as any
 * failure does) or that `waitFor`, never the log, and the next call loads it. An `import()`, so a
 * bundler that splits puts it in a chunk of its own, which a page that never iterates nor waits
 * never loads (docs/entry-points.md).
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadRecords = lazyPart(() => import("./records-body.js"));
