/*
 * The door to a HandlePool's pool proper (pool-core.ts and pooled-file.ts: eviction, reopening,
 * pinning): a `HandlePool` loads it through here at the first call that would take its
 * `maxOpenFiles`-th descriptor. An `import()`, so a bundler that splits puts it in a chunk of its
 * own, which a page whose directories never come near the bound never loads
 * (docs/entry-points.md). Inside an open, a list, a syncDir or a lock, which were already
 * asynchronous: a chunk that fails to load fails that call, and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadHandlePool = lazyPart(() => import("./pool-core.js"));
