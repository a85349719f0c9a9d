/*
 * The door to reading the root's checkpoint files (checkpoint-read.ts: a checkpoint file read,
 * bounded and checked whole, and the recovery points, log start offsets and clean points an open
 * reads). `LogDir.open` (root-reads.ts), already asynchronous, loads it through here only when the
 * root's listing names one of those files: a new directory has none. An `import()`, so a bundler
 * that splits puts it in a chunk of its own, which a page whose directories are all new never
 * loads (docs/entry-points.md). Writing the checkpoints stays with every flush path. A chunk that
 * fails to load fails that open, before it changed anything, and the next open loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadCheckpointRead = lazyPart(() => import("./checkpoint-read.js"));
