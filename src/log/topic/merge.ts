/*
 * `topic.records()`: the partitions' `log.records()` iterators merged into one. Each partition's
 * records keep their order; between partitions there is none (as in Kafka, where order is per
 * partition). The merge keeps one step in flight per partition and yields whichever partition's
 * record is ready, taking ready partitions round robin (after a record of partition p, the first
 * ready one from p + 1 on), so a busy partition never starves a quiet one. With `follow`, a
 * partition at its end waits for its next append while the others go on.
 */
import type { LogRecord } from "../log.js";

type Step = { readonly p: number; readonly result?: IteratorResult<LogRecord, void>; readonly error?: unknown };

/** Yields `[partition, record]` from `open(p, signal)` for each partition, merged; ends them all when it ends. */
export async function* mergePartitions(
  count: number,
  open: (partition: number, signal: AbortSignal) => AsyncGenerator<LogRecord, void, undefined>,
  signal: AbortSignal | undefined,
): AsyncGenerator<readonly [number, LogRecord], void, undefined> {
  signal?.throwIfAborted();
  // One signal for every partition's iterator: a user's abort, or this merge ending (a break, an
  // error), wakes every follower waiting at its end, so none is left holding a wait.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const iterators = Array.from({ length: count }, (_, p) => open(p, stop.signal));
  const pending = new Map<number, Promise<Step>>();
  const pull = (p: number) =>
    pending.set(
      p,
      iterators[p]!.next().then(
        (result) => ({ p, result }),
        (error: unknown) => ({ p, error }),
      ),
    );
  for (let p = 0; p < count; p++) pull(p);
  let turn = 0;
  try {
    while (pending.size > 0) {
      // Promise.race settles with the first of its promises already settled, in array order: the
      // array starts at `turn`, so among ready partitions the next after the last one yielded wins.
      const order = [...pending.keys()].sort((a, b) => ((a - turn + count) % count) - ((b - turn + count) % count));
      const step = await Promise.race(order.map((p) => pending.get(p)!));
      pending.delete(step.p);
      if (step.result === undefined) throw step.error;
      if (step.result.done === true) continue;
      turn = (step.p + 1) % count;
      pull(step.p);
      yield [step.p, step.result.value] as const;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!stop.signal.aborted) stop.abort(new Error("the topic's records() ended"));
    // Each step in flight settles on the abort (a waiting follower throws it): let it, then close.
    await Promise.allSettled(pending.values());
    await Promise.allSettled(iterators.map((it) => it.return()));
  }
}
