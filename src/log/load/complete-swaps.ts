/*
 * The loader's half of the swap protocol (swap.ts), as Kafka's LogLoader does it
 * (removeTempFilesAndCollectSwapFiles, then the swap files renamed into place once the segments
 * they replace are gone): a `<base>.log.swap` is a cleaned segment that was complete and durable
 * before it got that name, so the open finishes its swap. `.cleaned` files are incomplete and go
 * with the other leftovers (log-loader.ts); an index `.swap` without its `.log.swap` was already
 * swapped in (or never will be) and goes, its log's indexes rebuilt from the log.
 *
 * The swap is finished only when it can be decided: the `.swap` is whole valid batches (gaps
 * legal below the checkpointed clean point) ending exactly where a segment of the log starts.
 * Anything else is `PAGELOG_CORRUPT` with every file as it was: the old segments may already be
 * gone (the protocol removes them before the rename), so dropping the swap could lose records.
 *
 * The one departure from "an open decides before it changes anything": a swap is finished before
 * the rest of the open is planned. It changes which bytes hold the records, not which records the
 * log holds, and the plan that follows then sees the log as the cleaner left it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { Segment } from "../../segment/segment.js";
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  segmentBaseOf,
  segmentFilePath,
  TIME_INDEX_SUFFIX,
} from "../../segment/segment-names.js";
import { joinPath } from "../../storage/paths.js";
import type { LoadInput } from "./log-load-input.js";
import { removeIfThere } from "../state/segment-files.js";
import { SWAP_SUFFIX } from "../compaction/swap.js";

/** Finishes every interrupted swap in the partition (`names`: its listing); returns how many it finished. */
export async function completeSwaps(input: LoadInput, names: readonly string[]): Promise<number> {
  const { storage, dir } = input;
  const swaps = names.filter((n) => n.endsWith(SWAP_SUFFIX));
  if (swaps.length === 0) return 0;
  const logBases = new Set<number>();
  for (const name of names) {
    const base = segmentBaseOf(name, LOG_SUFFIX);
    if (base !== undefined) logBases.add(base);
  }
  const logSwaps: Array<{ base: number; end: number }> = [];
  for (const name of swaps) {
    const base = segmentBaseOf(name.slice(0, -SWAP_SUFFIX.length), LOG_SUFFIX);
    if (base !== undefined) logSwaps.push({ base, end: await swapEnd(input, base, logBases) });
  }
  // Decided for every swap (reading only): now carry them out, oldest first.
  let finished = 0;
  for (const { base, end } of logSwaps.sort((a, b) => a.base - b.base)) {
    // The segments it replaces, newest first (a crash keeps a prefix); the first one's `.log` is
    // replaced by the rename itself, atomically.
    const replaced = [...logBases].filter((b) => b > base && b < end).sort((a, b) => b - a);
    for (const b of replaced)
      for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
        await removeIfThere(storage, segmentFilePath(dir, b, suffix));
    const path = (suffix: string): string => segmentFilePath(dir, base, suffix);
    await removeIfThere(storage, path(INDEX_SUFFIX));
    await removeIfThere(storage, path(TIME_INDEX_SUFFIX));
    await storage.rename(path(LOG_SUFFIX) + SWAP_SUFFIX, path(LOG_SUFFIX));
    finished++;
  }
  // Index swaps: beside a finished `.log` swap they are its indexes; any other is stale. Both
  // kinds could be renamed, but a rebuild from the log is never wrong: remove them all.
  for (const name of swaps)
    if (segmentBaseOf(name.slice(0, -SWAP_SUFFIX.length), LOG_SUFFIX) === undefined)
      await removeIfThere(storage, joinPath(dir, name));
  // Durable before the open plans on the new names: a crash from here on finds the swap done.
  await storage.syncDir(dir);
  return finished;
}

/**
 * Where the swap at `base` ends (one past its last offset), checked: whole valid batches to the
 * end of the file, ending where a segment of the log starts. Reads only.
 */
async function swapEnd(input: LoadInput, base: number, logBases: ReadonlySet<number>): Promise<number> {
  const path = segmentFilePath(input.dir, base, LOG_SUFFIX) + SWAP_SUFFIX;
  const segment = await Segment.openExisting(input.storage, input.dir, base, input.segmentOptions, SWAP_SUFFIX);
  try {
    const walk = await segment.planRecovery({});
    const end = segment.nextOffset;
    checkSwap(input.dir, path, walk.truncatedBytes === 0 && walk.validBytes > 0 ? undefined : walk.stop, end, logBases);
    return end;
  } finally {
    await segment.close();
  }
}

/**
 * Refuses (`PAGELOG_CORRUPT`) the swap at `path` (in the partition `dir`) unless its walk stopped at the end of the file
 * (`stop` undefined) after valid batches, ending at `end`, where a segment of the log starts. The
 * writer's open and a read-only one decide alike (log-load-readonly.ts).
 */
export function checkSwap(
  dir: string,
  path: string,
  stop: { readonly position: number; readonly detail: string } | undefined,
  end: number,
  logBases: ReadonlySet<number>,
): void {
  if (stop === undefined && logBases.has(end)) return;
  const why =
    stop !== undefined
      ? `it is not whole valid batches (byte ${stop.position}: ${stop.detail || "empty"})`
      : `it ends at offset ${end}, where no segment of the log starts`;
  throw new PagelogError(
    `log ${dir} holds ${path}, an interrupted compaction that cannot be finished safely: ${why}`,
    ErrorCode.CORRUPT,
    { path },
  );
}
