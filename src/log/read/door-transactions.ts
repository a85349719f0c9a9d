/*
 * The door to the transaction walk (transaction-walk.ts): a read loads it through here when it
 * meets a transactional or control batch, or a batch of an idempotent producer, or reads
 * `read_committed` in a log a read met a transaction in before. An `import()`, so a bundler that
 * splits puts the walk in a chunk of its own, which a page reading logs of pagelog's (none has
 * such a batch) never loads (docs/entry-points.md). A read is already asynchronous, and runs
 * outside the log's failure guard: a chunk that fails to load fails that read, and the next one
 * loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadTransactionWalk = lazyPart(() => import("./transaction-walk.js"));
