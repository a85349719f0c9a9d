/**
 * The crash engine's rules for a compacted log (src/testing/engine/compaction-model.ts): which
 * absences a cleaning explains, and which it never does. Each case is a model state and what a
 * reopened log read back; a rule that let the wrong one through would let the engine pass a
 * cleaner that loses, resurrects or reorders records.
 */
import { describe, expect, it } from "vitest";
import {
  COMPACTION_RULES,
  compareCompaction,
  truncatedCompaction,
} from "../../../../../src/testing/engine/workloads/compaction-model.js";
import type { Found, ModelLog, ModelRecord } from "../../../../../src/testing/engine/workloads/model.js";

const enc = new TextEncoder();
const T0 = 1_000_000;
const RETENTION = 1000;

/** `spec`: one key per record, "k1" a value, "k1-" a tombstone; timestamp T0 + offset. */
function records(spec: string[]): ModelRecord[] {
  return spec.map((s, i) => ({
    key: enc.encode(s.replace("-", "")),
    value: s.endsWith("-") ? null : enc.encode(`r${i}`),
    headers: [{ key: "h", value: enc.encode(`r${i}`) }],
    timestamp: T0 + i,
    stamped: false,
  }));
}

function state(spec: string[], cleanings: Array<[at: number, durable: number]>, gone: number[] = []): ModelLog {
  return {
    records: records(spec),
    start: 0,
    durable: spec.length,
    compaction: {
      retentionMs: RETENTION,
      gone: new Set(gone),
      cleanings: cleanings.map(([at, durable]) => ({ at, durable })),
    },
  };
}

/** What the log read back: the records at `offsets` of the state, as they were appended. */
function found(s: ModelLog, offsets: number[], end = s.records.length): Found {
  return {
    start: 0,
    end,
    rich: true,
    records: offsets.map((o) => ({ ...s.records[o]!, offset: o, timestamp: s.records[o]!.timestamp })),
  };
}

const check = (s: ModelLog, f: Found): string | undefined => compareCompaction(f, s, s);

describe("the compaction model", () => {
  it("takes a cleaning's work: a record whose key has a later durable record may go", () => {
    const s = state(["a", "b", "a", "b"], [[T0, 4]]);
    expect(check(s, found(s, [2, 3]))).toBeUndefined();
    expect(check(s, found(s, [0, 1, 2, 3]))).toBeUndefined(); // a cleaning may keep duplicates
  });

  it("refuses an absence no cleaning explains: none ran, the key's latest record, or beyond the cleaning's reach", () => {
    const none = state(["a", "a"], []);
    expect(check(none, found(none, [1]))).toMatch(/offset 0 .* is missing, and no cleaning could drop it/);
    const s = state(["a", "b", "a"], [[T0, 3]]);
    expect(check(s, found(s, [0, 2]))).toMatch(/offset 1 \(b\) is missing/);
    // The later record of the key was not durable when the cleaning started: it cannot be the reason.
    const early = state(["a", "b", "a"], [[T0, 2]]);
    expect(check(early, found(early, [1, 2]))).toMatch(/offset 0 \(a\) is missing/);
  });

  it("lets a tombstone go only after a cleaning reached it and a later one ran deleteRetentionMs past its timestamp", () => {
    const spec = ["a", "a-"];
    const once = state(spec, [[T0 + 5000, 2]]);
    expect(check(once, found(once, []))).toMatch(/offset 1 \(a\) is missing.*a tombstone before its deleteRetentionMs/);
    const soon = state(spec, [
      [T0, 2],
      [T0 + RETENTION, 2],
    ]);
    expect(check(soon, found(soon, []))).toMatch(/tombstone before its deleteRetentionMs/);
    const later = state(spec, [
      [T0, 2],
      [T0 + 1 + RETENTION, 2],
    ]);
    expect(check(later, found(later, []))).toBeUndefined();
  });

  it("refuses a deleted key back: its tombstone gone while an older value of it is there", () => {
    const s = state(
      ["a", "b", "a-"],
      [
        [T0, 3],
        [T0 + 10 * RETENTION, 3],
      ],
    );
    expect(check(s, found(s, [1]))).toBeUndefined();
    expect(check(s, found(s, [0, 1]))).toMatch(/key a shows offset 0 again: its tombstone at 2 went/);
  });

  it("refuses a record a check found dropped, once it comes back", () => {
    const s = state(["a", "a", "b"], [[T0, 3]]);
    const adopted = COMPACTION_RULES.adopt(found(s, [1, 2]), s);
    expect([...adopted.compaction!.gone]).toEqual([0]);
    expect(check(adopted, found(adopted, [0, 1, 2]))).toMatch(/offset 0 came back/);
    // A truncation below it hands its offset out again.
    const cut = {
      ...adopted,
      records: adopted.records.slice(0, 0),
      compaction: truncatedCompaction(adopted.compaction!, 0),
    };
    expect([...cut.compaction.gone]).toEqual([]);
    expect(cut.compaction.cleanings.map((c) => c.durable)).toEqual([0]);
  });

  it("refuses records out of order, at a wrong offset, changed, or past the end", () => {
    const s = state(["a", "b", "c"], [[T0, 3]]);
    const swapped = found(s, [0, 1, 2]);
    expect(check(s, { ...swapped, records: [swapped.records[1]!, swapped.records[0]!, swapped.records[2]!] })).toMatch(
      /strictly increase/,
    );
    const moved = { ...swapped, records: swapped.records.map((r, i) => ({ ...r, offset: i === 1 ? 2 : r.offset! })) };
    expect(check(s, { ...moved, records: moved.records.slice(0, 2) })).toMatch(/offset 2: got/);
    expect(check(s, { ...swapped, records: swapped.records.map((r) => ({ ...r, headers: [] })) })).toMatch(
      /offset 0: got/,
    );
    expect(check({ ...s, durable: 2 }, found(s, [0, 1], 2))).toBeUndefined(); // the tail was not durable
    expect(check(s, found(s, [0, 1], 2))).toMatch(/durability: end 2 is below the durable point 3/);
    expect(check(s, found(s, [0, 1, 2], 4))).toMatch(/end 4 is past the 3 records appended/);
  });
});
