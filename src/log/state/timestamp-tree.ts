/**
 * The largest timestamp of every segment but the active one, in a max segment tree, so that
 * `offsetForTimestamp` finds the first segment that can hold its answer in O(log n) instead of
 * walking the list: on 10,000 segments the walk was a quarter of a lookup's CPU. Kafka walks too (its
 * `UnifiedLog.fetchOffsetByTimestamp`), but it holds every segment's largest timestamp in memory.
 *
 * An idle segment's largest timestamp is unknown until its first use: its leaf is +Infinity, so
 * the search stops there and the walk loads it (and `learn` puts the real value in). An
 * over-estimate only costs a look at one more segment; the tree never holds less than a
 * segment's real largest timestamp, because it is built from the list it was derived from
 * (`segmentsVersion`) and the only segment whose largest timestamp grows, the active one, is
 * not in it.
 */
/**
 * What the tree reads of a log's state (LogState has it; a structural type here, so that
 * log-state.ts, which holds the tree, and this file do not import each other).
 */
interface TimestampSource {
  readonly segments: readonly { readonly segment?: { readonly maxTimestamp: number } | undefined }[];
  readonly segmentsVersion: number;
  timestampTree: TimestampTree | undefined;
}

export class TimestampTree {
  /** The `segmentsVersion` it was built from. */
  readonly version: number;
  /** Segments it covers: the first `size` of the list (all but the active one). */
  readonly size: number;
  /** Leaves at [capacity, capacity + size), each node the max of its two children; padding -Infinity. */
  readonly #nodes: Float64Array;
  readonly #capacity: number;

  private constructor(version: number, values: readonly number[]) {
    this.version = version;
    this.size = values.length;
    let capacity = 1;
    while (capacity < values.length) capacity *= 2;
    this.#capacity = capacity;
    this.#nodes = new Float64Array(2 * capacity).fill(-Infinity);
    this.#nodes.set(values, capacity);
    for (let node = capacity - 1; node >= 1; node--)
      this.#nodes[node] = Math.max(this.#nodes[2 * node]!, this.#nodes[2 * node + 1]!);
  }

  /** The tree of `s`'s segments now: the kept one while the list has not changed, else a new one. */
  static of(s: TimestampSource): TimestampTree {
    const kept = s.timestampTree;
    if (kept !== undefined && kept.version === s.segmentsVersion) return kept;
    const values = s.segments.slice(0, -1).map((slot) => slot.segment?.maxTimestamp ?? Infinity);
    const tree = new TimestampTree(s.segmentsVersion, values);
    s.timestampTree = tree;
    return tree;
  }

  /** Segment `index` (below `size`) turned out to have `maxTimestamp`: its first use loaded it. */
  learn(index: number, maxTimestamp: number): void {
    let node = this.#capacity + index;
    if (this.#nodes[node] === maxTimestamp) return;
    this.#nodes[node] = maxTimestamp;
    for (node >>= 1; node >= 1; node >>= 1)
      this.#nodes[node] = Math.max(this.#nodes[2 * node]!, this.#nodes[2 * node + 1]!);
  }

  /** The first index in [from, size) whose largest timestamp is at least `timestamp`, else `size`. */
  firstAtLeast(from: number, timestamp: number): number {
    const found = this.#search(1, 0, this.#capacity, from, timestamp);
    return found < 0 || found >= this.size ? this.size : found;
  }

  /** The first leaf in [max(lo, from), hi) under `node` (which covers [lo, hi)) at least `timestamp`, else -1. */
  #search(node: number, lo: number, hi: number, from: number, timestamp: number): number {
    // `!(x >= t)`, not `x < t`: a NaN never prunes a subtree (it only costs a look).
    if (hi <= from || !(this.#nodes[node]! >= timestamp)) return -1;
    if (hi - lo === 1) return lo;
    const mid = (lo + hi) >> 1;
    const left = this.#search(2 * node, lo, mid, from, timestamp);
    return left >= 0 ? left : this.#search(2 * node + 1, mid, hi, from, timestamp);
  }
}
