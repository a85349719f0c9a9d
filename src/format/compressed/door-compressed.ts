/*
 * The door to the compressed batches' part (decode-compressed.ts: a gzip batch's records, the
 * errors of the codecs pagelog does not read). The log's reads (`decodeLogBatch`) and
 * `decodeBatch` load it through here at the first compressed batch they meet, both already
 * asynchronous, outside the log's failure guard: a chunk that fails to load fails that read,
 * never the log, and the next read loads it. An `import()`, so a bundler that splits puts it in a
 * chunk of its own, which a page whose logs hold only pagelog's own batches (all uncompressed)
 * never loads (docs/entry-points.md).
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadCompressed = lazyPart(() => import("./decode-compressed.js"));
