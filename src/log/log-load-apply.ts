/**
 * The second phase of opening a log (see log-loader.ts): carrying out a plan that was accepted.
 * Leftovers go first, then each step in order (a segment's cut and rebuilt indexes, the
 * rewrite of what lies above the recovery point, deletions newest first), then a fresh segment
 * if the log starts over, then the directory sync. Everything is durable when it returns.
 */
import { Segment } from "../segment/segment.js";
import { joinPath } from "../storage/paths.js";
import { readInto } from "../storage/read-into.js";
import type { StorageFile } from "../storage/storage.js";
import type { Plan } from "./log-load-plan.js";
import type { LoadInput } from "./log-load-input.js";
import { deleteSegments } from "./segment-files.js";

/** Bytes per read/write when rewriting a recovered tail: bounded memory (two chunks), few calls. */
const REWRITE_CHUNK_BYTES = 4 << 20;

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
    await step.segment.commit();
    // The Log takes everything loaded as durable, but recovery's fsync writes only dirty pages.
    // Reopened without a reboot (a killed process, or a reopen after a failed fsync), the page
    // cache can hold pages that read back whole yet never reached the disk and are no longer
    // dirty (Linux marks them clean after a failed writeback). Rewrite what lies above the
    // recovery point so the fsync really writes it; after a reboot this costs one rewrite of
    // the tail that was not yet checkpointed.
    const to = Math.min(step.rewrite?.to ?? 0, step.segment.size);
    if (step.rewrite !== undefined && to > step.rewrite.from) {
      await rewrite(step.segment.log, step.rewrite.from, to);
      await step.segment.log.sync();
    }
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

/**
 * Rewrites bytes [from, to) of a file with what reads give, a chunk at a time, dirtying their
 * pages: each chunk is read (into one of two buffers reused all the way) while the one before it
 * is written.
 */
async function rewrite(file: StorageFile, from: number, to: number): Promise<void> {
  const size = Math.min(REWRITE_CHUNK_BYTES, to - from);
  const buffers = [new Uint8Array(size), new Uint8Array(size)];
  const readAt = (at: number, i: number): Promise<number> | undefined => {
    if (at >= to) return undefined;
    const n = readInto(file, at, buffers[i % 2]!.subarray(0, Math.min(size, to - at)));
    n.catch(() => undefined); // awaited below, unless a write fails first
    return n;
  };
  let next = readAt(from, 0);
  for (let i = 0, at = from; next !== undefined; i++, at += size) {
    const n = await next;
    next = readAt(at + size, i + 1);
    await file.write(at, buffers[i % 2]!.subarray(0, n));
  }
}
