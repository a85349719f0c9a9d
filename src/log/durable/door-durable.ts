/*
 * The door to durable reads (durable-reads.ts): `Log.read` and `Log.readBatches` with
 * `durable: true` load it through here. An `import()`, so a bundler that splits puts it in a
 * chunk of its own, which a page whose reads never ask for `durable` never loads
 * (docs/entry-points.md). A read, outside the log's failure guard: a chunk that fails to load
 * fails that call, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadDurableReads = lazyPart(() => import("./durable-reads.js"));
