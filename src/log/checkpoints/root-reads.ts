/*
 * What `LogDir.open` reads in the root before it changes anything: the clean-shutdown marker, the
 * temp files of its own atomic writes, the two offset checkpoints, the clean points and the
 * consumer positions. Apart from log-dir.ts because it is one step with one rule: everything is
 * read, and judged, before the open changes a byte.
 *
 * One listing serves them all (a file it does not name is not `stat`ed), and the reads, which do
 * not depend on each other, run at once: an open waits for the slowest of them rather than their
 * sum, each being a few thread-pool round trips. All of them settle before the open goes on or
 * fails, so no read of a failed open is still running when its storage is closed.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage } from "../../storage/storage.js";
import { CLEANER_CHECKPOINT } from "./cleaner-checkpoint.js";
import type { RootCheckpoints } from "./checkpoint-read.js";
import { loadCheckpointRead } from "./door-checkpoint-read.js";
import { loadPositionFiles } from "./door-position-files.js";
import { CONSUMER_OFFSET_CHECKPOINT, CONSUMERS_DIR, type ConsumersRead } from "./consumer-files.js";
import { parsePartitionName } from "./partition-names.js";
import { settleAll } from "../util/settle-all.js";
import { CLEAN_SHUTDOWN_FILE, LOG_START_CHECKPOINT, OWN_TMP_FILES, RECOVERY_POINT_CHECKPOINT } from "./root-files.js";

/** What the root held at open. */
interface RootRead extends RootCheckpoints {
  /** The clean-shutdown marker is there. */
  readonly clean: boolean;
  /** Every partition-like name in the root (not `stat`ed). */
  readonly namesAtOpen: Set<string>;
  /** Temp files of pagelog's own atomic writes, files only: the open removes them. */
  readonly ownTmpFiles: string[];
  /**
   * The consumer positions, if the root holds any (the directory-wide file of earlier versions, or
   * `consumers/`), with the chunk that reads them: a directory that never had a consumer loads none.
   */
  readonly consumers: OpenedConsumers | undefined;
}

/** The positions files' part (door-position-files.ts), and what it read at open. */
export interface OpenedConsumers {
  readonly part: Awaited<ReturnType<typeof loadPositionFiles>>;
  readonly read: ConsumersRead;
}

/** Reads the root (writing nothing); `readOnly` looks for no temp files (it removes none). */
export async function readRoot(storage: Storage, readOnly: boolean): Promise<RootRead> {
  const names = await storage.list("");
  const [clean, ownTmpFiles, checkpoints, consumers] = await settleAll([
    readMarker(storage, names),
    findOwnTmpFiles(storage, readOnly ? [] : names),
    // The checkpoints' reading is a part of its own: only a root that holds one loads it.
    [RECOVERY_POINT_CHECKPOINT, LOG_START_CHECKPOINT, CLEANER_CHECKPOINT].some((file) => names.includes(file))
      ? loadCheckpointRead().then((part) => part.readRootCheckpoints(storage, names))
      : Promise.resolve({ recoveryPoints: new Map(), startOffsets: new Map(), cleanPoints: new Map() }),
    names.includes(CONSUMER_OFFSET_CHECKPOINT) || names.includes(CONSUMERS_DIR)
      ? readConsumers(storage, names)
      : Promise.resolve(undefined),
  ] as const);
  const namesAtOpen = new Set(names.filter((name) => parsePartitionName(name) !== undefined));
  return { clean, namesAtOpen, ownTmpFiles, ...checkpoints, consumers };
}

/** The positions files' part, loaded, and what it reads: the root lists positions. */
async function readConsumers(storage: Storage, names: readonly string[]): Promise<OpenedConsumers> {
  const part = await loadPositionFiles();
  return { part, read: await part.readConsumers(storage, names) };
}

async function readMarker(storage: Storage, names: readonly string[]): Promise<boolean> {
  const marker = names.includes(CLEAN_SHUTDOWN_FILE) ? await storage.stat(CLEAN_SHUTDOWN_FILE) : null;
  if (marker !== null && marker.kind !== "file") {
    throw new PagelogError(`${CLEAN_SHUTDOWN_FILE} is a directory, not pagelog's clean-shutdown marker`, ErrorCode.IO, {
      path: CLEAN_SHUTDOWN_FILE,
    });
  }
  return marker !== null;
}

/**
 * Only the temp files pagelog itself writes here, and only if they are files: anything else
 * ending in .tmp (a user's backup.tmp directory, say) is not pagelog's to delete.
 */
async function findOwnTmpFiles(storage: Storage, names: readonly string[]): Promise<string[]> {
  const candidates = names.filter((name) => OWN_TMP_FILES.has(name));
  const kinds = await settleAll(candidates.map(async (name) => (await storage.stat(name))?.kind));
  return candidates.filter((_, i) => kinds[i] === "file");
}
