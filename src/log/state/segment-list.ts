/**
 * The only writers of `LogState.segments`. Everywhere else the list is read-only (its type says
 * so), and every change made here bumps `segmentsVersion`: what a reader derives from the list
 * and keeps between calls (the timestamp tree of timestamp-tree.ts) compares versions to know
 * when to derive it again, instead of re-walking thousands of segments on every call.
 */
import type { LogState } from "./log-state.js";
import type { SegmentSlot } from "./segment-slot.js";

/** The list behind the read-only type, its version bumped: the caller is about to change it. */
function changing(s: LogState): SegmentSlot[] {
  s.segmentsVersion++;
  return s.segments as SegmentSlot[];
}

/** Adds `slot` as the newest segment (a roll, a truncation's replacement, a follower's next segment). */
export function pushSegment(s: LogState, slot: SegmentSlot): void {
  changing(s).push(slot);
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
  return changing(s).splice(start, count, ...slots);
}

/** Puts `slot` in place of the one at `index`. */
export function replaceSegment(s: LogState, index: number, slot: SegmentSlot): void {
  changing(s)[index] = slot;
}

/** Replaces the whole list (a follower's reload). */
export function replaceAllSegments(s: LogState, slots: readonly SegmentSlot[]): void {
  s.segmentsVersion++;
  (s as { segments: readonly SegmentSlot[] }).segments = [...slots];
}
