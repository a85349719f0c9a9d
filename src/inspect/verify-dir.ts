/**
 * `pagelog verify`'s checks over a log directory (or one partition directory), read-only:
 * every batch of every segment (framing, magic, CRC-32C, offsets continuing from the segment's
 * base offset and from the previous segment and within its int32 range, and every record decoded
 * by the library's own decoder, as reads decode it), every `.index` and `.timeindex` entry against
 * the log, the checkpoints against each log's end, and files the log's loader refuses (`.swap`).
 *
 * Findings are of two kinds: problems (damage: what the library refuses as `PAGELOG_CORRUPT`,
 * or repairs on the next open) and unsupported batches (bytes that may be intact but that pagelog
 * cannot read: snappy, lz4 and zstd, or gzip beyond the decompression cap), and, when a live
 * writer holds the directory's lock, findings in progress: what that writer is in the middle of
 * (verify-partition.ts), which are not damage.
 *
 * Each file is read once, so a directory being written is not read as one snapshot. The order
 * keeps the writer's own order from looking like damage: the recovery points are read before the
 * logs (a writer checkpoints a point only once its log holds it), the log start offsets after
 * them (a writer checkpoints a new start before it deletes the segments below it).
 */
import { decodeCheckpoint } from "../format/checkpoint.js";
import { LOG_START_CHECKPOINT, maxCheckpointBytes, parsePartitionName } from "../log/log-dir.js";
import { readCheckpoint } from "../log/checkpoints/checkpoint-read.js";
import { CLEANER_CHECKPOINT } from "../log/checkpoints/cleaner-checkpoint.js";
import type { Storage } from "../storage/storage.js";
import { scanLogDir, someNames } from "./dir-kind.js";
import { readBounded } from "./file-read.js";
import { plural } from "../text/plural.js";
import { verifyPartition } from "./verify-partition.js";
import {
  type Findings,
  type PartitionReport,
  type Problem,
  unreadable,
  vanished,
  vanishedNote,
} from "./verify-types.js";

export type { FileReport, PartitionReport, Problem } from "./verify-types.js";

const CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
const LOCK_FILE = ".lock";
const RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
/** pagelog's own temp files in the root: the next `LogDir.open` removes these, and no other `*.tmp`. */
const ROOT_TEMP_FILES: ReadonlySet<string> = new Set(
  [RECOVERY_POINT_CHECKPOINT, LOG_START_CHECKPOINT, CLEAN_SHUTDOWN_FILE].map((f) => `${f}.tmp`),
);
export interface VerifyReport {
  /** Whether the directory holds Kafka's clean-shutdown marker (null: checking one partition). */
  readonly cleanShutdown: boolean | null;
  /**
   * The live process holding the log directory's `.lock` (a writer) when verify ran, or null.
   * Its log changed while verify read it: see `inProgress`.
   */
  readonly writer: { readonly pid: number } | null;
  readonly partitions: PartitionReport[];
  /** Things worth knowing that are not damage (missing indexes, leftovers a crash leaves). */
  readonly notes: string[];
  /** Every problem (damage), in the order found. */
  readonly problems: Problem[];
  /**
   * Every batch pagelog cannot read although it is not known to be damaged (snappy, lz4, zstd,
   * gzip past the decompression cap): reads of it fail with `PAGELOG_UNSUPPORTED_COMPRESSION` or
   * `PAGELOG_RECORD_TOO_LARGE`.
   */
  readonly unsupported: Problem[];
  /**
   * What the live `writer` explains, each with a note saying how: the active segment's tail being
   * written, index entries for batches appended after the `.log` was read, a compaction's `.swap`,
   * checkpoints moving on. Not damage: they do not change the verdict. Empty without a writer.
   */
  readonly inProgress: Problem[];
}

/** The verdict: damage outranks unsupported batches. */
export function verdictOf(report: VerifyReport): "clean" | "damaged" | "unsupported" {
  if (report.problems.length > 0) return "damaged";
  return report.unsupported.length > 0 ? "unsupported" : "clean";
}

type Checkpointed = Map<string, { offset: number; byte: number }>;

/** What the root holds besides the partitions: the marker, the checkpoints, the partition list. */
interface RootFacts {
  cleanShutdown: boolean | null;
  recoveryPoints: Checkpointed;
  /** Read after the partitions (see the file comment): empty until then. */
  startOffsets: Checkpointed;
  dirs: Array<{ name: string; path: string }>;
  /** The root's names, as listed first (empty for a partition verified alone). */
  names: string[];
}

/**
 * Checks `partitionDirs` under `storage` (`""` for a storage rooted at a partition directory).
 * `partitionCleanPoint`: for a partition verified alone, its clean point (gaps are legal below it).
 * `writer`: the pid of a live process holding the log directory's lock, if the caller found one
 * (verify takes no lock, and cannot look for one through a `Storage`): what it is in the middle
 * of is reported as in progress, not as damage.
 */
export async function verifyDir(
  storage: Storage,
  asPartition: string | undefined,
  partitionCleanPoint?: number,
  writer?: number,
): Promise<VerifyReport> {
  const found: Findings = { notes: [], problems: [], inProgress: [], writer };
  const unsupported: Problem[] = [];
  const partitions: PartitionReport[] = [];
  const root: RootFacts =
    asPartition !== undefined
      ? {
          cleanShutdown: null,
          recoveryPoints: new Map(),
          startOffsets: new Map(),
          dirs: [{ name: asPartition, path: "" }],
          names: [],
        }
      : await verifyRoot(storage, found);
  // Kafka's cleaner-offset-checkpoint: below each compacted log's clean point, offset gaps are
  // the cleaner's and legal, as the loader takes them (a partition verified alone: its log
  // directory's, read by the caller).
  const cleanPoints =
    asPartition === undefined ? await readOrNone(storage, CLEANER_CHECKPOINT, found) : new Map<string, number>();
  for (const dir of root.dirs) {
    const cleanPoint = asPartition === undefined ? cleanPoints.get(dir.name) : partitionCleanPoint;
    const report = await verifyPartition(storage, dir, root.cleanShutdown, cleanPoint, found);
    if (report === undefined) continue;
    partitions.push(report);
    for (const f of report.files) {
      found.problems.push(...f.problems);
      unsupported.push(...f.unsupported);
    }
  }
  if (asPartition === undefined)
    root.startOffsets = await readCheckpointEntries(
      storage,
      LOG_START_CHECKPOINT,
      root.names,
      root.names.filter((n) => parsePartitionName(n) !== undefined).length,
      found,
      "starts every log at its first segment",
    );
  for (const report of partitions) checkCheckpoints(report, root, found);
  return {
    cleanShutdown: root.cleanShutdown,
    writer: writer === undefined ? null : { pid: writer },
    partitions,
    notes: found.notes,
    problems: found.problems,
    unsupported,
    inProgress: found.inProgress,
  };
}

/** A checkpoint the loader reads (the cleaner's), or none if it vanished while verify ran. */
async function readOrNone(storage: Storage, file: string, found: Findings): Promise<Map<string, number>> {
  try {
    return await readCheckpoint(storage, file);
  } catch (err) {
    if (!vanished(err)) throw err;
    found.notes.push(vanishedNote(file));
    return new Map();
  }
}

/** The root of a log directory: what is not a file where a file must be, the checkpoints, leftovers. */
async function verifyRoot(storage: Storage, found: Findings): Promise<RootFacts> {
  const { notes, problems } = found;
  const names = await storage.list("");
  const cleanShutdown = names.includes(CLEAN_SHUTDOWN_FILE);
  // What `LogDir.open` and `close()` refuse in the root: a marker or a lock that is not a file
  // fails the open (PAGELOG_IO); a checkpoint that is a directory fails every checkpoint write.
  for (const name of [CLEAN_SHUTDOWN_FILE, LOCK_FILE, RECOVERY_POINT_CHECKPOINT, LOG_START_CHECKPOINT]) {
    const kind = names.includes(name) ? (await storage.stat(name))?.kind : undefined;
    if (kind !== undefined && kind !== "file") {
      const consequence =
        name === CLEAN_SHUTDOWN_FILE || name === LOCK_FILE
          ? "opening the log directory fails (PAGELOG_IO)"
          : "writing the checkpoint (every close) fails";
      problems.push({
        path: name,
        byte: 0,
        problem: `a ${kind}, not a file: ${consequence}; pagelog never makes one there, remove it by hand`,
      });
    }
  }
  const partitionCount = names.filter((n) => parsePartitionName(n) !== undefined).length;
  const recoveryPoints = await readCheckpointEntries(
    storage,
    RECOVERY_POINT_CHECKPOINT,
    names,
    partitionCount,
    found,
    "recovers every log from offset 0",
  );
  const scan = await scanLogDir(storage, names, { keepGoing: true });
  for (const { name, foreign } of scan.lookalikes)
    notes.push(
      `${name}: not a partition directory (it holds ${someNames(foreign)}, which neither pagelog nor Kafka keeps in one): not checked`,
    );
  for (const { name, why } of scan.unreadable) {
    if (why === undefined) notes.push(vanishedNote(name));
    else
      problems.push({
        path: name,
        byte: 0,
        problem: `named like a partition, but ${why}: opening this log (dir.log("${name}")) fails with PAGELOG_IO, and verify cannot check it`,
      });
  }
  for (const name of names)
    if (ROOT_TEMP_FILES.has(name)) notes.push(`${name}: a leftover of an interrupted write (the next open removes it)`);
  return {
    cleanShutdown,
    recoveryPoints,
    startOffsets: new Map(),
    dirs: scan.partitions.map((name) => ({ name, path: name })),
    names,
  };
}

/**
 * A partition's recovery point and log start offset against the offsets its segments hold. With
 * a live writer the checkpoints move on while the logs are read: a mismatch is in progress.
 */
function checkCheckpoints(report: PartitionReport, root: RootFacts, found: Findings): void {
  const problems: Problem[] = [];
  const { notes } = found;
  const rp = root.recoveryPoints.get(report.name);
  if (rp !== undefined && report.endOffset !== null && rp.offset > report.endOffset) {
    problems.push({
      path: RECOVERY_POINT_CHECKPOINT,
      byte: rp.byte,
      problem: `recovery point of ${report.name} is ${rp.offset}, past the end of its log (${report.endOffset}): flushed records are missing`,
    });
  }
  const so = root.startOffsets.get(report.name);
  // As the loader: the start is checkpointed before segments below it are deleted, so a first
  // segment past it means the segments holding the records between are gone.
  if (
    so !== undefined &&
    report.startOffset !== null &&
    report.endOffset !== null &&
    so.offset < report.startOffset &&
    so.offset <= report.endOffset
  ) {
    problems.push({
      path: LOG_START_CHECKPOINT,
      byte: so.byte,
      problem: `log start offset of ${report.name} is ${so.offset}, but its first segment starts at ${report.startOffset}: the records between are missing`,
    });
  }
  if (so !== undefined && report.endOffset !== null && so.offset > report.endOffset) {
    if (root.cleanShutdown === true) {
      problems.push({
        path: LOG_START_CHECKPOINT,
        byte: so.byte,
        problem: `log start offset of ${report.name} is ${so.offset}, past the end of its log (${report.endOffset}) after a clean shutdown, when every record was durable`,
      });
    } else {
      notes.push(
        `${LOG_START_CHECKPOINT}: the start offset of ${report.name}, ${so.offset}, is past the end of its log (${report.endOffset}): the next open starts the log over, empty, at ${so.offset}`,
      );
    }
  }
  if (found.writer === undefined) found.problems.push(...problems);
  else
    for (const p of problems)
      found.inProgress.push({
        ...p,
        note: `process ${found.writer} holds the lock and writes this checkpoint as its log moves on: it may have changed between the reads`,
      });
}

/** A checkpoint's entries by partition name, with the byte each line starts at; none if absent or malformed (with a note). */
async function readCheckpointEntries(
  storage: Storage,
  file: string,
  names: string[],
  partitions: number,
  found: Findings,
  consequence: string,
): Promise<Map<string, { offset: number; byte: number }>> {
  const { notes } = found;
  const out = new Map<string, { offset: number; byte: number }>();
  if (!names.includes(file)) return out;
  if ((await storage.stat(file))?.kind !== "file") return out; // a problem of its own (see verifyDir)
  // Read no more than the log's own reader does: a larger file is malformed unread.
  const limit = maxCheckpointBytes(partitions);
  let read;
  try {
    read = await readBounded(storage, file, limit);
  } catch (err) {
    // Replaced as verify read it: a checkpoint is written to a .tmp and renamed over, never removed.
    if (vanished(err)) notes.push(vanishedNote(file));
    else if (unreadable(err)) found.problems.push({ path: file, byte: 0, problem: `cannot be read: ${err.message}` });
    else throw err;
    return out;
  }
  const { bytes, size } = read;
  if (size > limit) {
    notes.push(
      `${file}: malformed: ${plural(size, "byte")}, more than the ${limit} a checkpoint of ${plural(partitions, "partition")} can need (the next open ${consequence})`,
    );
    return out;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    notes.push(`${file}: malformed: not UTF-8 (the next open ${consequence})`);
    return out;
  }
  const entries = decodeCheckpoint(text);
  if (entries === undefined) {
    notes.push(`${file}: malformed (the next open ${consequence})`);
    return out;
  }
  for (const e of entries) {
    const name = `${e.topic}-${e.partition}`;
    const line = `${e.topic} ${e.partition} ${e.offset}\n`;
    out.set(name, { offset: e.offset, byte: Math.max(0, text.indexOf(line)) });
  }
  return out;
}
