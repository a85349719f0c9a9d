/**
 * Chapter 2's `lookup` in the real read path. The index is handed over as the course's plain
 * array (materialised once per change of the index, and only when a reader's lookup is plugged
 * in: the default path never builds it). The answer must be null or one of the array's entries
 * with `offset <= target`: reading then starts at a batch that ends at or before the target, so
 * a scan forward reaches it. An entry below the best one is slower but still right, and allowed.
 * Anything else (an entry above the target, one that is not in the index, a throw) is refused with
 * PAGELOG_POLICY before a byte is read from it.
 */
import type { CoursePolicies, IndexEntry } from "../../policies/policy-types.js";
import { callPolicy, policyError, shown } from "./policy-error.js";

type LookupPolicy = CoursePolicies["lookup"];

/** What the index offers the policy path: its entries as an array, and its own exact search. */
interface LookupSource {
  readonly file: { readonly path: string };
  /** The entries, oldest first, as plain objects (a frozen copy, made once per change of the index). */
  policyEntries(): readonly IndexEntry[];
  /** The slot holding exactly `offset`, or -1. */
  slotOf(offset: number): number;
}

/**
 * The entry the policy picks for `target`, checked; null when it says there is none (the read
 * then starts at the segment's first byte, as Kafka's does).
 */
export function lookupByPolicy(lookup: LookupPolicy, source: LookupSource, target: number): IndexEntry | null {
  const entries = source.policyEntries();
  const answer: unknown = callPolicy("lookup", () => lookup(entries, target), source.file.path);
  if (answer === null) return null;
  const { offset, position } = (answer ?? {}) as Partial<IndexEntry>;
  const entry = typeof offset === "number" ? entries[source.slotOf(offset)] : undefined;
  const why =
    typeof answer !== "object"
      ? "expected an entry of the index or null"
      : entry === undefined || entry.position !== position
        ? `which is not an entry of the index (${entries.length} ${entries.length === 1 ? "entry" : "entries"})`
        : entry.offset > target
          ? "that batch ends past the target, so reading from it can skip records (lookup returns the largest offset <= the target)"
          : undefined;
  if (why === undefined && entry !== undefined) return entry;
  const what = entry === undefined ? shown(answer) : `the entry for offset ${offset} (position ${position})`;
  throw policyError(
    { policy: "lookup", why: `returned ${what} for target ${target}: ${why}`, returned: answer },
    source.file.path,
  );
}
