/*
 * Reading an offset checkpoint file (bounded, telling absent from malformed, checked whole), and
 * what `LogDir.open` reads of the root's three (`recovery-point-offset-checkpoint`,
 * `log-start-offset-checkpoint`, `cleaner-offset-checkpoint`). A part an open loads only when the
 * root holds one of them (door-checkpoint-read.ts): a new directory has none, and its open loads
 * nothing of this. The read-only mode's refreshes and the tools read checkpoints through here too.
 */
import { decodeCheckpoint } from "../../format/checkpoint.js";
import type { Storage } from "../../storage/storage.js";
import { maxCheckpointBytes } from "./checkpoint-files.js";
import { CLEANER_CHECKPOINT } from "./cleaner-checkpoint.js";
import { parsePartitionName } from "./partition-names.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "./root-files.js";
import { settleAll } from "../util/settle-all.js";

/** The root's checkpointed values read at open, by partition name (a file absent or malformed: none). */
export interface RootCheckpoints {
  readonly recoveryPoints: Map<string, number>;
  readonly startOffsets: Map<string, number>;
  readonly cleanPoints: Map<string, number>;
}

/**
 * Reads the root's three checkpoint files at once, off the open's listing (`rootNames`): a file it
 * does not name costs no storage call (a directory never compacted has no clean points). Every
 * read settles before this resolves or rejects.
 */
export async function readRootCheckpoints(storage: Storage, rootNames: readonly string[]): Promise<RootCheckpoints> {
  const [recoveryPoints, startOffsets, cleanPoints] = await settleAll([
    readCheckpoint(storage, RECOVERY_POINT_CHECKPOINT, rootNames),
    readCheckpoint(storage, LOG_START_CHECKPOINT, rootNames),
    readCheckpoint(storage, CLEANER_CHECKPOINT, rootNames),
  ] as const);
  return { recoveryPoints, startOffsets, cleanPoints };
}

/** What reading a checkpoint file found. */
type CheckpointRead =
  | { readonly state: "absent" }
  /** There, but not a checkpoint: too large, not a file, not UTF-8, or not the format. */
  | { readonly state: "malformed"; readonly reason: string }
  | { readonly state: "ok"; readonly entries: Map<string, number> };

/**
 * Reads a checkpoint file, telling an absent one apart from a malformed one. A file larger than
 * {@link maxCheckpointBytes} for the partition directories present is malformed without being read.
 * `rootNames`: the root's listing when the caller has one (an open): a file not in it is absent
 * without a `stat`, and the partitions are counted from it instead of listing the root again.
 */
export async function readCheckpointFile(
  storage: Storage,
  file: string,
  rootNames?: readonly string[],
): Promise<CheckpointRead> {
  if (rootNames !== undefined && !rootNames.includes(file)) return { state: "absent" };
  const stat = await storage.stat(file);
  if (stat === null) return { state: "absent" };
  if (stat.kind !== "file") return { state: "malformed", reason: "not a file" };
  const partitions = (rootNames ?? (await storage.list(""))).filter((n) => parsePartitionName(n) !== undefined).length;
  const limit = maxCheckpointBytes(partitions);
  if (stat.size > limit)
    return {
      state: "malformed",
      reason: `${stat.size} bytes, more than the ${limit} a checkpoint of ${partitions} partitions can need`,
    };
  const handle = await storage.open(file, { readOnly: true });
  let bytes: Uint8Array;
  try {
    // One byte more than its size: a file that grew since the stat is still caught (up to the limit).
    bytes = await handle.read(0, Math.min(stat.size, limit) + 1);
  } finally {
    await handle.close();
  }
  if (bytes.length > Math.min(stat.size, limit)) return { state: "malformed", reason: "it grew while it was read" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { state: "malformed", reason: "not UTF-8" };
  }
  const decoded = decodeCheckpoint(text);
  if (decoded === undefined) return { state: "malformed", reason: "not in the checkpoint format" };
  const entries = new Map<string, number>();
  for (const e of decoded) entries.set(`${e.topic}-${e.partition}`, e.offset);
  return { state: "ok", entries };
}

/** Reads an offset checkpoint into a map by partition name; absent or malformed gives an empty map (recovery starts from 0). */
export async function readCheckpoint(
  storage: Storage,
  file: string,
  rootNames?: readonly string[],
): Promise<Map<string, number>> {
  const read = await readCheckpointFile(storage, file, rootNames);
  return read.state === "ok" ? read.entries : new Map();
}
