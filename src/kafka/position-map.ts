/**
 * Source offset → target offset, for carrying consumer positions (MirrorMaker 2's checkpoints).
 * Offsets differ between the two logs: each transaction the mirror commits ends with a marker
 * that takes an offset in the target, and a compacted source has gaps the target does not. A
 * pagelog position P (the next offset to read) becomes "one past the target offset of the last
 * mirrored record below P": a Kafka consumer there reads next the record P names (stepping over
 * any marker in between), which is what switching a consumer from pagelog to Kafka needs.
 *
 * The map holds one entry per committed transaction from the session's start, and forgets those
 * below every position it was asked about: positions only move forward.
 */

/** One committed transaction: its records' source offsets and where the target put the first. */
interface Span {
  /** The first record's source offset. */
  readonly first: number;
  /** The last record's source offset. */
  readonly last: number;
  /** The target offset of the first record; the others follow it one by one. */
  readonly base: number;
  /** The source offsets, when they are not `first..last` without a gap (a compacted source). */
  readonly offsets: readonly number[] | undefined;
  /** How many records. */
  readonly count: number;
}

export class PositionMap {
  /** Every source offset below `floorSource` was mirrored; the target's next offset after them is `floorTarget`. */
  #floorSource: number;
  #floorTarget: number;
  readonly #spans: Span[] = [];

  /** The map at a session's start: the source below `source` is in the target, whose end is `target`. */
  constructor(source: number, target: number) {
    this.#floorSource = source;
    this.#floorTarget = target;
  }

  /** A committed transaction: records at `sourceOffsets` (ascending) that the target put at `base`, `base + 1`, …. */
  add(sourceOffsets: readonly number[], base: number): void {
    const count = sourceOffsets.length;
    if (count === 0) return;
    const first = sourceOffsets[0]!;
    const last = sourceOffsets[count - 1]!;
    this.#spans.push({
      first,
      last,
      base,
      count,
      offsets: last - first + 1 === count ? undefined : [...sourceOffsets],
    });
  }

  /** The next source offset to mirror (one past the last mirrored record, or the session's start). */
  get mirroredEnd(): number {
    const span = this.#spans[this.#spans.length - 1];
    return span === undefined ? this.#floorSource : span.last + 1;
  }

  /**
   * The target offset for pagelog position `position`, or undefined when it cannot be told yet
   * (records below it are not mirrored) or any more (below the session's start, or forgotten).
   */
  translate(position: number): number | undefined {
    if (position < this.#floorSource) return undefined;
    let before = this.#floorTarget;
    for (const span of this.#spans) {
      if (position <= span.first) return before;
      if (position <= span.last) return span.base + indexAtOrAbove(span, position);
      before = span.base + span.count;
    }
    return position <= this.mirroredEnd ? before : undefined;
  }

  /** Forgets the spans wholly below `position`: no position asked about later is smaller. */
  forgetBelow(position: number): void {
    while (this.#spans.length > 0 && this.#spans[0]!.last < position) {
      const span = this.#spans.shift()!;
      this.#floorSource = span.last + 1;
      this.#floorTarget = span.base + span.count;
    }
  }
}

/** The index in `span` of its first record at or above `position` (`first < position <= last`). */
function indexAtOrAbove(span: Span, position: number): number {
  if (span.offsets === undefined) return position - span.first;
  let lo = 0;
  let hi = span.count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (span.offsets[mid]! < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
