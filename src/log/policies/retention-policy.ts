/**
 * Chapter 3's `segmentsToDelete` in the real retention path. The reader's count is used when it
 * is safe: a whole number, never the active (last) segment, and no more than the limits allow
 * (pagelog's own rule is the most they can justify: deleting fewer keeps more data, which is
 * allowed; deleting more loses records nobody asked to lose). Anything else is refused with
 * PAGELOG_POLICY before a segment is touched.
 */
import { callPolicy, policyError, shown } from "../../segment/policies/policy-error.js";
import type { CoursePolicies, RetentionSegment } from "../../segment/policies/policy-types.js";
import { type RetentionLimits, type SegmentSummary, segmentsToDelete } from "../retention.js";

export type RetentionPolicy = CoursePolicies["segmentsToDelete"];

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
  const refuse = (why: string) => policyError({ policy: "segmentsToDelete", why, returned: answer });
  const n = segments.length;
  if (typeof answer !== "number" || !Number.isInteger(answer) || answer < 0)
    throw refuse(
      `returned ${shown(answer)}: expected how many of the oldest segments to delete, a whole number from 0`,
    );
  if (answer >= n)
    throw refuse(
      `returned ${answer} for ${n} segment${n === 1 ? "" : "s"}: that deletes the last one, the active segment, which retention never deletes`,
    );
  const allowed = segmentsToDelete(segments, limits);
  if (answer > allowed) {
    const keep = segments[allowed]!;
    const byTime =
      limits.retentionMs === -1
        ? "retention.ms is off"
        : `its newest record (${keep.maxTimestamp}) is not older than retention.ms ${limits.retentionMs} at now ${limits.now}`;
    const bySize =
      limits.retentionBytes === -1
        ? "retention.bytes is off"
        : `without it the log would be under retention.bytes ${limits.retentionBytes}`;
    throw refuse(
      `returned ${answer}, but only the first ${allowed} may go: segment ${keep.baseOffset} must stay (${byTime}; ${bySize}), and retention deletes only a prefix of the oldest segments`,
    );
  }
  return answer;
}
