/**
 * checkPolicies says, as data (`FailedCase.loop`), which failures are a case's loop guard
 * stopping a policy that would run for ever; the web page's trial refuses code on that flag,
 * so rewording a guard's message (or a policy's own error using the same words) cannot change it.
 */
import { describe, expect, it } from "vitest";
import { checkPolicies, kafkaPolicies } from "../../../src/course.js";
import type { IndexEntry, RecoverHelpers } from "../../../src/policies/policy-types.js";

/** test/fixtures/policies/lookup-loops.mjs: `low = mid` never moves on when the range is two wide. */
function lookupLoops(index: readonly IndexEntry[], target: number): IndexEntry | null {
  let low = 0;
  let high = index.length - 1;
  if (high < 0 || index[0]!.offset > target) return null;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (index[mid]!.offset <= target) low = mid;
    else high = mid - 1;
  }
  return index[low]!;
}

/** Wrong, but it ends: trusts each batch's length, never its CRC (recover-no-crc.mjs). */
function recoverNoCrc(log: Uint8Array, { readInt32 }: RecoverHelpers): number {
  let pos = 0;
  while (log.length - pos >= 17) {
    const length = readInt32(log, pos + 8);
    if (length < 49 || pos + 12 + length > log.length || log[pos + 16] !== 2) break;
    pos += 12 + length;
  }
  return pos;
}

describe("checkPolicies: loops caught, as data", () => {
  it("a lookup that never narrows: its failures are marked loop: true", () => {
    const failed = checkPolicies({ lookup: lookupLoops }).lookup.failed;
    const loops = failed.filter((f) => f.loop === true);
    expect(loops.length).toBeGreaterThan(0);
    for (const f of loops) expect(f.reason).toMatch(/^lookup: .* → threw RangeError: /);
  });

  it("a recover that never moves forward: marked loop: true", () => {
    // Reads the first batch's length for ever and never moves on.
    const recover = (log: Uint8Array, h: RecoverHelpers): number => {
      const pos = 0;
      while (log.length - pos >= 12) h.readInt32(log, pos + 8);
      return pos;
    };
    const failed = checkPolicies({ recover }).recover.failed;
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((f) => f.loop === true)).toBe(true);
  });

  it("a policy's own error is never a loop, even in the guards' own words; nor is a wrong answer", () => {
    const lookup = () => {
      throw new RangeError("read more than 220 entries: does the search range shrink on every step?");
    };
    const recover = () => {
      throw new Error("called the helpers 100000 times: does the position move forward after each batch?");
    };
    const result = checkPolicies({ lookup, recover });
    const wrong = checkPolicies({ recover: recoverNoCrc });
    for (const f of [...result.lookup.failed, ...result.recover.failed, ...wrong.recover.failed])
      expect(f, f.reason).not.toHaveProperty("loop");
    expect(result.lookup.failed.length).toBeGreaterThan(0);
    expect(wrong.recover.failed.length).toBeGreaterThan(0);
    expect(checkPolicies(kafkaPolicies).lookup.failed).toEqual([]);
  });
});
