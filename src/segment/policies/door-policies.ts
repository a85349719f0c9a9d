/*
 * The door to the course's hooks (policy-hooks.ts: a reader's `writeVarint` checked at each append,
 * a reader's `lookup` in index lookups). An `import()`, so a bundler that splits puts them in a
 * chunk of their own, which a page whose logs run pagelog's own functions (no `policies` option,
 * the default) never loads (docs/entry-points.md). Loaded by `OffsetIndex.open` given a lookup,
 * and by a log's open given either function (log.ts `openLog`, before anything is opened: its
 * rolls then open segments without waiting for a chunk). A chunk that fails to load fails that
 * call (the open), and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadPolicyHooks = lazyPart(() => import("./policy-hooks.js"));
