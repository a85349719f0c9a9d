/** Chapter 3's cases: `segmentsToDelete(segments, now, { retentionMs, retentionBytes })`. */
import type { CoursePolicies, RetentionConfig, RetentionSegment } from "../../policies/policy-types.js";
import type { PolicyCase } from "./case.js";

type SegmentsToDelete = CoursePolicies["segmentsToDelete"];

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
/** Newest record two hours ago: past a one-hour retention.ms. */
const OLD = NOW - 2 * HOUR;
/** Newest record a minute ago: within it. */
const RECENT = NOW - 60_000;

/** Segments of the given sizes and newest timestamps, base offsets 0, 100, 200, … */
function segments(...specs: Array<[sizeBytes: number, largestTimestamp: number]>): RetentionSegment[] {
  return specs.map(([sizeBytes, largestTimestamp], i) => ({ baseOffset: i * 100, sizeBytes, largestTimestamp }));
}

function hintFor(expected: number, got: number, count: number, prefixStop: number | undefined): string | undefined {
  if (got >= count && count > 0)
    return "deletes the active (last) segment: it is never deleted, whatever its age or size";
  if (prefixStop !== undefined && got > prefixStop)
    return `deletes past segment ${prefixStop}, which stays: retention only deletes a prefix, stopping at the first segment it keeps`;
  if (got > expected) return "deletes too many";
  return "deletes too few";
}

function retentionCase(
  name: string,
  list: RetentionSegment[],
  config: RetentionConfig,
  expected: number,
  prefixStop?: number,
): PolicyCase<SegmentsToDelete> {
  return {
    name,
    check(segmentsToDelete) {
      const got = segmentsToDelete(
        list.map((s) => ({ ...s })),
        NOW,
        { ...config },
      );
      if (!Number.isInteger(got) || got < 0) return `expected ${expected}, got ${String(got)}: not a count of segments`;
      return got === expected
        ? undefined
        : `expected ${expected}, got ${got}: ${hintFor(expected, got, list.length, prefixStop)}`;
    },
  };
}

const OFF: RetentionConfig = { retentionMs: -1, retentionBytes: -1 };
const ONE_HOUR: RetentionConfig = { retentionMs: HOUR, retentionBytes: -1 };

export const retentionCases: readonly PolicyCase<SegmentsToDelete>[] = [
  retentionCase("both limits off (-1)", segments([1000, OLD], [1000, OLD], [1000, OLD]), OFF, 0),
  retentionCase(
    "only the active segment, old and large",
    segments([10_000, OLD]),
    { retentionMs: HOUR, retentionBytes: 100 },
    0,
  ),
  retentionCase(
    "time: the two old segments of four go",
    segments([100, OLD], [100, OLD], [100, RECENT], [100, RECENT]),
    ONE_HOUR,
    2,
  ),
  retentionCase(
    "time: a recent segment stops the prefix, though a later one is old",
    segments([100, OLD], [100, RECENT], [100, OLD], [100, RECENT]),
    ONE_HOUR,
    1,
    1,
  ),
  retentionCase(
    "time: never the last segment, even when all are expired",
    segments([100, OLD], [100, OLD], [100, OLD]),
    ONE_HOUR,
    2,
  ),
  retentionCase(
    "time: a segment exactly retention.ms old stays (older than, not as old as)",
    segments([100, NOW - HOUR], [100, RECENT]),
    ONE_HOUR,
    0,
  ),
  retentionCase(
    "size: 300 bytes, retention.bytes 200: the log is exactly 200 without the oldest",
    segments([100, RECENT], [100, RECENT], [100, RECENT]),
    { retentionMs: -1, retentionBytes: 200 },
    1,
  ),
  retentionCase(
    "size: 300 bytes, retention.bytes 201: one byte under without the oldest",
    segments([100, RECENT], [100, RECENT], [100, RECENT]),
    { retentionMs: -1, retentionBytes: 201 },
    0,
  ),
  retentionCase(
    "size: 400 bytes, retention.bytes 150: two go, the active one stays",
    segments([100, RECENT], [100, RECENT], [100, RECENT], [100, RECENT]),
    { retentionMs: -1, retentionBytes: 150 },
    2,
  ),
  retentionCase(
    "both limits: time takes the first, size the second",
    segments([50, OLD], [100, RECENT], [100, RECENT], [100, RECENT]),
    { retentionMs: HOUR, retentionBytes: 200 },
    2,
  ),
];
