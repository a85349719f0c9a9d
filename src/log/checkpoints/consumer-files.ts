/*
 * Where each consumer's positions live (`consumers/<name>/offsets`, its lock beside them), how
 * their keys are made and how large a positions file may be (shared by the eager side and the
 * part that reads and writes the files, position-files.ts, so neither imports the other). What
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

/** Most (consumer, partition) positions a file keeps: its size bound follows from it. */
export const MAX_POSITIONS = 65_536;
/**
 * The longest line: a consumer name (249), a space, a topic, a space and a partition (at most a
 * partition directory's 255 characters together), a space, a 16-digit offset, a newline.
 */
const MAX_LINE_BYTES = 249 + 1 + 255 + 1 + 16 + 1;
/**
 * Bytes the file may hold before it is malformed without being read (about 34 MB): every file
 * pagelog writes fits, and a hostile one (a sparse 3 GiB file, say) costs one `stat`.
 */
export const MAX_POSITIONS_BYTES = 2 + String(MAX_POSITIONS).length + 1 + MAX_POSITIONS * MAX_LINE_BYTES;

/** The key of one position: `<consumer> <partition directory name>` (names hold no space). */
export function positionKey(consumer: string, partition: string): string {
  return `${consumer} ${partition}`;
}

/** What reading the file found: its positions by key, or why it is not a positions file. */
export type PositionsRead =
  | { readonly state: "ok"; readonly positions: Map<string, number> }
  | { readonly state: "malformed"; readonly reason: string };
