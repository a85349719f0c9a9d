/**
 * The assertions at the log state's chokepoints fire (docs/testing.md, "Assertions at the
 * chokepoints"): the single writer of the segment list, the recovery point's one way up, the
 * truncation's end. Each is given a state that breaks its invariant, as a bug would leave it, and
 * must answer PAGELOG_BUG; and the switch for the expensive ones is on in the tests.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, expensiveChecks, isPagelogBug, PagelogError } from "../../../../src/errors.js";
import { recoveryPointReached } from "../../../../src/log/state/durable-mark.js";
import type { LogState } from "../../../../src/log/state/log-state.js";
import {
  pushSegment,
  replaceAllSegments,
  replaceSegment,
  spliceSegments,
} from "../../../../src/log/state/segment-list.js";
import type { SegmentSlot } from "../../../../src/log/state/segment-slot.js";
import { checkTruncated } from "../../../../src/log/write/log-truncate.js";

const slot = (baseOffset: number, nextOffset = baseOffset): SegmentSlot =>
  ({ baseOffset, segment: { nextOffset } }) as unknown as SegmentSlot;

function stateWith(bases: readonly number[], extra: Partial<LogState> = {}): LogState {
  return { name: "t-0", segments: bases.map((b) => slot(b)), segmentsVersion: 0, ...extra } as unknown as LogState;
}

const bug = expect.objectContaining({ code: ErrorCode.BUG, message: expect.stringMatching(/^pagelog bug: /) });

describe("the switch", () => {
  it("the tests run the expensive checks (vitest.config.ts sets PAGELOG_CHECKS=all)", () => {
    expect(process.env.PAGELOG_CHECKS).toBe("all");
    expect(expensiveChecks).toBe(true);
  });

  it("a failed assertion is PAGELOG_BUG, also found as a failed log's cause", () => {
    const err = new PagelogError("pagelog bug: x", ErrorCode.BUG);
    expect(isPagelogBug(err)).toBe(true);
    expect(isPagelogBug(new PagelogError("failed", ErrorCode.FAILED, { cause: err }))).toBe(true);
    expect(isPagelogBug(new PagelogError("io", ErrorCode.IO))).toBe(false);
  });
});

describe("the segment list's single writer", () => {
  it("keeps changes that leave the bases increasing", () => {
    const s = stateWith([0, 10, 20]);
    pushSegment(s, slot(30));
    spliceSegments(s, 1, 2, slot(5));
    replaceSegment(s, 1, slot(6));
    replaceAllSegments(s, [slot(0), slot(7)]);
    expect(s.segments.map((x) => x.baseOffset)).toEqual([0, 7]);
    expect(s.segmentsVersion).toBe(4);
  });

  it("refuses a push, a splice, a replacement or a reload that puts a base out of order", () => {
    expect(() => pushSegment(stateWith([0, 10]), slot(10))).toThrow(bug);
    expect(() => spliceSegments(stateWith([0, 10, 20]), 1, 1, slot(25))).toThrow(bug);
    expect(() => replaceSegment(stateWith([0, 10, 20]), 0, slot(10))).toThrow(bug);
    expect(() => replaceSegment(stateWith([0, 10]), 2, slot(30))).toThrow(bug);
    expect(() => replaceAllSegments(stateWith([]), [slot(5), slot(4)])).toThrow(bug);
  });

  it("expensive: any change finds a disorder anywhere in the list, not only around it", () => {
    const s = stateWith([0, 20, 10, 30]); // as a bug elsewhere would have left it
    expect(() => pushSegment(s, slot(40))).toThrow(bug);
  });
});

describe("the recovery point's one way up", () => {
  const host = { storage: undefined as never };
  it("refuses to move it down or past the end, before publishing anything", async () => {
    const s = { name: "t-0", host, status: "open", recoveryPoint: 10 };
    await expect(recoveryPointReached(s, 9, 20)).rejects.toEqual(bug);
    await expect(recoveryPointReached(s, 21, 20)).rejects.toEqual(bug);
    expect(s.recoveryPoint).toBe(10);
  });
});

describe("truncateTo's end", () => {
  it("refuses an end past the offset, a recovery point not at the end, or a segment past the end", () => {
    const at = (bases: number[], end: number, recoveryPoint: number) =>
      ({
        ...stateWith([]),
        segments: bases.map((b, i) => slot(b, i === bases.length - 1 ? end : b)),
        recoveryPoint,
      }) as unknown as LogState;
    expect(() => checkTruncated(at([0, 10], 15, 15), 15)).not.toThrow();
    expect(() => checkTruncated(at([0, 10], 16, 16), 15)).toThrow(bug);
    expect(() => checkTruncated(at([0, 10], 15, 12), 15)).toThrow(bug);
    expect(() => checkTruncated(at([0, 20, 10], 15, 15), 15)).toThrow(bug);
  });
});
