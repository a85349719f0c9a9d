/*
 * The files of consumer positions (consumer-positions.ts holds them in memory and queues
 * commits): reading a positions file, checked whole; the consumer's directories made durable and
 * its lock taken before its first write; each write of its file (Kafka's checkpoint text, written
 * atomically), and the write of a store's queued commits (`writeCommits`). Part of the part
 * door-position-files.ts loads on first use (consumer-positions.ts imports it): by an open whose
 * root holds positions, a refresh, or the first commit. A page whose directories keep no
 * positions and that commits none never loads it.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import {
  type ConsumerOffsetEntry,
  decodeConsumerOffsets,
  encodeConsumerOffsets,
} from "../../format/consumer-offsets.js";
import type { Storage, StorageLock } from "../../storage/storage.js";
import { isNoRoom, writeFileAtomically } from "./checkpoint-files.js";
import {
  adoptPositions,
  CONSUMERS_DIR,
  consumerDir,
  consumerFile,
  positionKey,
  type Positions,
  type PositionsRead,
} from "./consumer-files.js";
import { parsePartitionName } from "./partition-names.js";

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

/**
 * Writes one queued write's commits (in call order: the last commit of a key wins, as it would
 * one write at a time) on top of `p`'s durable positions; `p` holds them once the write is
 * durable. The consumer's first write here takes its directory and lock first (PAGELOG_LOCKED
 * while another opener holds it) and reads its file again under the lock, so that what another
 * opener committed since this one's open is written on, never over: a failure there refuses these
 * commits, writes nothing, and lets later ones try again.
 */
export async function writeCommits(p: Positions, commits: readonly (readonly [string, number])[]): Promise<void> {
  if (p.lock === undefined) {
    const lock = await ownConsumerDir(p.storage, p.consumer);
    try {
      adoptPositions(p, await readPositionsFile(p.storage, consumerFile(p.consumer), p.consumer));
    } catch (err) {
      await lock.release().catch(() => undefined);
      throw err;
    }
    p.lock = lock;
  }
  const next = new Map(p.durable);
  for (const [key, offset] of commits) next.set(key, offset);
  try {
    // Temp file, fsync, rename, directory fsync: a crash leaves the old file or the new one, whole.
    await writePositions(p.storage, p.consumer, next);
  } catch (err) {
    // A full disk wrote nothing that counts (the old file stands): later commits may retry.
    // Anything else (a failed fsync above all) leaves nothing to trust until a restart.
    if (!isNoRoom(err)) p.failure ??= err;
    throw err;
  }
  p.durable = next;
  for (const [key] of commits) p.aheadAtOpen.delete(key);
}

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
async function ownConsumerDir(storage: Storage, name: string): Promise<StorageLock> {
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
async function writePositions(storage: Storage, consumer: string, positions: Map<string, number>): Promise<void> {
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

/**
 * Reads a positions file (absent: no positions); `consumer`: a consumer's own file, whose every
 * line must be that consumer's.
 */
export async function readPositionsFile(storage: Storage, path: string, consumer?: string): Promise<PositionsRead> {
  const stat = await storage.stat(path);
  if (stat === null) return { state: "ok", positions: new Map() };
  if (stat.kind !== "file") return { state: "malformed", reason: "it is not a file" };
  if (stat.size > MAX_POSITIONS_BYTES)
    return { state: "malformed", reason: `${stat.size} bytes, more than the ${MAX_POSITIONS_BYTES} it can need` };
  let handle;
  try {
    handle = await storage.open(path, { readOnly: true });
  } catch (err) {
    // Removed since the stat (a consumer directory deleted by hand): no positions.
    if (err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND) return { state: "ok", positions: new Map() };
    // A FIFO, socket or device there (`stat` reports every non-directory as a file): the storage
    // refuses it without blocking, and like any other file that is not a positions file it fails
    // only dir.consumer(), never the whole directory.
    if (err instanceof PagelogError && err.code === ErrorCode.IO)
      return { state: "malformed", reason: `it cannot be read as a file (${err.message})` };
    throw err;
  }
  let bytes: Uint8Array;
  try {
    // One byte more than its size: a file that grew since the stat is caught.
    bytes = await handle.read(0, stat.size + 1);
  } finally {
    await handle.close();
  }
  if (bytes.length > stat.size) return { state: "malformed", reason: "it grew while it was read" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { state: "malformed", reason: "it is not UTF-8" };
  }
  const decoded = decodeConsumerOffsets(text);
  if (typeof decoded === "string") return { state: "malformed", reason: decoded };
  const positions = new Map<string, number>();
  for (const e of decoded) {
    const partition = `${e.topic}-${e.partition}`;
    if (parsePartitionName(partition) === undefined)
      return { state: "malformed", reason: `${partition} is not a partition name` };
    if (consumer !== undefined && e.consumer !== consumer)
      return { state: "malformed", reason: `it holds a position of ${e.consumer}, not of ${consumer}` };
    positions.set(positionKey(e.consumer, partition), e.offset);
  }
  if (positions.size > MAX_POSITIONS) return { state: "malformed", reason: `more than ${MAX_POSITIONS} positions` };
  return { state: "ok", positions };
}
