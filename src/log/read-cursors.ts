/**
 * The `records()` iterators alive on one log, so that a truncation can tell each of them where
 * it cut. An iterator holds records it read ahead (a whole read's worth) and has handed out
 * records a truncation may take away: only it can tell which of the two a cut reached, so the
 * cut is written into every live cursor and the iterator looks at its next step.
 *
 * Held weakly: an iterator dropped half way without `return()` costs nothing once collected.
 */
export class ReadCursor {
  /** The lowest offset truncated since the iterator last looked, or Infinity. */
  #cutAt = Number.POSITIVE_INFINITY;
  readonly ref: WeakRef<ReadCursor> = new WeakRef(this);

  noteCut(offset: number): void {
    this.#cutAt = Math.min(this.#cutAt, offset);
  }

  /** The lowest cut since the last call (Infinity if none), forgetting it. */
  takeCut(): number {
    const cut = this.#cutAt;
    this.#cutAt = Number.POSITIVE_INFINITY;
    return cut;
  }
}

export class ReadCursors {
  readonly #live = new Set<WeakRef<ReadCursor>>();
  /** Collected iterators are swept when the set reaches this size (then twice what is left). */
  #sweepAt = 64;

  open(): ReadCursor {
    const cursor = new ReadCursor();
    this.#live.add(cursor.ref);
    if (this.#live.size >= this.#sweepAt) {
      for (const ref of this.#live) if (ref.deref() === undefined) this.#live.delete(ref);
      this.#sweepAt = Math.max(64, 2 * this.#live.size);
    }
    return cursor;
  }

  close(cursor: ReadCursor): void {
    this.#live.delete(cursor.ref);
  }

  /**
   * Every record at or after `offset` is about to be dropped. Called before any byte is, so a
   * cut that fails half way still counts.
   */
  cut(offset: number): void {
    for (const ref of this.#live) {
      const cursor = ref.deref();
      if (cursor === undefined) this.#live.delete(ref);
      else cursor.noteCut(offset);
    }
  }
}
