/*
 * The model's rules for a compacted log (Kafka's log cleaner). A found log is a valid compaction
 * of a prefix of what was appended when, within its bounds (those of model.ts: its end at least
 * the durable point, its start where a call put it):
 *
 *  - every record present was appended, at its own offset, with its key, value, headers and
 *    timestamp, and offsets strictly increase;
 *  - nothing a check once found dropped comes back (a cleaning is durable when it resolves, and a
 *    recovery makes what it found durable);
 *  - every other record of [start, end) is present, unless a cleaning could drop it: a later
 *    record of the same key lies below the durable point of a cleaning that started (the
 *    cleaner reaches only below the recovery point), or it is a tombstone that an earlier
 *    cleaning reached and a later one started `deleteRetentionMs` past its timestamp (pagelog
 *    measures the horizon by the newest timestamp of the tombstone's segment, which is never
 *    older than the tombstone's own);
 *  - so the latest record of every key is present, or its tombstone went; and a key whose
 *    tombstone went shows no older value of it (that would bring a deleted key back).
 *
 * These are consequences of the cleaner's rules that hold whatever segments it grouped, which
 * the model does not know: they never reject a correct cleaning, and a cleaning that drops what
 * it must keep, or a swap whose crash loses or resurrects records, breaks one of them.
 */
import type { CompactionState, ContentRules, Found, ModelLog, ModelRecord } from "./model.js";
import { checkBounds, differs, foundEnd } from "./model.js";

const keyText = (r: ModelRecord): string => (r.key === null ? "" : String.fromCharCode(...r.key));

/** The rules for a compacted log, for `checkContents`. */
export const COMPACTION_RULES: ContentRules = {
  compare: compareCompaction,
  adopt(found, candidate) {
    const end = foundEnd(found);
    const c = candidate.compaction!;
    const present = new Set(found.records.map((r) => r.offset));
    const gone = new Set([...c.gone].filter((o) => o < end));
    for (let o = found.start; o < end; o++) if (!present.has(o)) gone.add(o);
    // Offsets from the end on are appended again: no cleaning reached those.
    const cleanings = c.cleanings.map((k) => ({ ...k, durable: Math.min(k.durable, end) }));
    return {
      records: candidate.records.slice(0, end),
      start: found.start,
      durable: end,
      // What was missing is gone now; what is present must stay unless a cleaning drops it anew.
      compaction: { ...c, gone, mayGo: new Set<number>(), cleanings },
    };
  },
};

/** Undefined if `found` is a valid compaction of `candidate`; else what is wrong. */
export function compareCompaction(found: Found, candidate: ModelLog, resolved: ModelLog): string | undefined {
  const { start } = found;
  const end = foundEnd(found);
  const bounds = checkBounds(start, end, candidate, resolved);
  if (bounds !== undefined) return bounds;
  const c = candidate.compaction!;
  const present = new Set<number>();
  let last = start - 1;
  for (const got of found.records) {
    const offset = got.offset;
    if (offset === undefined) return "a compacted log's records must carry their offsets";
    if (offset <= last) return `offset ${offset} after offset ${last}: offsets must strictly increase`;
    if (offset >= end) return `offset ${offset} is at or past the log's end ${end}`;
    last = offset;
    if (c.gone.has(offset)) return `offset ${offset} came back: the cleaner had dropped it, durably`;
    const want = candidate.records[offset];
    if (want === undefined) return `offset ${offset} has no model record`;
    const problem = differs(got, want, offset, true);
    if (problem !== undefined) return problem;
    present.add(offset);
  }
  return absences(candidate, start, end, present);
}

/** Undefined if every record of [start, end) that is not present could be cleaned away; else why not. */
function absences(candidate: ModelLog, start: number, end: number, present: ReadonlySet<number>): string | undefined {
  const c = candidate.compaction!;
  const reach = Math.min(end, Math.max(0, ...c.cleanings.map((k) => k.durable)));
  /** Offset → the next offset with the same key (below `end`). */
  const next = new Map<number, number>();
  /** Key → its offset seen last so far (scanning down), then its latest offset of [start, end). */
  const seen = new Map<string, number>();
  const latest = new Map<string, number>();
  for (let o = end - 1; o >= start; o--) {
    const key = keyText(candidate.records[o]!);
    const after = seen.get(key);
    if (after !== undefined) next.set(o, after);
    else latest.set(key, o);
    seen.set(key, o);
  }
  for (let o = start; o < end; o++) {
    if (present.has(o) || c.gone.has(o) || c.mayGo?.has(o)) continue;
    const record = candidate.records[o]!;
    const superseded = (next.get(o) ?? Infinity) < reach;
    if (!superseded && !(record.value === null && tombstoneMayGo(candidate, o)))
      return `offset ${o} (${keyText(record)}) is missing, and no cleaning could drop it: ${
        record.value === null
          ? "a tombstone before its deleteRetentionMs"
          : "the latest record of its key below a cleaning's reach"
      }`;
  }
  // A tombstone gone leaves its key with no value at all: an older one present is a deleted key back.
  for (const [key, o] of latest) {
    const newest = [...present].filter((p) => p < o && keyText(candidate.records[p]!) === key).at(-1);
    if (!present.has(o) && candidate.records[o]!.value === null && newest !== undefined)
      return `key ${key} shows offset ${newest} again: its tombstone at ${o} went, and older values must have gone before it`;
  }
  return undefined;
}

/** Whether a cleaning could have dropped the tombstone at `offset`: reached by one, then past its retention at a later one. */
function tombstoneMayGo(candidate: ModelLog, offset: number): boolean {
  const c = candidate.compaction!;
  const timestamp = candidate.records[offset]!.timestamp;
  let reached = false;
  for (const cleaning of c.cleanings) {
    if (reached && cleaning.at - c.retentionMs >= timestamp) return true;
    if (cleaning.durable > offset) reached = true;
  }
  return false;
}

/**
 * What a resolved `truncateTo(to)` leaves of a compacted log's model: offsets from `to` on are
 * appended anew. A record below `to` that a cleaning could already have dropped, for a later
 * record of its key that the truncation removes, stays allowed to be missing (`mayGo`): the
 * cleaning ran before the truncation, on the records of then (Kafka's cleaner does not undo it).
 */
export function truncatedCompaction(
  c: CompactionState,
  to: number,
  records: readonly ModelRecord[] = [],
): CompactionState {
  const mayGo = new Set([...(c.mayGo ?? [])].filter((o) => o < to));
  const reach = Math.min(records.length, Math.max(0, ...c.cleanings.map((k) => k.durable)));
  const seen = new Set<string>();
  const before = { records, start: 0, durable: 0, compaction: c };
  for (let o = reach - 1; o >= 0; o--) {
    const record = records[o]!;
    const key = keyText(record);
    const superseded = seen.has(key);
    seen.add(key);
    if (o < to && (superseded || (record.value === null && tombstoneMayGo(before, o)))) mayGo.add(o);
  }
  return {
    ...c,
    gone: new Set([...c.gone].filter((o) => o < to)),
    mayGo,
    cleanings: c.cleanings.map((k) => ({ ...k, durable: Math.min(k.durable, to) })),
  };
}

/**
 * `state` with a cleaning that may have started now, reaching `reach` (the log's recovery point):
 * a log may clean in the background after any call (pagelog does, when its dirty ratio says so),
 * so the run counts one at every step and every check.
 */
export function mayHaveCleaned(state: ModelLog, at: number, reach: number): ModelLog;
export function mayHaveCleaned(state: ModelLog | undefined, at: number, reach: number): ModelLog | undefined;
export function mayHaveCleaned(state: ModelLog | undefined, at: number, reach: number): ModelLog | undefined {
  const c = state?.compaction;
  if (state === undefined || c === undefined) return state;
  return { ...state, compaction: { ...c, cleanings: [...c.cleanings, { at, durable: reach }] } };
}
