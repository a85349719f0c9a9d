/**
 * The second phase of opening a log (see log-loader.ts): carrying out a plan that was accepted.
 * Leftovers go first, then each step in order (a segment's cut and rebuilt indexes,
 * deletions newest first), then a fresh segment
 * if the log starts over, then the directory sync. Everything is durable when it returns.
 */
import { Segment } from "../../segment/segment.js";
import { joinPath } from "../../storage/paths.js";
import type { Plan } from "./log-load-plan.js";
import type { LoadInput } from "./log-load-input.js";
import { deleteSegments } from "../state/segment-files.js";

/**
 * Carries out `plan` on `segments` (the ones the plan keeps; a fresh one is pushed if the log
 * starts over) after removing `leftovers`, the file names in the directory nothing will read.
 */
export async function carryOut(
  input: LoadInput,
  plan: Plan,
  segments: Segment[],
  leftovers: readonly string[],
): Promise<void> {
  const { storage, dir, segmentOptions } = input;
  for (const name of leftovers) await storage.remove(joinPath(dir, name));
  if (leftovers.length > 0) await storage.syncDir(dir);
  for (const step of plan.steps) {
    if (step.kind === "delete") {
      await deleteSegments(storage, dir, step.segments);
      continue;
    }
    // The Log takes everything loaded as durable, but recovery's fsync writes only dirty pages.
    // Reopened without a reboot (a killed process, or a reopen after a failed fsync), the page
    // cache can hold pages that read back whole yet never reached the disk and are no longer
    // dirty (Linux marks them clean after a failed writeback). So the recovery walk wrote back
    // what lies above the recovery point, unchanged, as it read it (segment-load.ts), and this
    // commit's fsync of the log really writes it.
    await step.segment.commit();
  }
  if (plan.startOverAt !== undefined) {
    const fresh = await Segment.open(storage, dir, plan.startOverAt, segmentOptions);
    segments.push(fresh);
    await fresh.flush();
  }
  // After a crash, not only after deletions: a segment created by a roll the last process never
  // synced the directory for may still be only in the cache, and the Log counts it durable.
  if (!input.clean || plan.tally.segmentsDeleted > 0 || plan.startOverAt !== undefined) await storage.syncDir(dir);
}
