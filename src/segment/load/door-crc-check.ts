/*
 * The door to the known-answer check of a `crc32c` option (format/checked/check-crc32c.ts) for
 * `Segment.open`: only a segment given its own CRC-32C function loads it, before it opens a file.
 * An `import()`, so a bundler that splits puts it in a chunk of its own, which a page whose
 * segments use pagelog's CRC-32C never loads (docs/entry-points.md; no module a plain log loads
 * imports the check statically: format/checked/batch-functions.ts says why). `Segment.open` is
 * asynchronous: a chunk that fails to load fails that open, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadCrc32cCheck = lazyPart(() => import("../../format/checked/check-crc32c.js"));
