/**
 * Chapter 3's `segmentsToDelete` in the real retention path. The reader's count is used when it
 * is safe: a whole number, never the active (last) segment, and no more than the limits allow
 * (pagelog's own rule is the most they can justify: deleting fewer keeps more data, which is
 * allowed; deleting more loses records nobody asked to lose). Anything else is refused with
 * PAGELOG_POLICY before a segment is touched.
 */
import { callPolicy, policyError, shown } from "../../segment/policies/policy-error.js";
import type { CoursePolicies, RetentionSegment } from "../../policies/policy-types.js";
import { type RetentionLimits, retentionDeleteCount, type SegmentSummary } from "./retention.js";

type RetentionPolicy = CoursePolicies["segmentsToDelete"];

/** How many of the oldest segments to delete, by the reader's rule, checked. */
export function countByPolicy(
  policy: RetentionPolicy,
  segments: readonly SegmentSummary[],
  limits: RetentionLimits,
): number {
  const shaped: readonly RetentionSegment[] = Object.freeze(
    segments.map((s) =>
      Object.freeze({ baseOffset: s.baseOffset, sizeBytes: s.size, largestTimestamp: s.maxTimestamp }),
    ),
  );
  const config = Object.freeze({ retentionMs: limits.retentionMs, retentionBytes: limits.retentionBytes });
  const answer: unknown = callPolicy("segmentsToDelete", () => policy(shaped, limits.now, config));
  const refuse = (why: string) =>
    policyError({ policy: "segmentsToDelete", why: `returned ${shown(answer)}: ${why}`, returned: answer });
  if (typeof answer !== "number" || !Number.isInteger(answer) || answer < 0)
    throw refuse("expected how many of the oldest segments to delete, a whole number from 0");
  if (answer >= segments.length)
    throw refuse(`there are ${segments.length}: that deletes the active (last) segment, which retention never deletes`);
  const allowed = retentionDeleteCount(segments, limits);
  if (answer > allowed)
    throw refuse(
      `only the first ${allowed} may go (now ${limits.now}, retention.ms ${limits.retentionMs}, retention.bytes ${limits.retentionBytes}): segment ${segments[allowed]!.baseOffset} stays, and only a prefix goes`,
    );
  return answer;
}
