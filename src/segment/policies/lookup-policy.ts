/**
 * Chapter 2's `lookup` in the real read path. The index is handed over as the course's plain
 * array (materialised once per change of the index, and only when a reader's lookup is plugged
 * in: the default path never builds it). The answer must be null or one of the array's entries
 * with `offset <= target`: reading then starts at a batch that ends at or before the target, so
 * a scan forward reaches it. An entry below the best one is slower but still right, and allowed.
 * Anything else (an entry above the target, one that is not in the index, a throw) is refused with
 * PAGELOG_POLICY before a byte is read from it.
 */
import type { CoursePolicies, IndexEntry } from "./policy-types.js";
import { callPolicy, policyError, shown } from "./policy-error.js";
import { readLimited } from "./read-limited.js";

export type LookupPolicy = CoursePolicies["lookup"];

/** What the index offers the policy path: its entries as an array, and its own floor lookup. */
export interface LookupSource {
  readonly path: string;
  /** The entries, oldest first, as plain objects (a fresh, frozen copy per change of the index). */
  entries(): readonly IndexEntry[];
  /** The slot holding exactly `offset`, or -1. */
  slotOf(offset: number): number;
}

/**
 * The entry the policy picks for `target`, checked; null when it says there is none (the read
 * then starts at the segment's first byte, as Kafka's does).
 */
export function lookupByPolicy(lookup: LookupPolicy, source: LookupSource, target: number): IndexEntry | null {
  const entries = source.entries();
  const answer: unknown = callPolicy("lookup", () => readLimited(lookup)(entries, target), source.path);
  if (answer === null) return null;
  const refuse = (why: string) => policyError({ policy: "lookup", why, returned: answer }, source.path);
  if (typeof answer !== "object" || answer === undefined)
    throw refuse(`returned ${shown(answer)} for target ${target}: expected an entry of the index or null`);
  const { offset, position } = answer as Partial<IndexEntry>;
  const slot = typeof offset === "number" ? source.slotOf(offset) : -1;
  const entry = slot < 0 ? undefined : entries[slot];
  if (entry === undefined || entry.position !== position)
    throw refuse(
      `returned ${shown(answer)} for target ${target}, which is not an entry of the index (${entries.length} entries)`,
    );
  if (entry.offset > target)
    throw refuse(
      `returned the entry for offset ${entry.offset} (position ${entry.position}) for target ${target}: that batch ends past the target, so reading from it can skip records before it (the answer is the entry with the largest offset <= the target)`,
    );
  return entry;
}
