/*
 * Where each consumer's positions live (`consumers/<name>/offsets`, its lock beside them) and what
 * an opener does before its first write there: the directories made durable, the lock taken. A
 * directory per consumer, not a file per consumer in the root: a consumer name may be 249
 * characters, and `<name>.offsets.tmp` would pass the file systems' 255.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { isPositionName } from "../../format/consumer-offsets.js";
import type { Storage, StorageLock } from "../../storage/storage.js";

/** The directory in the root that holds one directory per consumer. */
const CONSUMERS_DIR = "consumers";

/** `consumers/<name>`: the consumer's directory. */
export function consumerDir(name: string): string {
  return `${CONSUMERS_DIR}/${name}`;
}

/** `consumers/<name>/offsets`: the consumer's positions. */
export function consumerFile(name: string): string {
  return `${consumerDir(name)}/offsets`;
}

/** `consumers/<name>/lock`: held by the one opener that commits for the consumer. */
function consumerLock(name: string): string {
  return `${consumerDir(name)}/lock`;
}

/** The consumers that have a directory of their own (names only; their files are read by the caller). */
export async function listConsumers(storage: Storage, rootNames: readonly string[]): Promise<string[]> {
  if (!rootNames.includes(CONSUMERS_DIR) || (await storage.stat(CONSUMERS_DIR))?.kind !== "dir") return [];
  return (await storage.list(CONSUMERS_DIR)).filter((name) => isPositionName(name));
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
