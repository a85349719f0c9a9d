/*
 * A read-only refresh works on a draft of the log's state and publishes it in one synchronous
 * step (log-refresh.ts). A refresh awaits the storage many times, and between two awaits the
 * log's getters (`endOffset`, `startOffset`, …, which run outside the queue) and the waiters may
 * look at the state: they must see the view before the refresh or the one after it, never one
 * half way (the last slot idle while a truncation's rewalk replaces it, the start past an end
 * not yet extended). A refresh that fails (the writer renamed or deleted a file between the
 * listing and its read) leaves nothing behind: the draft's new slots are closed, the log keeps
 * its last view, and the refresh may simply run again. Cuts told to iterators wait for the
 * publication too: a failed refresh tells none.
 */
import type { LogState } from "../state/log-state.js";
import { cutCursors, openCursor, type ReadCursor } from "../state/read-cursors.js";
import type { ReadOnlyState } from "../state/read-only-state.js";
import { replaceAllSegments } from "../state/segment-list.js";

interface RefreshDraft {
  /** A copy of the state whose list, start, recovery point and cursors a refresh changes. */
  readonly s: LogState;
  /** A copy of the read-only state (its own marks map). */
  readonly ro: ReadOnlyState;
  /** Collects the lowest cut the refresh told the draft's cursors. */
  readonly cut: ReadCursor;
}

export function draftOf(s: LogState, ro: ReadOnlyState): RefreshDraft {
  const draftRo: ReadOnlyState = { ...ro, marks: new Map(ro.marks) };
  const cursors = new Set<WeakRef<ReadCursor>>();
  const cut = openCursor(cursors);
  const draftS: LogState = { ...s, segments: [...s.segments], cursors, readOnly: draftRo };
  return { s: draftS, ro: draftRo, cut };
}

/** Makes the draft the log's state, in one synchronous step; then closes the slots it dropped. */
export async function publish(s: LogState, ro: ReadOnlyState, draft: RefreshDraft): Promise<void> {
  const { s: next, ro: nextRo } = draft;
  const old = s.segments;
  const changed = old.length !== next.segments.length || old.some((slot, i) => slot !== next.segments[i]);
  if (changed) replaceAllSegments(s, next.segments);
  s.startOffset = next.startOffset;
  s.recoveryPoint = next.recoveryPoint;
  if (draft.cut.cut < Infinity) cutCursors(s.cursors, draft.cut.cut);
  ro.marks.clear();
  for (const [base, marked] of nextRo.marks) ro.marks.set(base, marked);
  ro.phantom = nextRo.phantom;
  ro.cleanPointSeen = nextRo.cleanPointSeen;
  ro.recoveryPointSeen = nextRo.recoveryPointSeen;
  if (!changed) return;
  const kept = new Set(next.segments);
  await Promise.allSettled(old.filter((slot) => !kept.has(slot)).map((slot) => slot.close()));
}

/** Drops a failed draft: closes the slots it opened, which the log never held. */
export async function discard(s: LogState, draft: RefreshDraft): Promise<void> {
  const held = new Set(s.segments);
  await Promise.allSettled(draft.s.segments.filter((slot) => !held.has(slot)).map((slot) => slot.close()));
}
