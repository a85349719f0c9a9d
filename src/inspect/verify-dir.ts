/**
 * `pagelog verify`'s checks over a log directory (or one partition directory), read-only:
 * every batch of every segment (framing, magic, CRC-32C, offsets continuing from the segment's
 * base offset and from the previous segment and within its int32 range, and every record decoded
 * by the library's own decoder, as reads decode it), every `.index` and `.timeindex` entry against
 * the log, the checkpoints against each log's end, and files the log's loader refuses (`.swap`).
 *
 * Findings are of two kinds: problems (damage: what the library refuses as `PAGELOG_CORRUPT`,
 * or repairs on the next open) and unsupported batches (bytes that may be intact but that pagelog
 * cannot read: snappy, lz4 and zstd, or gzip beyond the decompression cap).
 */
import { decodeCheckpoint } from "../format/checkpoint.js";
import { LOG_START_CHECKPOINT, maxCheckpointBytes, parsePartitionName } from "../log/log-dir.js";
import { readCheckpoint } from "../log/checkpoint-files.js";
import { CLEANER_CHECKPOINT } from "../log/compaction/cleaner-checkpoint.js";
import { OFFSET_INDEX_ENTRY_SIZE } from "../segment/offset-index.js";
import { TIME_INDEX_ENTRY_SIZE } from "../segment/time-index.js";
import type { Storage } from "../storage/storage.js";
import { type IndexWalk, walkIndex } from "./index-check.js";
import { scanLogDir, someNames } from "./dir-kind.js";
import { readBounded } from "./file-read.js";
import { groupSegments, type LogScan, scanLog, type SegmentFiles } from "./scan-log.js";
import { plural } from "../text/plural.js";

const CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
const LOCK_FILE = ".lock";
const RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
/** pagelog's own temp files in the root: the next `LogDir.open` removes these, and no other `*.tmp`. */
const ROOT_TEMP_FILES: ReadonlySet<string> = new Set(
  [RECOVERY_POINT_CHECKPOINT, LOG_START_CHECKPOINT, CLEAN_SHUTDOWN_FILE].map((f) => `${f}.tmp`),
);
/** Left by an interrupted write in a partition: the next open of the log removes them. */
const LEFTOVER = /\.(tmp|deleted|cleaned)$/;
/** An interrupted compaction: the loader finishes it, or refuses the partition (compaction/complete-swaps.ts). */
const SWAP = /\.swap$/;

/** One finding that makes the directory damaged: the file, the byte, what is wrong. */
export interface Problem {
  readonly path: string;
  readonly byte: number;
  readonly problem: string;
  /** Context, for example that a torn tail is what a crash leaves and the next open cuts it. */
  readonly note?: string;
}

export interface FileReport {
  readonly path: string;
  readonly kind: "log" | "index" | "timeindex";
  /** "12 batches, offsets 0-20, 1402 bytes" or "3 entries". */
  readonly summary: string;
  readonly problems: Problem[];
  /** Batches pagelog cannot read (see `VerifyReport.unsupported`); empty for index files. */
  readonly unsupported: Problem[];
}

export interface PartitionReport {
  readonly name: string;
  readonly segments: number;
  readonly startOffset: number | null;
  readonly endOffset: number | null;
  readonly bytes: number;
  readonly files: FileReport[];
}

export interface VerifyReport {
  /** Whether the directory holds Kafka's clean-shutdown marker (null: checking one partition). */
  readonly cleanShutdown: boolean | null;
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
}

/** The verdict: damage outranks unsupported batches. */
export function verdictOf(report: VerifyReport): "clean" | "damaged" | "unsupported" {
  if (report.problems.length > 0) return "damaged";
  return report.unsupported.length > 0 ? "unsupported" : "clean";
}

const join = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

type Checkpointed = Map<string, { offset: number; byte: number }>;

/** What the root holds besides the partitions: the marker, the checkpoints, the partition list. */
interface RootFacts {
  cleanShutdown: boolean | null;
  recoveryPoints: Checkpointed;
  startOffsets: Checkpointed;
  dirs: Array<{ name: string; path: string }>;
}

/**
 * Checks `partitionDirs` under `storage` (`""` for a storage rooted at a partition directory).
 * `partitionCleanPoint`: for a partition verified alone, its clean point (gaps are legal below it).
 */
export async function verifyDir(
  storage: Storage,
  asPartition: string | undefined,
  partitionCleanPoint?: number,
): Promise<VerifyReport> {
  const notes: string[] = [];
  const problems: Problem[] = [];
  const unsupported: Problem[] = [];
  const partitions: PartitionReport[] = [];
  const root: RootFacts =
    asPartition !== undefined
      ? {
          cleanShutdown: null,
          recoveryPoints: new Map(),
          startOffsets: new Map(),
          dirs: [{ name: asPartition, path: "" }],
        }
      : await verifyRoot(storage, notes, problems);
  // Kafka's cleaner-offset-checkpoint: below each compacted log's clean point, offset gaps are
  // the cleaner's and legal, as the loader takes them (a partition verified alone: its log
  // directory's, read by the caller).
  const cleanPoints =
    asPartition === undefined ? await readCheckpoint(storage, CLEANER_CHECKPOINT) : new Map<string, number>();
  for (const dir of root.dirs) {
    const cleanPoint = asPartition === undefined ? cleanPoints.get(dir.name) : partitionCleanPoint;
    const report = await verifyPartition(storage, dir, root.cleanShutdown, cleanPoint, notes, problems);
    partitions.push(report);
    for (const f of report.files) {
      problems.push(...f.problems);
      unsupported.push(...f.unsupported);
    }
    checkCheckpoints(report, root, notes, problems);
  }
  return { cleanShutdown: root.cleanShutdown, partitions, notes, problems, unsupported };
}

/** The root of a log directory: what is not a file where a file must be, the checkpoints, leftovers. */
async function verifyRoot(storage: Storage, notes: string[], problems: Problem[]): Promise<RootFacts> {
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
    notes,
    "recovers every log from offset 0",
  );
  const startOffsets = await readCheckpointEntries(
    storage,
    LOG_START_CHECKPOINT,
    names,
    partitionCount,
    notes,
    "starts every log at its first segment",
  );
  const scan = await scanLogDir(storage, names);
  for (const { name, foreign } of scan.lookalikes)
    notes.push(
      `${name}: not a partition directory (it holds ${someNames(foreign)}, which neither pagelog nor Kafka keeps in one): not checked`,
    );
  for (const name of names)
    if (ROOT_TEMP_FILES.has(name)) notes.push(`${name}: a leftover of an interrupted write (the next open removes it)`);
  return { cleanShutdown, recoveryPoints, startOffsets, dirs: scan.partitions.map((name) => ({ name, path: name })) };
}

/** A partition's recovery point and log start offset against the offsets its segments hold. */
function checkCheckpoints(report: PartitionReport, root: RootFacts, notes: string[], problems: Problem[]): void {
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
}

/** A checkpoint's entries by partition name, with the byte each line starts at; none if absent or malformed (with a note). */
async function readCheckpointEntries(
  storage: Storage,
  file: string,
  names: string[],
  partitions: number,
  notes: string[],
  consequence: string,
): Promise<Map<string, { offset: number; byte: number }>> {
  const out = new Map<string, { offset: number; byte: number }>();
  if (!names.includes(file)) return out;
  if ((await storage.stat(file))?.kind !== "file") return out; // a problem of its own (see verifyDir)
  // Read no more than the log's own reader does: a larger file is malformed unread.
  const limit = maxCheckpointBytes(partitions);
  const { bytes, size } = await readBounded(storage, file, limit);
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

async function verifyPartition(
  storage: Storage,
  { name, path: dir }: { readonly name: string; readonly path: string },
  cleanShutdown: boolean | null,
  cleanPoint: number | undefined,
  notes: string[],
  problems: Problem[],
): Promise<PartitionReport> {
  const { segments, others } = groupSegments(await storage.list(dir));
  checkOthers(name, others, notes, problems);
  const files: FileReport[] = [];
  let previousEnd: number | undefined;
  let start: number | null = null;
  let end: number | null = null;
  let bytes = 0;
  let segmentCount = 0;
  for (const [i, segment] of segments.entries()) {
    const isLast = i === segments.length - 1;
    if (segment.log === undefined) {
      for (const orphan of [segment.index, segment.timeindex]) {
        if (orphan !== undefined) notes.push(`${join(name, orphan)}: index without a .log (the next open removes it)`);
      }
      continue;
    }
    segmentCount++;
    const logPath = join(dir, segment.log);
    const shown = join(name, segment.log);
    const scan: LogScan = await scanLog(storage, logPath, segment.baseOffset, undefined, true, cleanPoint);
    bytes += scan.size;

    const logProblems: Problem[] = scan.problems.map((p) => ({ path: shown, ...p }));
    if (scan.end.reason !== undefined && isLast && cleanShutdown !== true) {
      const last = logProblems[logProblems.length - 1]!;
      logProblems[logProblems.length - 1] = {
        ...last,
        note: "a torn tail, as a crash leaves it: the next open recovers the log and cuts it",
      };
    }
    if (previousEnd !== undefined && segment.baseOffset !== previousEnd) {
      logProblems.unshift({
        path: shown,
        byte: 0,
        problem: `segment starts at offset ${segment.baseOffset}, the previous segment ended at ${previousEnd - 1}`,
      });
    }
    previousEnd = scan.nextOffset;
    start ??= segment.baseOffset;
    end = scan.nextOffset;
    const offsets =
      scan.batches.length === 0 ? "empty" : `offsets ${scan.batches[0]!.baseOffset}-${scan.nextOffset - 1}`;
    files.push({
      path: shown,
      kind: "log",
      summary: `${plural(scan.batches.length, "batch", "batches")}, ${offsets}, ${plural(scan.size, "byte")}`,
      problems: logProblems,
      unsupported: scan.unsupported.map((u) => ({ path: shown, ...u })),
    });
    files.push(...(await verifyIndexes(storage, name, dir, { ...segment, log: segment.log }, scan, notes)));
  }
  return { name, segments: segmentCount, startOffset: start, endOffset: end, bytes, files };
}

/** A segment's `.index` and `.timeindex`, each checked entry by entry against its `.log`'s batches. */
async function verifyIndexes(
  storage: Storage,
  name: string,
  dir: string,
  segment: SegmentFiles & { log: string },
  scan: LogScan,
  notes: string[],
): Promise<FileReport[]> {
  const files: FileReport[] = [];
  for (const [kind, file] of [
    ["index", segment.index],
    ["timeindex", segment.timeindex],
  ] as const) {
    if (file === undefined) {
      notes.push(
        `${join(name, `${segment.log.slice(0, -4)}.${kind}`)}: missing (the next open rebuilds it from the .log)`,
      );
      continue;
    }
    // Streamed, and never more than the .log can need: a sparse 10 GiB index costs a chunk of
    // memory, and a run of identical bad entries (zeros) is one problem, not millions.
    const path = join(name, file);
    const indexProblems: Problem[] = [];
    const handle = await storage.open(join(dir, file), { readOnly: true });
    let walk: IndexWalk;
    try {
      walk = await walkIndex(handle, kind, scan, scan.size, (run) => {
        if (run.problem === undefined) return;
        const entrySize = kind === "index" ? OFFSET_INDEX_ENTRY_SIZE : TIME_INDEX_ENTRY_SIZE;
        const more =
          run.repeats === 0
            ? ""
            : `; the same in the ${plural(run.repeats, "identical entry", "identical entries")} after it (entries ${run.slot + 1}-${run.slot + run.repeats}, up to byte ${(run.slot + run.repeats + 1) * entrySize - 1})`;
        indexProblems.push({ path, byte: run.byte, problem: `entry ${run.slot}: ${run.problem}${more}` });
      });
    } finally {
      await handle.close();
    }
    indexProblems.push(...walk.fileProblems.map((p) => ({ path, byte: p.byte, problem: p.problem })));
    files.push({
      path: join(name, file),
      kind,
      summary: plural(walk.entries, "entry", "entries"),
      problems: indexProblems,
      unsupported: [],
    });
  }
  return files;
}

/** A partition's files that are no segment's: leftovers of a write, and a Kafka compaction's swap files. */
function checkOthers(name: string, others: readonly string[], notes: string[], problems: Problem[]): void {
  for (const other of others) {
    if (LEFTOVER.test(other))
      notes.push(`${join(name, other)}: a leftover of an interrupted write (the next open removes it)`);
    if (SWAP.test(other)) {
      problems.push({
        path: join(name, other),
        byte: 0,
        problem:
          "an interrupted compaction: the next open finishes the swap if it holds whole batches ending where a later segment starts, and otherwise refuses this log (PAGELOG_CORRUPT) without deleting it (docs/compaction.md)",
      });
    }
  }
}
