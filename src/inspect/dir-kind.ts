/**
 * What a directory named on the command line is: a log directory, a partition directory, or
 * neither. Names alone are not enough (`node_modules/crc-32` and `/etc/dbus-1` look like
 * partitions), so the rule also looks at what the directories hold:
 *
 * - a partition directory holds at least one segment file (`<20-digit offset>.log`, `.index`,
 *   `.timeindex`) and nothing that neither pagelog nor Kafka keeps in one;
 * - a log directory holds one of Kafka's log-directory files (`.lock`, `.kafka_cleanshutdown`,
 *   an offset checkpoint, `meta.properties`; `LogDir.open` and `close` leave some), or at least
 *   one partition directory. Its partitions are the subdirectories named `<topic>-<partition>`
 *   that hold only partition files (an empty one too, as a crash after `mkdir` leaves it).
 */
import { ErrorCode, isPagelogError } from "../errors.js";
import { parsePartitionName } from "../log/checkpoints/partition-names.js";
import { parseSegmentFileName } from "../segment/segment-names.js";
import type { Storage } from "../storage/storage.js";

/** Files Kafka (and pagelog, for the first four) keeps in a log directory's root. */
export const LOG_DIR_FILES: readonly string[] = [
  ".lock",
  ".kafka_cleanshutdown",
  "recovery-point-offset-checkpoint",
  "log-start-offset-checkpoint",
  "replication-offset-checkpoint",
  "cleaner-offset-checkpoint",
  "meta.properties",
];

/** Kafka's per-partition files that are not segments, and pagelog's durable-offset file (and their temp files). */
const KAFKA_PARTITION_FILE = /^(leader-epoch-checkpoint|partition\.metadata|pagelog-durable-offset)(\.tmp)?$/;
/**
 * What a KRaft broker keeps beside the segments of its metadata log (`__cluster_metadata-0`):
 * `quorum-state`, and its snapshots `<20-digit offset>-<10-digit epoch>.checkpoint` (`.part`
 * while written, `.deleted` once replaced).
 */
const KRAFT_PARTITION_FILE = /^(quorum-state(\.tmp)?|\d{20}-\d{10}\.checkpoint(\.part|\.deleted)?)$/;
/**
 * Anything named by a 20-digit offset and a suffix: segment files, Kafka's `.snapshot` and
 * `.txnindex`, and what interrupted writes leave (`<base>.log.tmp`, `.deleted`, `.cleaned`, `.swap`).
 */
const OFFSET_NAMED = /^\d{20}\.[a-z]+(\.[a-z]+)?$/;

/** True if `name` is a segment file name (`00000000000000000000.log`, `.index`, `.timeindex`). */
export function isSegmentFile(name: string): boolean {
  return parseSegmentFileName(name) !== undefined;
}

/** True if pagelog or Kafka may keep a file of this name in a partition directory. */
export function isPartitionFileName(name: string): boolean {
  return OFFSET_NAMED.test(name) || KAFKA_PARTITION_FILE.test(name) || KRAFT_PARTITION_FILE.test(name);
}

export interface DirContents {
  readonly names: string[];
  /** Names that no partition directory holds. */
  readonly foreign: string[];
  readonly hasSegments: boolean;
}

/** Lists `dir` and sorts out what a partition directory may not hold. */
export async function partitionContents(storage: Storage, dir: string): Promise<DirContents> {
  const names = await storage.list(dir);
  // By name only: a segment-named entry that is not a file is a partition's damage (reading it
  // fails), not a sign that this is some other directory.
  return { names, foreign: names.filter((n) => !isPartitionFileName(n)), hasSegments: names.some(isSegmentFile) };
}

/** Up to three names, then how many more: for messages. */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

export interface LogDirScan {
  /** The root holds one of {@link LOG_DIR_FILES}. */
  readonly hasLogDirFiles: boolean;
  /** Partition directories, by name. */
  readonly partitions: string[];
  /** Subdirectories named like partitions that hold something else (not partitions, not checked). */
  readonly lookalikes: Array<{ name: string; foreign: string[] }>;
  /**
   * Names of partitions that are no readable directory, and why (`LogDir.log` of one fails):
   * a file, FIFO, socket or device; a symbolic link to nothing; with `keepGoing`, a directory
   * that cannot be listed. `why` undefined: listed, then gone when looked at (removed since).
   */
  readonly unreadable: Array<{ name: string; why: string | undefined }>;
}

/**
 * The partitions of a directory taken as a log directory (see the file comment). A partition
 * directory that cannot be listed fails the scan, unless `keepGoing`: then it is `unreadable`.
 */
export async function scanLogDir(
  storage: Storage,
  names: readonly string[],
  { keepGoing = false }: { keepGoing?: boolean } = {},
): Promise<LogDirScan> {
  const partitions: string[] = [];
  const lookalikes: Array<{ name: string; foreign: string[] }> = [];
  const unreadable: Array<{ name: string; why: string | undefined }> = [];
  for (const name of names) {
    if (parsePartitionName(name) === undefined) continue;
    const kind = (await storage.stat(name))?.kind;
    if (kind !== "dir") {
      // stat follows links: nothing there is a link to nothing if the name is still listed.
      const why =
        kind === "file"
          ? "not a directory (a file, FIFO, socket or device)"
          : (await storage.list("")).includes(name)
            ? "a symbolic link to nothing (or to what cannot be looked at)"
            : undefined;
      unreadable.push({ name, why });
      continue;
    }
    let contents: DirContents;
    try {
      contents = await partitionContents(storage, name);
    } catch (err) {
      if (!keepGoing || !isPagelogError(err)) throw err;
      if (err.code !== ErrorCode.NOT_FOUND && err.code !== ErrorCode.IO) throw err;
      unreadable.push({
        name,
        why: err.code === ErrorCode.NOT_FOUND ? undefined : `it cannot be read: ${err.message}`,
      });
      continue;
    }
    if (contents.foreign.length === 0) partitions.push(name);
    else lookalikes.push({ name, foreign: contents.foreign });
  }
  return { hasLogDirFiles: names.some((n) => LOG_DIR_FILES.includes(n)), partitions, lookalikes, unreadable };
}

/** Whether a scanned directory is a log directory: a log-directory file, or a partition holding segments. */
export async function isLogDir(storage: Storage, scan: LogDirScan): Promise<boolean> {
  if (scan.hasLogDirFiles) return true;
  for (const name of scan.partitions) {
    // Gone since the scan listed it (a writer deleted the partition): it says nothing either way.
    const names = await storage.list(name).catch((err: unknown) => {
      if (isPagelogError(err, ErrorCode.NOT_FOUND)) return [];
      throw err;
    });
    if (names.some(isSegmentFile)) return true;
  }
  return false;
}
