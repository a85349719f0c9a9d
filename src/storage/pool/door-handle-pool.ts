/*
 * The door to a HandlePool's pool proper (pool-core.ts and pooled-file.ts: eviction, reopening,
 * pinning): a `HandlePool` loads it through here at the first call that would take its
 * `maxOpenFiles`-th descriptor. An `import()`, so a bundler that splits puts it in a chunk of its
 * own, which a page whose directories never come near the bound never loads
 * (docs/entry-points.md). Inside an open, a list, a syncDir or a lock, which were already
 * asynchronous: a chunk that fails to load fails that call, and the next one loads it.
 */
type PoolPart = typeof import("./pool-core.js");

/** The module once an `import()` of it resolved (a failed load is not kept). */
let loaded: PoolPart | undefined;

export function loadHandlePool(): Promise<PoolPart> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  return import("./pool-core.js").then((part) => (loaded = part));
}
