/*
 * The door to the course's hooks (policy-hooks.ts: a reader's `writeVarint` checked at each append,
 * a reader's `lookup` in index lookups). An `import()`, so a bundler that splits puts them in a
 * chunk of their own, which a page whose logs run pagelog's own functions (no `policies` option,
 * the default) never loads (docs/entry-points.md). Loaded by `OffsetIndex.open` given a lookup,
 * and by a log's open given either function (log.ts `openLog`, before anything is opened: its
 * rolls then open segments without waiting for a chunk). A chunk that fails to load fails that
 * call (the open), and the next one loads it.
 */
type PolicyHooks = typeof import("./policy-hooks.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: PolicyHooks | undefined;

export function loadPolicyHooks(): Promise<PolicyHooks> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./policy-hooks.js").then((part) => (loaded = part));
}
