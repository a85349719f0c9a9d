/**
 * The `records()` iterators alive on one log, so that a truncation can tell each of them where
 * it cut. An iterator holds records it read ahead (a whole read's worth) and has handed out
 * records a truncation may take away: only it can tell which of the two a cut reached, so the
 * cut is written into every live cursor and the iterator looks at its next step.
 *
 * Held weakly: an iterator dropped half way without `return()` costs nothing once collected.
 */
export interface ReadCursor {
  /** The lowest offset truncated since the iterator last looked, or Infinity. */
  cut: number;
  readonly ref: WeakRef<ReadCursor>;
}

export type ReadCursors = Set<WeakRef<ReadCursor>>;

export function openCursor(live: ReadCursors): ReadCursor {
  const cursor = { cut: Infinity } as { cut: number; ref: WeakRef<ReadCursor> };
  cursor.ref = new WeakRef(cursor);
  // Sweep collected iterators now and then, so a log that is never truncated does not gather them.
  if (live.add(cursor.ref).size % 64 === 0) for (const ref of live) if (ref.deref() === undefined) live.delete(ref);
  return cursor;
}

/**
 * Every record at or after `offset` is about to be dropped. Called before any byte is, so a
 * cut that fails half way still counts.
 */
export function cutCursors(live: ReadCursors, offset: number): void {
  for (const ref of live) {
    const cursor = ref.deref();
    if (cursor === undefined) live.delete(ref);
    else cursor.cut = Math.min(cursor.cut, offset);
  }
}
