/*
 * A read-only LogDir's open of one log: a missing partition is not created, the segments are
 * walked as a reader walks them (log-load-readonly.ts) and the log runs in the read-only mode
 * (read-only-mode.ts); a refresh reads the writer's checkpoints again, the clean point with them
 * (a compacted log's gaps are legal below it). LogDir loads this file (and with it the read-only
 * room) only when it was opened read-only: a writable directory never loads it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage, StorageStat } from "../../storage/storage.js";
import { readCheckpoint } from "../checkpoints/checkpoint-read.js";
import { readDurableOffset } from "../checkpoints/durable-offset-read.js";
import { CLEANER_CHECKPOINT } from "../checkpoints/cleaner-checkpoint.js";
import { type Log, openLog } from "../log.js";
import type { ResolvedLogOptions } from "../options/log-options.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "../checkpoints/root-files.js";
import type { ReadOnlyState } from "../state/read-only-state.js";
import { loadReadOnlyLog } from "./log-load-readonly.js";
import { READ_ONLY } from "./read-only-mode.js";

/** What the LogDir read at its open, and what it lends the log. */
interface ReadOnlyOpen {
  readonly storage: Storage;
  readonly clean: boolean;
  readonly pollMs: number;
  readonly recoveryPoint: number | undefined;
  readonly logStartOffset: number | undefined;
  readonly cleanPoint: number | undefined;
  readonly checkpoint: () => Promise<void>;
}

export async function openReadOnlyLog(
  name: string,
  options: ResolvedLogOptions,
  existing: StorageStat | null,
  at: ReadOnlyOpen,
): Promise<Log> {
  if (existing === null)
    throw new PagelogError(`log ${name} does not exist (the directory was opened read-only)`, ErrorCode.NOT_FOUND, {
      path: name,
    });
  if (existing.kind !== "dir")
    throw new PagelogError(`${name} exists and is not a directory`, ErrorCode.IO, { path: name });
  // With the checkpoints, the durable offset the writer publishes after each flush (durable-mark.ts):
  // a durable read here goes up to it from the first refresh on, so a durable follower sees a
  // flushed record at its next poll rather than at the writer's next checkpoint.
  const readCheckpoints: ReadOnlyState["readCheckpoints"] = async () => ({
    recoveryPoint: (await readCheckpoint(at.storage, RECOVERY_POINT_CHECKPOINT)).get(name),
    logStartOffset: (await readCheckpoint(at.storage, LOG_START_CHECKPOINT)).get(name),
    cleanPoint: (await readCheckpoint(at.storage, CLEANER_CHECKPOINT)).get(name),
    published: await readDurableOffset(at.storage, name),
  });
  const state = {
    clean: at.clean,
    recoveryPoint: at.recoveryPoint,
    logStartOffset: at.logStartOffset,
    cleanPoint: at.cleanPoint,
  };
  return openLog(name, { storage: at.storage, checkpoint: at.checkpoint }, options, state, async (input) => {
    const loaded = await loadReadOnlyLog(input, { pollMs: at.pollMs, readCheckpoints });
    return { ...loaded, readOnly: { ...loaded.readOnly, mode: READ_ONLY } };
  });
}
