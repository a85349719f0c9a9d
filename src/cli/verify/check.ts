/**
 * `pagelog verify`'s checks over a log directory (or one partition directory), read-only:
 * every batch of every segment (framing, magic, CRC-32C, offsets continuing from the segment's
 * base offset and from the previous segment), every `.index` and `.timeindex` entry against the
 * log, and the recovery-point checkpoint against each log's end.
 */
import { decodeCheckpoint } from "../../format/checkpoint.js";
import { parsePartitionName } from "../../log/log-dir.js";
import type { Storage } from "../../storage/storage.js";
import { checkOffsetIndex, checkTimeIndex, type IndexReport, type SegmentFacts } from "../files/index-check.js";
import { readAll } from "../files/open-dir.js";
import { groupSegments, type LogScan, scanLog } from "../files/scan-log.js";

const CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
const RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
const LEFTOVER = /\.(tmp|deleted|cleaned|swap)$/;

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
  /** Every problem, in the order found. */
  readonly problems: Problem[];
}

async function readFile(storage: Storage, path: string): Promise<Uint8Array> {
  const handle = await storage.open(path, { readOnly: true });
  try {
    return await readAll(handle);
  } finally {
    await handle.close();
  }
}

const join = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Checks `partitionDirs` under `storage` (`""` for a storage rooted at a partition directory). */
export async function verifyDir(storage: Storage, asPartition: string | undefined): Promise<VerifyReport> {
  const notes: string[] = [];
  const problems: Problem[] = [];
  const partitions: PartitionReport[] = [];
  let cleanShutdown: boolean | null = null;
  let recoveryPoints = new Map<string, { offset: number; byte: number }>();
  let dirs: Array<{ name: string; path: string }>;
  if (asPartition !== undefined) {
    dirs = [{ name: asPartition, path: "" }];
  } else {
    const names = await storage.list("");
    cleanShutdown = names.includes(CLEAN_SHUTDOWN_FILE);
    recoveryPoints = await readRecoveryPoints(storage, names, notes);
    dirs = [];
    for (const name of names) {
      if (parsePartitionName(name) !== undefined && (await storage.stat(name))?.kind === "dir") dirs.push({ name, path: name });
      else if (LEFTOVER.test(name)) notes.push(`${name}: a leftover of an interrupted write (the next open removes it)`);
    }
  }
  for (const dir of dirs) {
    const report = await verifyPartition(storage, dir.name, dir.path, cleanShutdown, notes);
    partitions.push(report);
    for (const f of report.files) problems.push(...f.problems);
    const rp = recoveryPoints.get(dir.name);
    if (rp !== undefined && report.endOffset !== null && rp.offset > report.endOffset) {
      problems.push({
        path: RECOVERY_POINT_CHECKPOINT,
        byte: rp.byte,
        problem: `recovery point of ${dir.name} is ${rp.offset}, past the end of its log (${report.endOffset}): flushed records are missing`,
      });
    }
  }
  return { cleanShutdown, partitions, notes, problems };
}

async function readRecoveryPoints(storage: Storage, names: string[], notes: string[]): Promise<Map<string, { offset: number; byte: number }>> {
  const out = new Map<string, { offset: number; byte: number }>();
  if (!names.includes(RECOVERY_POINT_CHECKPOINT)) return out;
  const text = new TextDecoder().decode(await readFile(storage, RECOVERY_POINT_CHECKPOINT));
  const entries = decodeCheckpoint(text);
  if (entries === undefined) {
    notes.push(`${RECOVERY_POINT_CHECKPOINT}: malformed (the next open recovers every log from offset 0)`);
    return out;
  }
  for (const e of entries) {
    const name = `${e.topic}-${e.partition}`;
    const line = `${e.topic} ${e.partition} ${e.offset}\n`;
    out.set(name, { offset: e.offset, byte: Math.max(0, text.indexOf(line)) });
  }
  return out;
}

async function verifyPartition(storage: Storage, name: string, dir: string, cleanShutdown: boolean | null, notes: string[]): Promise<PartitionReport> {
  const { segments, others } = groupSegments(await storage.list(dir));
  for (const other of others) if (LEFTOVER.test(other)) notes.push(`${join(name, other)}: a leftover of an interrupted write (the next open removes it)`);
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
    const scan: LogScan = await scanLog(storage, logPath, segment.baseOffset);
    bytes += scan.size;
    const logProblems: Problem[] = scan.problems.map((p) => ({ path: shown, ...p }));
    if (scan.end.reason !== undefined && isLast && cleanShutdown !== true) {
      const last = logProblems[logProblems.length - 1]!;
      logProblems[logProblems.length - 1] = { ...last, note: "a torn tail, as a crash leaves it: the next open recovers the log and cuts it" };
    }
    if (previousEnd !== undefined && segment.baseOffset !== previousEnd) {
      logProblems.unshift({ path: shown, byte: 0, problem: `segment starts at offset ${segment.baseOffset}, the previous segment ended at ${previousEnd - 1}` });
    }
    previousEnd = scan.nextOffset;
    start ??= segment.baseOffset;
    end = scan.nextOffset;
    const offsets = scan.batches.length === 0 ? "empty" : `offsets ${scan.batches[0]!.baseOffset}-${scan.nextOffset - 1}`;
    files.push({ path: shown, kind: "log", summary: `${plural(scan.batches.length, "batch", "batches")}, ${offsets}, ${scan.size} bytes`, problems: logProblems });
    for (const [kind, file] of [["index", segment.index], ["timeindex", segment.timeindex]] as const) {
      if (file === undefined) {
        notes.push(`${join(name, `${segment.log.slice(0, -4)}.${kind}`)}: missing (the next open rebuilds it from the .log)`);
        continue;
      }
      const indexBytes = await readFile(storage, join(dir, file));
      const facts: SegmentFacts = scan;
      const report: IndexReport = kind === "index" ? checkOffsetIndex(indexBytes, facts) : checkTimeIndex(indexBytes, facts);
      const indexProblems: Problem[] = [
        ...report.entries.filter((e) => e.problem !== undefined).map((e) => ({ path: join(name, file), byte: e.byte, problem: `entry ${e.slot}: ${e.problem!}` })),
        ...report.fileProblems.map((p) => ({ path: join(name, file), byte: p.byte, problem: p.problem })),
      ];
      files.push({ path: join(name, file), kind, summary: plural(report.entries.length, "entry", "entries"), problems: indexProblems });
    }
  }
  return { name, segments: segmentCount, startOffset: start, endOffset: end, bytes, files };
}
