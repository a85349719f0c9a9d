/**
 * A writable log's segments at open: a partition directory that holds nothing gets its first
 * segment here, with no plan to make and nothing to recover; any other goes through the loader
 * (log-loader.ts), loaded on first need through its door (lazy-loader.ts). What the two return
 * for an empty directory is the same (a unit test compares them), so the split is only about
 * which code a bundle loads first.
 */
import { Segment } from "../../segment/segment.js";
import { SegmentSlot, type SlotContext } from "../state/segment-slot.js";
import type { LoadInput } from "./log-load-input.js";
import type { LoadedLog } from "./log-loader.js";
import { loadLoader } from "./lazy-loader.js";
import { millisecondsNow, unrepairedRecovery } from "./recovery-report.js";

/**
 * Loads the log in `input.dir`, or starts it if the directory is empty (see the file comment).
 * `door` loads the loader (a test passes one that counts its calls).
 */
export async function openLogFiles(input: LoadInput, door = loadLoader): Promise<LoadedLog> {
  const names = await input.storage.list(input.dir);
  // An empty directory whose checkpointed recovery point says records were durable lost them:
  // the loader reports it (recoveryPointPastEnd), so only a plainly new log takes the short way.
  const start = input.logStartOffset ?? 0;
  if (names.length === 0 && !(input.recoveryPoint !== undefined && input.recoveryPoint > start))
    return startNewLog(input, start);
  return (await door()).loadLog(input, names);
}

/**
 * The loader's open of an empty directory (log-loader.ts: an empty plan that starts over at
 * `start`), without the loader: the first segment created and flushed, the directory synced.
 */
async function startNewLog(input: LoadInput, start: number): Promise<LoadedLog> {
  const started = millisecondsNow();
  const { storage, dir, segmentOptions } = input;
  const segment = await Segment.open(storage, dir, start, segmentOptions);
  await segment.flush();
  await storage.syncDir(dir);
  const slotContext: SlotContext = {
    storage,
    dir,
    segmentOptions,
    firstUses: { segmentsLoaded: 0, indexesRebuilt: 0 },
  };
  return {
    segments: [SegmentSlot.of(slotContext, segment)],
    slotContext,
    startOffset: start,
    recovery: unrepairedRecovery(input.clean, started),
  };
}
