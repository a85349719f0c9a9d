/**
 * The model the engine checks every reopen against. It keeps the log's contents after each
 * resolved call (`state`), what the call in flight at a cut would have made of them (`inFlight`),
 * and how far the log is durable. After a reboot the log must be exactly a prefix of one of the
 * two — same values (and, for a log that reads records, same offsets, keys, headers and
 * timestamps) — at least as long as the durable point. Every record carries a unique id, so a
 * record that recovery threw away, or a truncation dropped, cannot come back unnoticed. A
 * compacted log (the compaction workload) may also have gaps where the cleaner legally dropped a
 * record: compaction-model.ts says which.
 */
import type { AdapterLog, CrashRecord, CrashRecordRead, LogTuning } from "../adapter.js";
import type { RecordShape } from "../schedule.js";
import { CrashViolation } from "../violation.js";

/** A record as the model holds it: its timestamp known (the clock's time if the log stamps it). */
export interface ModelRecord extends CrashRecord {
  readonly timestamp: number;
  /** Whether the log stamps it (the record is appended without a timestamp). */
  readonly stamped: boolean;
}

export interface ModelLog {
  /** Indexed by offset: `records[offset]` (entries below `start` are stale and never read). */
  readonly records: readonly ModelRecord[];
  readonly start: number;
  /** The end of the prefix a resolved call made durable. */
  readonly durable: number;
  /** Only for a compacted log: what the cleaner may have dropped, and what it did. */
  readonly compaction?: CompactionState;
}

/** What the model of a compacted log knows besides its records (compaction-model.ts checks it). */
export interface CompactionState {
  /** `deleteRetentionMs`: a tombstone the cleaner reached may go once its timestamp is that old. */
  readonly retentionMs: number;
  /** Offsets a check found dropped by the cleaner (after it was durable): they never come back. */
  readonly gone: ReadonlySet<number>;
  /** Offsets below a truncation that a cleaning before it could have dropped (compaction-model.ts). */
  readonly mayGo?: ReadonlySet<number>;
  /** Every cleaning started, in order: the clock then, and the durable point then (its reach). */
  readonly cleanings: ReadonlyArray<{ readonly at: number; readonly durable: number }>;
}

/** How a compacted log is checked instead of as a prefix (compaction-model.ts). */
export interface ContentRules {
  /** Undefined if `found` may follow `candidate` and the last resolved state; else why not. */
  compare(found: Found, candidate: ModelLog, resolved: ModelLog): string | undefined;
  /** The state `found` stands for from now on, `candidate` being the one it matched. */
  adopt(found: Found, candidate: ModelLog): ModelLog;
}

/** The model of an empty log with the schedule's settings. */
export function emptyState(tuning: LogTuning): ModelLog {
  const empty = { records: [], start: 0, durable: 0 };
  if (tuning.cleanupPolicy === undefined) return empty;
  const retentionMs = tuning.deleteRetentionMs ?? 24 * 3600 * 1000;
  return { ...empty, compaction: { retentionMs, gone: new Set(), cleanings: [] } };
}

/** What a reopened log holds, as read back. */
export interface Found {
  readonly start: number;
  readonly records: ReadonlyArray<Partial<CrashRecordRead> & { readonly value: Uint8Array | null }>;
  /** The log's end, if it says (a compacted log's gaps may leave it past the last record). */
  readonly end?: number;
  /** Whether it came from `readRecords` (everything is compared) or `readAll` (values only). */
  readonly rich: boolean;
}

const enc = new TextEncoder();
const latin1 = (b: Uint8Array): string => String.fromCharCode(...b.subarray(0, 48)) + (b.length > 48 ? "…" : "");

/** Reads the whole log back the richest way it offers. */
export async function readLog(log: AdapterLog): Promise<Found> {
  if (typeof log.readRecords === "function") {
    const { start, records, end } = await log.readRecords();
    return { start, records, rich: true, ...(end === undefined ? {} : { end }) };
  }
  const values = await log.readAll();
  return { start: 0, records: values.map((value) => ({ value })), rich: false };
}

/** A record for the model from a generated shape; `seq` makes it unique, `now` is the clock. */
export function makeRecord(shape: RecordShape, seq: number, now: number): ModelRecord {
  const id = `r${seq}`;
  const headers = Array.from({ length: shape.headers }, (_, h) => ({
    key: `h${h % 2}`,
    value: h === 2 ? null : enc.encode(`${id}:${h}`),
  }));
  const key = shape.keyId !== undefined ? `k${shape.keyId}` : `k${id}`;
  return {
    key: shape.keyed ? enc.encode(key) : null,
    value: shape.tombstone === true ? null : enc.encode(id + ".".repeat(shape.valueBytes)),
    headers,
    timestamp: shape.tsDelta === null ? now : now + shape.tsDelta,
    stamped: shape.tsDelta === null,
  };
}

/** The record as handed to `appendRecords` (no timestamp when the log stamps it). */
export function toInput(r: ModelRecord): CrashRecord {
  return { key: r.key, value: r.value, headers: r.headers, ...(r.stamped ? {} : { timestamp: r.timestamp }) };
}

/** Short, for traces and reports: the value's id and length. */
export function describeRecordValue(v: Uint8Array | null): string {
  if (v === null) return "a tombstone";
  if (v.length === 0) return "an empty value";
  const text = latin1(v);
  const id = /^r\d+/.exec(text)?.[0];
  return id === undefined ? JSON.stringify(text) : `${id}(${v.length}B)`;
}

function sameBytes(a: Uint8Array | null | undefined, b: Uint8Array | null): boolean {
  if (a === b) return true;
  if (a == null || b === null || a.length !== b.length) return false;
  // A plain loop: `every` with a closure costs more than the compare on these short values.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function show(r: Partial<CrashRecordRead>): string {
  const bytes = (b: Uint8Array | null | undefined): string | null | undefined => (b == null ? b : latin1(b));
  return JSON.stringify({
    offset: r.offset,
    key: bytes(r.key),
    value: bytes(r.value),
    headers: r.headers?.map((h) => ({ key: h.key, value: bytes(h.value) })),
    timestamp: r.timestamp,
  });
}

/** Undefined if the found record is the model's; else what differs. */
export function differs(
  got: Found["records"][number],
  want: ModelRecord,
  offset: number,
  rich: boolean,
): string | undefined {
  // Built only for a report: every record of every check passes through here.
  const wanted = (): string => (rich ? show({ ...want, offset }) : show({ value: want.value }));
  if (!sameBytes(got.value, want.value)) return `offset ${offset}: got ${show(got)}, want ${wanted()}`;
  if (!rich) return undefined;
  const headersMatch =
    got.headers?.length === want.headers.length &&
    got.headers.every((h, i) => h.key === want.headers[i]!.key && sameBytes(h.value, want.headers[i]!.value));
  const ok =
    (got.offset === undefined || got.offset === offset) &&
    sameBytes(got.key, want.key) &&
    headersMatch &&
    got.timestamp === want.timestamp;
  return ok ? undefined : `offset ${offset}: got ${show(got)}, want ${wanted()}`;
}

/**
 * Undefined if `found` is an allowed state given `candidate` (the resolved state or the in-flight
 * one) and the last resolved state; else what is wrong.
 */
function comparePrefix(found: Found, candidate: ModelLog, resolved: ModelLog): string | undefined {
  const { start } = found;
  const end = start + found.records.length;
  const bounds = checkBounds(start, end, candidate, resolved);
  if (bounds !== undefined) return bounds;
  for (const [i, got] of found.records.entries()) {
    const want = candidate.records[start + i];
    if (want === undefined) return `offset ${start + i} has no model record`;
    const problem = differs(got, want, start + i, found.rich);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Undefined if a log [start, end) may follow `candidate` and the last resolved state; else why not. */
export function checkBounds(start: number, end: number, candidate: ModelLog, resolved: ModelLog): string | undefined {
  if (end > candidate.records.length)
    return `end ${end} is past the ${candidate.records.length} records appended (records that were never appended, or truncated ones back)`;
  if (end < candidate.durable)
    return `durability: end ${end} is below the durable point ${candidate.durable} (first lost: ${describeRecordValue(candidate.records[end]?.value ?? new Uint8Array(0))})`;
  // The start never moves back past what a resolved deleteBefore made durable, and never past
  // what any call asked for.
  if (start < Math.min(resolved.start, candidate.start))
    return `start ${start} is below the durable start ${resolved.start}`;
  if (start > Math.max(resolved.start, candidate.start))
    return `start ${start} is past every start ever asked for (${candidate.start})`;
  return undefined;
}

/**
 * Checks what a reopen read back against the model: a prefix of the last resolved state (or of
 * the in-flight call's), at least as long as what was durable; with `rules`, a compacted log, a
 * valid compaction of one. Returns the state found, which recovery made durable.
 */
export function checkContents(
  found: Found,
  state: ModelLog,
  inFlight: ModelLog | undefined,
  trace: string[],
  when: string,
  rules?: ContentRules,
): ModelLog {
  const end = rules === undefined ? found.start + found.records.length : foundEnd(found);
  const explain: string[] = [];
  for (const candidate of inFlight === undefined ? [state] : [state, inFlight]) {
    const problem =
      rules === undefined ? comparePrefix(found, candidate, state) : rules.compare(found, candidate, state);
    if (problem === undefined) {
      trace.push(`${when}: ok, [${found.start}, ${end}) (durable was ${candidate.durable})`);
      if (rules !== undefined) return rules.adopt(found, candidate);
      return { records: candidate.records.slice(0, end), start: found.start, durable: end };
    }
    explain.push(problem);
  }
  throw new CrashViolation(
    `${when}: the log [${found.start}, ${end}) is no allowed state: ${explain.join(" | ")}`,
    trace,
  );
}

/** Where a found log ends: what it says, else one past its last record (or its start, if empty). */
export function foundEnd(found: Found): number {
  const last = found.records.at(-1)?.offset;
  return found.end ?? (last === undefined ? found.start + found.records.length : last + 1);
}
