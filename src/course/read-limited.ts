/**
 * A guard for a reader's `lookup` in `check`: its index throws once it has been read far more
 * often than any search needs, so a loop that never narrows ends as a failed case instead of
 * hanging the process. (Not in the Log's lookups: the browser bundle's budget; see homework.md.)
 */
import type { CoursePolicies } from "../policies/policy-types.js";
import { loopCaught } from "./loop-guard.js";

/** More element reads than this per entry: the search is not narrowing down (a loop that never ends). */
const MAX_READS_PER_ENTRY = 20;

/**
 * A lookup whose index throws once it has been read far more often than any search needs, so a
 * loop that never narrows ends as a failed case instead of hanging `check`.
 */
export function readLimited(lookup: CoursePolicies["lookup"]): CoursePolicies["lookup"] {
  return (index, target) => {
    const limit = MAX_READS_PER_ENTRY * index.length + 100;
    let reads = 0;
    const limited = new Proxy(index, {
      get(array, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key) && ++reads > limit)
          throw loopCaught(
            new RangeError(
              `read more than ${limit} entries of a ${index.length}-entry index for target ${target}: does the search range shrink on every step?`,
            ),
          );
        return Reflect.get(array, key, receiver) as unknown;
      },
    });
    return lookup(limited, target);
  };
}
