/*
 * What decides each record's fate in a cleaning, shared by the cleaner (which builds it) and the
 * cleaned-segment writer (which applies it), and the suffix of the files that writer makes.
 */

import type { KeptKeys } from "./kept-keys.js";
import type { OffsetMap } from "./offset-map.js";

/** Kafka's suffix of a segment the cleaner is still writing. */
export const CLEANED_SUFFIX = ".cleaned";

export interface CleaningRules {
  /** Key → offset of its latest record in the dirty part (complete once the scan is). */
  readonly latest: Pick<OffsetMap, "latest">;
  /** Tombstones below this offset were reached by an earlier cleaning: they may go. */
  readonly tombstonesBelow: number;
  /** ...once their segment's newest record is at or before this time (now − deleteRetentionMs). */
  readonly tombstoneHorizon: number;
  /** Keys whose value this cleaning kept so far, in offset order: their later tombstones stay. */
  readonly keptValues: KeptKeys;
}
