/*
 * Reads that run at once and must all settle before their caller goes on or fails (a failed
 * open's reads must not outlive its storage): the root's reads at `LogDir.open`, and what the
 * checkpoints' and positions files' parts read there.
 */

/** `Promise.all` that waits for every promise to settle, then rejects with the first rejection in order. */
export async function settleAll<T extends readonly unknown[]>(promises: {
  readonly [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
