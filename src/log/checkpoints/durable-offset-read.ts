/*
 * A read-only opener's read of a writer's published durable offset (format/durable-offset.ts):
 * undefined unless the file is there and whole. Never trusted alone: the caller takes it as a
 * raise of the checkpointed recovery point, bounded by the end it walked, and reads it (with the
 * checkpoint) again after the files, as it does the checkpoint.
 */
import { DURABLE_OFFSET_BYTES, DURABLE_OFFSET_FILE, decodeDurableOffset } from "../../format/durable-offset.js";
import { isPagelogError } from "../../errors.js";
import { joinPath } from "../../storage/paths.js";
import type { Storage } from "../../storage/storage.js";

export async function readDurableOffset(storage: Storage, partition: string): Promise<number | undefined> {
  let file;
  try {
    file = await storage.open(joinPath(partition, DURABLE_OFFSET_FILE), { readOnly: true });
  } catch (err) {
    // Absent (a writer that never flushed, an older pagelog, a truncation's withdrawal), or not
    // a file: the checkpoint alone then.
    if (isPagelogError(err)) return undefined;
    throw err;
  }
  try {
    // One byte more than the file holds: a longer file is not one of ours.
    return decodeDurableOffset(await file.read(0, DURABLE_OFFSET_BYTES + 1));
  } finally {
    await file.close();
  }
}
