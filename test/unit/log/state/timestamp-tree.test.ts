/*
 * The tree of the segments' largest timestamps (src/log/state/timestamp-tree.ts): its search equals a
 * linear scan from any start, through `learn` updates; it is rebuilt exactly when the segment
 * list changed; and a lookup on a log of many segments looks at a few segments' largest
 * timestamps, not at every one (the walk it replaced looked at all of them before the answer).
 */
import { describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import type { LogState } from "../../../../src/log/state/log-state.js";
import { pushSegment } from "../../../../src/log/state/segment-list.js";
import type { SegmentSlot } from "../../../../src/log/state/segment-slot.js";
import { TimestampTree } from "../../../../src/log/state/timestamp-tree.js";
import { Segment } from "../../../../src/segment/segment.js";
import { fastCheckParams } from "../../../support/seed.js";
import { freshLog, recordAt } from "../helpers.js";

/** A log state holding only what the tree reads: slots whose largest timestamps are `maxes` (undefined: idle). */
function stateOf(maxes: readonly (number | undefined)[]): LogState {
  const slots = maxes.map((max, i) => ({
    baseOffset: 10 * i,
    segment: max === undefined ? undefined : { maxTimestamp: max },
  }));
  // The active segment, which the tree leaves out.
  slots.push({ baseOffset: 10 * maxes.length, segment: { maxTimestamp: Number.MAX_SAFE_INTEGER } });
  return {
    segments: slots as unknown as SegmentSlot[],
    segmentsVersion: 0,
    timestampTree: undefined,
  } as unknown as LogState;
}

function linear(values: readonly number[], from: number, ts: number): number {
  for (let i = from; i < values.length; i++) if (values[i]! >= ts) return i;
  return values.length;
}

describe("TimestampTree", () => {
  it("firstAtLeast equals a linear scan from every start, idle segments counting as candidates, through learn", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -5, max: 40 }), { nil: undefined }), { maxLength: 70 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -5, max: 40 })), { maxLength: 10 }),
        (maxes, learned) => {
          const s = stateOf(maxes);
          const tree = TimestampTree.of(s);
          const values = maxes.map((m) => m ?? Infinity);
          for (const [at, value] of learned) {
            if (values.length === 0) break;
            const index = at % values.length;
            tree.learn(index, value);
            values[index] = value;
          }
          expect(tree.size).toBe(values.length);
          for (let from = 0; from <= values.length; from++)
            for (let ts = -6; ts <= 41; ts++) expect(tree.firstAtLeast(from, ts)).toBe(linear(values, from, ts));
        },
      ),
      { ...fastCheckParams(), numRuns: 300 },
    );
  });

  it("is kept while the segment list is unchanged and rebuilt after any change to it", () => {
    const s = stateOf([1, 2, 3]);
    const tree = TimestampTree.of(s);
    expect(TimestampTree.of(s)).toBe(tree);
    pushSegment(s, { baseOffset: 1000, segment: { maxTimestamp: 9 } } as unknown as SegmentSlot);
    const rebuilt = TimestampTree.of(s);
    expect(rebuilt).not.toBe(tree);
    expect(rebuilt.size).toBe(4);
    expect(rebuilt.firstAtLeast(0, 4)).toBe(3); // the former active segment, 9
  });

  it("a lookup on 300 loaded segments reads a few segments' largest timestamps, not all of them", async () => {
    const { dir, log } = await freshLog({ segmentBytes: 61, indexIntervalBytes: 1 });
    try {
      for (let o = 0; o < 300; o++) await log.append([recordAt(o, 1000 + o)]);
      expect(log.segmentCount).toBe(300); // a batch is over 61 bytes: each append rolls
      expect(await log.offsetForTimestamp(1000 + 299)).toBe(299); // builds the tree
      const reads = vi.spyOn(Segment.prototype, "maxTimestamp", "get");
      try {
        for (const o of [0, 150, 299]) expect(await log.offsetForTimestamp(1000 + o)).toBe(o);
        expect(await log.offsetForTimestamp(1000 + 300)).toBe(null);
        // The walk this replaced read every segment's before the answer: 1 + 151 + 300 + 300.
        expect(reads.mock.calls.length).toBeLessThanOrEqual(4 * 4);
      } finally {
        reads.mockRestore();
      }
    } finally {
      await dir.close();
    }
  });
});
