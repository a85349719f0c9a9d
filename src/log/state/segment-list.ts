/**
 * The only writers of `LogState.segments`. Everywhere else the list is read-only (its type says
 * so), and every change made here bumps `segmentsVersion`: what a reader derives from the list
 * and keeps between calls (the timestamp tree of timestamp-tree.ts) compares versions to know
 * when to derive it again, instead of re-walking thousands of segments on every call.
 *
 * The single writer asserts the list's invariant, base offsets strictly increasing (a lookup's
 * binary search and every "the segment holding offset x" depend on it): around each change
 * always (a few comparisons), over the whole list with `PAGELOG_CHECKS=all` (the tests).
 */
import { assertInvariant, expensiveChecks } from "../../errors.js";
import type { LogState } from "./log-state.js";
import type { SegmentSlot } from "./segment-slot.js";

/** The list behind the read-only type, its version bumped: the caller is about to change it. */
function changing(s: LogState): SegmentSlot[] {
  s.segmentsVersion++;
  return s.segments as SegmentSlot[];
}

/** Asserts the bases in [from, to) of the list (clamped to it) increase strictly; the whole list when expensive. */
function checkOrder(s: LogState, from: number, to: number): void {
  const list = s.segments;
  const [lo, hi] = expensiveChecks ? [1, list.length] : [Math.max(1, from), Math.min(list.length, to)];
  for (let i = lo; i < hi; i++) {
    const before = list[i - 1]!.baseOffset;
    const after = list[i]!.baseOffset;
    assertInvariant(
      before < after,
      () => `segment list of ${s.name}: base ${after} at ${i} does not follow base ${before}`,
      s.name,
    );
  }
}

/** Adds `slot` as the newest segment (a roll, a truncation's replacement, a follower's next segment). */
export function pushSegment(s: LogState, slot: SegmentSlot): void {
  changing(s).push(slot);
  checkOrder(s, s.segments.length - 1, s.segments.length);
}

/**
 * `Array.prototype.splice` on the list: removes `count` slots at `start` (all from there on by
 * default), inserts `slots`, returns the removed ones.
 */
export function spliceSegments(
  s: LogState,
  start: number,
  count = s.segments.length - start,
  ...slots: SegmentSlot[]
): SegmentSlot[] {
  const removed = changing(s).splice(start, count, ...slots);
  checkOrder(s, start, start + slots.length + 1);
  return removed;
}

/** Puts `slot` in place of the one at `index`. */
export function replaceSegment(s: LogState, index: number, slot: SegmentSlot): void {
  assertInvariant(index >= 0 && index < s.segments.length, () => `segment list of ${s.name}: no slot ${index}`);
  changing(s)[index] = slot;
  checkOrder(s, index, index + 2);
}

/** Replaces the whole list (a follower's reload). */
export function replaceAllSegments(s: LogState, slots: readonly SegmentSlot[]): void {
  s.segmentsVersion++;
  (s as { segments: readonly SegmentSlot[] }).segments = [...slots];
  checkOrder(s, 1, slots.length); // the copy walked the whole list already
}
