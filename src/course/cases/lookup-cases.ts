/** Chapter 2's cases: `lookup(index, target)`, the floor entry of an offset index. */
import type { CoursePolicies, IndexEntry } from "../../policies/policy-types.js";
import { type PolicyCase, mismatch } from "./case.js";

type Lookup = CoursePolicies["lookup"];

/**
 * A binary search reads about log2(n) distinct entries: 17 for 100,000; 40 leaves room for
 * variants. Distinct, because reading `index[mid]` again for each field of a copy is still a
 * binary search.
 */
const MAX_LOOKUP_READS = 40;
const BIG_INDEX_ENTRIES = 100_000;

/** Offsets 10, 20, …, 60 at positions 0, 4096, …: small enough to read in a failure message. */
const SIX: readonly IndexEntry[] = [10, 20, 30, 40, 50, 60].map((offset, i) => ({ offset, position: i * 4096 }));

/** The right answer, by a plain scan. */
function floorOf(index: readonly IndexEntry[], target: number): IndexEntry | null {
  let found: IndexEntry | null = null;
  for (const e of index) if (e.offset <= target) found = e;
  return found;
}

function sameEntry(a: IndexEntry | null, b: unknown): boolean {
  if (a === null || b === null || typeof b !== "object") return a === b;
  const e = b as Partial<IndexEntry>;
  return e.offset === a.offset && e.position === a.position;
}

function hintFor(target: number, expected: IndexEntry | null, got: unknown): string | undefined {
  const offset = typeof got === "object" && got !== null ? (got as { offset?: unknown }).offset : undefined;
  if (typeof offset === "number" && offset > target)
    return `offset ${offset} is above the target: lookup wants the largest offset <= target, not the first one above it`;
  if (got === null && expected !== null) return "null only when the target is below the first entry";
  if (got === undefined) return "return null, not undefined, when no entry fits";
  return undefined;
}

function floorCase(name: string, index: readonly IndexEntry[], target: number): PolicyCase<Lookup> {
  return {
    name,
    check(lookup) {
      const expected = floorOf(index, target);
      const got = lookup(index.slice(), target);
      return sameEntry(expected, got) ? undefined : mismatch(expected, got, hintFor(target, expected, got));
    },
  };
}

/** Every target from 0 to 70 over the six entries: the off-by-ones of a binary search. */
const everyTarget: PolicyCase<Lookup> = {
  name: "every target from 0 to 70 over entries 10..60",
  check(lookup) {
    for (let target = 0; target <= 70; target++) {
      const expected = floorOf(SIX, target);
      const got = lookup(SIX.slice(), target);
      if (!sameEntry(expected, got))
        return `target ${target}: ${mismatch(expected, got, hintFor(target, expected, got))}`;
    }
    return undefined;
  },
};

/** The index in a Proxy that counts the distinct entries read: a linear scan reads thousands. */
const bigIndex: PolicyCase<Lookup> = {
  name: `a ${BIG_INDEX_ENTRIES.toLocaleString("en-US")}-entry index in at most ${MAX_LOOKUP_READS} reads`,
  check(lookup) {
    const entries: IndexEntry[] = [];
    for (let i = 0; i < BIG_INDEX_ENTRIES; i++) entries.push({ offset: i * 10 + 9, position: i * 4096 });
    for (const target of [25, 500_004, 999_990]) {
      const read = new Set<string>();
      const counted = new Proxy(entries, {
        get(array, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) read.add(key);
          return Reflect.get(array, key, receiver) as unknown;
        },
      });
      const expected = floorOf(entries, target);
      const got = lookup(counted, target);
      if (!sameEntry(expected, got))
        return `target ${target}: ${mismatch(expected, got, hintFor(target, expected, got))}`;
      if (read.size > MAX_LOOKUP_READS)
        return `target ${target}: reads ${read.size} entries: a linear scan? use binary search`;
    }
    return undefined;
  },
};

export const lookupCases: readonly PolicyCase<Lookup>[] = [
  floorCase("an empty index", [], 5),
  floorCase("target 5 below the first entry 10", SIX, 5),
  floorCase("target 10, exactly the first entry", SIX, 10),
  floorCase("target 30, exactly an entry", SIX, 30),
  floorCase("target 57 between entries 50 and 60", SIX, 57),
  floorCase("target 60, exactly the last entry", SIX, 60),
  floorCase("target 1000 past the last entry 60", SIX, 1000),
  floorCase("one entry (offsets never repeat in an index), target above it", [{ offset: 7, position: 0 }], 8),
  floorCase("one entry, target below it", [{ offset: 7, position: 0 }], 6),
  everyTarget,
  bigIndex,
];
