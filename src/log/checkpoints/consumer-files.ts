/*
 * Where each consumer's positions live (`consumers/<name>/offsets`, its lock beside them). What
 * an opener does before its first write there (the directories made durable, the lock taken) is
 * position-files.ts, loaded on first use. A directory per consumer, not a file per
 * consumer in the root: a consumer name may be 249 characters, and `<name>.offsets.tmp` would pass
 * the file systems' 255.
 */
import { isPositionName } from "../../format/consumer-offsets.js";
import type { Storage } from "../../storage/storage.js";

/** The directory in the root that holds one directory per consumer. */
export const CONSUMERS_DIR = "consumers";

/** `consumers/<name>`: the consumer's directory. */
export function consumerDir(name: string): string {
  return `${CONSUMERS_DIR}/${name}`;
}

/** `consumers/<name>/offsets`: the consumer's positions. */
export function consumerFile(name: string): string {
  return `${consumerDir(name)}/offsets`;
}

/** The consumers that have a directory of their own (names only; their files are read by the caller). */
export async function listConsumers(storage: Storage, rootNames: readonly string[]): Promise<string[]> {
  if (!rootNames.includes(CONSUMERS_DIR) || (await storage.stat(CONSUMERS_DIR))?.kind !== "dir") return [];
  return (await storage.list(CONSUMERS_DIR)).filter((name) => isPositionName(name));
}
