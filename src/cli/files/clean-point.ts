/*
 * The clean point of a partition directory named on the command line alone (`pagelog dump
 * data/orders-0`, `pagelog verify data/orders-0`): Kafka keeps it in its log directory, the
 * parent, in `cleaner-offset-checkpoint`. Below it a compacted log's batches may skip offsets (the
 * cleaner dropped the records between), so the tools take it as the loader does. Read only; a
 * parent without the file (or one that cannot be read) gives none: every gap is reported.
 */
import { basename, dirname } from "node:path";
import { readCheckpoint } from "../../log/checkpoints/checkpoint-read.js";
import { CLEANER_CHECKPOINT } from "../../log/checkpoints/cleaner-checkpoint.js";
import { FsStorage } from "../../storage/fs-storage.js";

/** The clean point of the partition directory at `partitionPath` (absolute), or undefined. */
export async function partitionCleanPoint(partitionPath: string): Promise<number | undefined> {
  let parent: FsStorage | undefined;
  try {
    parent = await FsStorage.open(dirname(partitionPath), { create: false });
    const stat = await parent.stat(CLEANER_CHECKPOINT);
    if (stat?.kind !== "file") return undefined;
    return (await readCheckpoint(parent, CLEANER_CHECKPOINT)).get(basename(partitionPath));
  } catch {
    return undefined;
  } finally {
    await parent?.close();
  }
}
