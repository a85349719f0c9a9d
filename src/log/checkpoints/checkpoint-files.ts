/**
 * The directory's small files: how large an offset checkpoint may be, and writing any of them
 * atomically (`<file>.tmp`, fsynced, renamed). Reading a checkpoint is checkpoint-read.ts, a part
 * an open loads only when the root holds one (door-checkpoint-read.ts).
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import { type CheckpointEntry, encodeCheckpoint } from "../../format/checkpoint.js";
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

/**
 * Writes an offset checkpoint `file` atomically (the caller syncs the directory): the entries of
 * `values` that `keep` names, sorted by partition name. `check` (`PAGELOG_CHECKS=all`) sees the
 * text and its entries before the write.
 */
export async function writeCheckpoint(
  storage: Storage,
  file: string,
  values: ReadonlyMap<string, number>,
  keep: (name: string) => boolean,
  check?: (file: string, text: string, entries: readonly CheckpointEntry[]) => void,
): Promise<void> {
  const entries: CheckpointEntry[] = [];
  for (const [name, offset] of [...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parsed = parsePartitionName(name);
    if (parsed !== undefined && keep(name)) entries.push({ ...parsed, offset });
  }
  const text = encodeCheckpoint(entries);
  check?.(file, text, entries);
  await writeFileAtomically(storage, file, new TextEncoder().encode(text));
}
