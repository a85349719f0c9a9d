/**
 * The directory's small files: reading an offset checkpoint (bounded, telling absent from
 * malformed) and writing any of them atomically (`<file>.tmp`, fsynced, renamed).
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import { decodeCheckpoint } from "../../format/checkpoint.js";
import { joinPath } from "../../storage/paths.js";
import type { Storage } from "../../storage/storage.js";
import { parsePartitionName } from "./partition-names.js";

/** The suffix of the temp file an atomic write goes through. */
export const TMP_SUFFIX = ".tmp";

/**
 * Bytes a checkpoint file may hold before it is malformed without being read: 1 MiB, plus 512
 * bytes per partition directory in the log directory. A line is at most 273 bytes (a topic and
 * partition of at most 254 characters, as a directory name is at most 255, a 16-digit offset, two
 * spaces, a newline), so this holds every line pagelog writes for the partitions present and
 * 3,800 more, while a damaged or hostile file (a sparse 3 GiB one, say) costs one `stat`, not a
 * read of gigabytes.
 */
export const CHECKPOINT_BASE_BYTES = 1 << 20;
export const CHECKPOINT_BYTES_PER_PARTITION = 512;

/** The largest checkpoint file read, for a log directory holding `partitions` partition directories. */
export function maxCheckpointBytes(partitions: number): number {
  return CHECKPOINT_BASE_BYTES + CHECKPOINT_BYTES_PER_PARTITION * partitions;
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

/** Errors of a write that found the device full: nothing was written, nothing failed on disk. */
const foundNoRoom = new WeakSet<object>();

/**
 * True if `err` is an atomic write's write (not its fsync) finding the device full. Only that
 * can be answered by freeing space and writing again; a failed fsync is a failed fsync, whatever
 * its code, and fails the log (guarantee 8).
 */
export function isNoRoom(err: unknown): boolean {
  return typeof err === "object" && err !== null && foundNoRoom.has(err);
}

/** `<file>.tmp`, written and fsynced, renamed over `file`. The caller syncs the directory. */
export async function writeFileAtomically(storage: Storage, file: string, bytes: Uint8Array): Promise<void> {
  const tmp = joinPath("", file + TMP_SUFFIX);
  const handle = await storage.open(tmp, { create: true });
  try {
    await handle.truncate(0);
    try {
      await handle.write(0, bytes);
    } catch (err) {
      if (isPagelogError(err, ErrorCode.NO_SPACE)) foundNoRoom.add(err);
      throw err;
    }
    // The new content must be durable before its name replaces the old file's, or a crash could
    // leave the name pointing at a torn file.
    await handle.sync();
  } finally {
    await handle.close();
  }
  await storage.rename(tmp, file);
}
