/*
 * The writing half of consumer positions (consumer-positions.ts reads them and queues commits):
 * the consumer's directories made durable and its lock taken before its first write, and each
 * write of its file (Kafka's checkpoint text, written atomically). A part loaded on first use,
 * by the first commit (door-position-writer.ts): a page that reads positions, or keeps none,
 * never loads it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { type ConsumerOffsetEntry, encodeConsumerOffsets } from "../../format/consumer-offsets.js";
import type { Storage, StorageLock } from "../../storage/storage.js";
import { writeFileAtomically } from "./checkpoint-files.js";
import { CONSUMERS_DIR, consumerDir, consumerFile } from "./consumer-files.js";
import { parsePartitionName } from "./partition-names.js";

/** `consumers/<name>/lock`: held by the one opener that commits for the consumer. */
function consumerLock(name: string): string {
  return `${consumerDir(name)}/lock`;
}

/** OS codes of a write refused by the mount or the permissions, not by a failing disk. */
const NOT_WRITABLE = new Set(["EROFS", "EACCES", "EPERM"]);

/**
 * Makes `consumers/<name>` (durably: each new directory's entry synced in its parent before
 * anything in it can count) and takes the consumer's lock. `PAGELOG_LOCKED` (naming the holder)
 * while another opener holds it; `PAGELOG_READ_ONLY` where the directory cannot be written (a
 * read-only mount, no permission).
 */
export async function ownConsumerDir(storage: Storage, name: string): Promise<StorageLock> {
  try {
    await storage.mkdir(CONSUMERS_DIR);
    await storage.syncDir("");
    await storage.mkdir(consumerDir(name));
    await storage.syncDir(CONSUMERS_DIR);
    return await storage.lock(consumerLock(name));
  } catch (err) {
    if (notWritable(err)) {
      throw new PagelogError(
        `cannot commit positions of consumer ${name}: the log directory cannot be written (a read-only mount?); keep the positions in a writable log directory of their own (docs/consumers.md)`,
        ErrorCode.READ_ONLY,
        { cause: err, path: consumerDir(name) },
      );
    }
    throw err;
  }
}

function notWritable(err: unknown): boolean {
  if (!(err instanceof PagelogError) || err.code !== ErrorCode.IO) return false;
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === "string" && NOT_WRITABLE.has(cause.code);
}

/**
 * Writes the consumer's file with `positions` (keys `<consumer> <partition>`): temp file, fsync,
 * rename, directory fsync, so a crash leaves the old file or the new one, whole.
 */
export async function writePositions(
  storage: Storage,
  consumer: string,
  positions: Map<string, number>,
): Promise<void> {
  const bytes = new TextEncoder().encode(encode(positions));
  await writeFileAtomically(storage, consumerFile(consumer), bytes);
  await storage.syncDir(consumerDir(consumer));
}

function encode(positions: Map<string, number>): string {
  const entries: ConsumerOffsetEntry[] = [];
  for (const key of [...positions.keys()].sort()) {
    const space = key.indexOf(" ");
    const { topic, partition } = parsePartitionName(key.slice(space + 1))!;
    entries.push({ consumer: key.slice(0, space), topic, partition, offset: positions.get(key)! });
  }
  return encodeConsumerOffsets(entries);
}
