/** Bounded concurrency for loading a log of many segments. */

/** Segments opened (or planned) at once while loading. */
export const OPENING_AT_ONCE = 16;

/**
 * `run` for every item, at most `limit` at once, results in the items' order. The first failure
 * rejects, once every call started has settled (so none is left running).
 */
export async function inOrder<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await run(items[i]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
