/*
 * The memo every door of a lazy part keeps (docs/entry-points.md, "Lazy parts"): the module once
 * its `import()` resolved, so later calls cost one resolved promise; a load that failed is not
 * kept, so the next call loads it again.
 */

/** Wraps a door's `import()`: the returned function loads the part on its first call, then hands out the loaded module. */
export function lazyPart<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: T | undefined;
  return () => (loaded !== undefined ? Promise.resolve(loaded) : load().then((part) => (loaded = part)));
}
