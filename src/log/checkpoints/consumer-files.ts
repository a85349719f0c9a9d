/*
 * Where each consumer's positions live (`consumers/<name>/offsets`, its lock beside them), how
 * their keys are made, and the errors of a file that is not a positions file: shared by the
 * eager side (consumers/, the open's root reads) and the part loaded on first use
 * (consumer-positions.ts with position-files.ts: the stores, reading and writing the files, the
 * directories made durable and the lock taken before a consumer's first write). A directory per
 * consumer, not a file per consumer in the root: a consumer name may be 249 characters, and
 * `<name>.offsets.tmp` would pass the file systems' 255.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage, StorageLock } from "../../storage/storage.js";

/** The directory in the root that holds one directory per consumer. */
export const CONSUMERS_DIR = "consumers";
/** The directory-wide positions file of earlier versions (still read: see consumer-positions.ts). */
export const CONSUMER_OFFSET_CHECKPOINT = "consumer-offset-checkpoint";

/** `consumers/<name>`: the consumer's directory. */
export function consumerDir(name: string): string {
  return `${CONSUMERS_DIR}/${name}`;
}

/** `consumers/<name>/offsets`: the consumer's positions. */
export function consumerFile(name: string): string {
  return `${consumerDir(name)}/offsets`;
}

/** The key of one position: `<consumer> <partition directory name>` (names hold no space). */
export function positionKey(consumer: string, partition: string): string {
  return `${consumer} ${partition}`;
}

/** What reading the file found: its positions by key, or why it is not a positions file. */
export type PositionsRead =
  | { readonly state: "ok"; readonly positions: Map<string, number> }
  | { readonly state: "malformed"; readonly reason: string };

/** What the open read: the directory-wide file, and each consumer's own file by name. */
export interface ConsumersRead {
  readonly legacy: PositionsRead;
  readonly own: ReadonlyMap<string, PositionsRead>;
}

/**
 * One consumer's positions as one open directory holds them: kept by consumer-positions.ts's
 * `PositionStore`, written by position-files.ts's `writeCommits` (a part loaded on first use).
 */
export interface Positions {
  readonly storage: Storage;
  readonly consumer: string;
  /** Only values a resolved write (or a file read) holds: what `committed()` answers. */
  durable: Map<string, number>;
  /** Every key durable or queued: bounds the file (an over-estimate after a failed write). */
  readonly keys: Set<string>;
  /** The failure of a write that did not only find the disk full: every later commit refuses. */
  failure: unknown;
  /** The consumer's lock, from its first write until `release()`: this opener is its one writer. */
  lock: StorageLock | undefined;
  /** Keys whose committed offset was past their log's end when the log was opened, until committed again. */
  readonly aheadAtOpen: Set<string>;
}

/** A read of the consumer's file: its positions replace what `p` knew (absent: nothing changes). */
export function adoptPositions(p: Positions, read: PositionsRead): void {
  if (read.state === "malformed") throw corruptConsumerFile(p.consumer, read.reason);
  if (read.positions.size === 0) return; // no file: the directory-wide file's values, if any, stand
  p.durable = read.positions;
  for (const key of read.positions.keys()) p.keys.add(key);
}

/** What `dir.consumer(name)` (or a refresh) throws when the consumer's own file is not a positions file. */
export function corruptConsumerFile(consumer: string, reason: string): PagelogError {
  const path = consumerFile(consumer);
  return new PagelogError(
    `${path} is not a consumer positions file (${reason}): pagelog will not read it as empty; move it aside to start ${consumer} over`,
    ErrorCode.CORRUPT,
    { path },
  );
}

/** What `dir.consumer()` throws when the directory-wide file read at open is not one: never read as empty. */
export function corruptPositions(reason: string): PagelogError {
  return new PagelogError(
    `${CONSUMER_OFFSET_CHECKPOINT} is not a consumer positions file (${reason}): pagelog will not read it as empty; move it aside to start every consumer over`,
    ErrorCode.CORRUPT,
    { path: CONSUMER_OFFSET_CHECKPOINT },
  );
}
