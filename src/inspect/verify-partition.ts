/**
 * `pagelog verify`'s checks of one partition directory: every segment's `.log` scanned batch by
 * batch, its `.index` and `.timeindex` entry by entry against it, and the files the loader
 * removes or must finish (leftovers, `.swap`).
 *
 * The directory may be changing as it is read. A file listed and gone when opened is a note (a
 * roll, the cleaner or retention removed it); one that cannot be read (EACCES, not a regular
 * file) is a problem naming it. With a live writer holding the lock, what it is doing explains
 * some findings: the active segment's tail being written, index entries for batches appended
 * after the `.log` was read, a `.swap` of a compaction in progress. Those are `inProgress`, not
 * damage.
 */
import { cleanedAway } from "../segment/batch-scanner.js";
import { OFFSET_INDEX_ENTRY_SIZE } from "../segment/offset-index.js";
import { TIME_INDEX_ENTRY_SIZE } from "../segment/time-index.js";
import type { Storage } from "../storage/storage.js";
import { type IndexWalk, walkIndex } from "./index-check.js";
import { groupSegments, type LogScan, scanLog, type SegmentFiles } from "./scan-log.js";
import { plural } from "../text/plural.js";
import {
  type FileReport,
  type Findings,
  type PartitionReport,
  type Problem,
  unreadable,
  vanished,
  vanishedNote,
} from "./verify-types.js";

/** Left by an interrupted write, or a deletion (Kafka's `.deleted`), in a partition: the next writable open removes them. */
const LEFTOVER = /\.(tmp|deleted|cleaned)$/;
/** An interrupted compaction: the loader finishes it, or refuses the partition (compaction/complete-swaps.ts). */
const SWAP = /\.swap$/;

const join = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/** A file that could not be read: a problem naming it (opening the log would fail on it too). */
function cannotRead(path: string, err: Error): Problem {
  return { path, byte: 0, problem: `cannot be read: ${err.message}` };
}

/**
 * The problem of a segment at `base` after one that ended before `previousEnd`, if it does not
 * continue it; below the clean point the cleaner may have dropped a segment's last batches
 * (`cleanedAway`), so a gap wholly below it is no problem.
 */
function segmentGap(previousEnd: number | undefined, base: number, cleanPoint: number | undefined): string | undefined {
  if (previousEnd === undefined || base === previousEnd || cleanedAway(previousEnd, base, cleanPoint)) return undefined;
  return `segment starts at offset ${base}, the previous segment ended at ${previousEnd - 1}`;
}

/**
 * Checks one partition directory (`path` in `storage`, shown as `name`); undefined if it was
 * removed while verify ran, or could not be listed (then a problem says so).
 */
export async function verifyPartition(
  storage: Storage,
  { name, path: dir }: { readonly name: string; readonly path: string },
  cleanShutdown: boolean | null,
  cleanPoint: number | undefined,
  found: Findings,
): Promise<PartitionReport | undefined> {
  let names: string[];
  try {
    names = await storage.list(dir);
  } catch (err) {
    if (vanished(err)) found.notes.push(vanishedNote(name));
    else if (unreadable(err)) found.problems.push(cannotRead(name, err));
    else throw err;
    return undefined;
  }
  const { segments, others } = groupSegments(names);
  checkOthers(name, others, found);
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
        if (orphan !== undefined)
          found.notes.push(`${join(name, orphan)}: index without a .log (the next open removes it)`);
      }
      continue;
    }
    const logPath = join(dir, segment.log);
    const shown = join(name, segment.log);
    let scan: LogScan;
    try {
      scan = await scanLog(storage, logPath, segment.baseOffset, undefined, true, cleanPoint);
    } catch (err) {
      if (vanished(err)) found.notes.push(vanishedNote(shown));
      else if (unreadable(err)) files.push(unreadableFile(shown, "log", err));
      else throw err;
      // Offsets cannot be followed across a segment not read. One removed was the oldest left
      // (retention and the cleaner go oldest first): the log now starts after it.
      previousEnd = undefined;
      if (vanished(err)) start = null;
      else start ??= segment.baseOffset;
      continue;
    }
    segmentCount++;
    bytes += scan.size;
    // The active segment of a log a live writer holds: its tail may be mid-write, its indexes ahead of what was read.
    const active = isLast && found.writer !== undefined;
    const logProblems = judgeLog(scan, shown, { active, isLast, cleanShutdown }, found);
    const gap = segmentGap(previousEnd, segment.baseOffset, cleanPoint);
    if (gap !== undefined) logProblems.unshift({ path: shown, byte: 0, problem: gap });
    previousEnd = scan.nextOffset;
    start ??= segment.baseOffset;
    end = scan.nextOffset;
    files.push(logReport(scan, shown, logProblems));
    files.push(...(await verifyIndexes(storage, name, dir, { ...segment, log: segment.log }, scan, active, found)));
  }
  return { name, segments: segmentCount, startOffset: start, endOffset: end, bytes, files };
}

/**
 * The problems of one scanned `.log`, its tail judged by who may be writing it: the active
 * segment of a live writer's log is in progress, the last segment after a crash is a torn tail.
 */
function judgeLog(
  scan: LogScan,
  shown: string,
  { active, isLast, cleanShutdown }: { active: boolean; isLast: boolean; cleanShutdown: boolean | null },
  found: Findings,
): Problem[] {
  const logProblems: Problem[] = scan.problems.map((p) => ({ path: shown, ...p }));
  if (scan.end.reason !== undefined && active) {
    const tail = logProblems.pop()!;
    found.inProgress.push({
      ...tail,
      note: `the active segment's tail, which process ${found.writer} is writing: expected while it runs (a crash now would leave it torn, and the next open would cut it)`,
    });
  } else if (scan.end.reason !== undefined && isLast && cleanShutdown !== true) {
    const last = logProblems[logProblems.length - 1]!;
    logProblems[logProblems.length - 1] = {
      ...last,
      note: "a torn tail, as a crash leaves it: the next open recovers the log and cuts it",
    };
  }
  return logProblems;
}

/** A scanned `.log`'s line of the report: its batches, offsets and size, and what is wrong. */
function logReport(scan: LogScan, shown: string, problems: Problem[]): FileReport {
  const offsets = scan.batches.length === 0 ? "empty" : `offsets ${scan.batches[0]!.baseOffset}-${scan.nextOffset - 1}`;
  return {
    path: shown,
    kind: "log",
    summary: `${plural(scan.batches.length, "batch", "batches")}, ${offsets}, ${plural(scan.size, "byte")}`,
    problems,
    unsupported: scan.unsupported.map((u) => ({ path: shown, ...u })),
  };
}

function unreadableFile(path: string, kind: FileReport["kind"], err: Error): FileReport {
  return { path, kind, summary: "unreadable", problems: [cannotRead(path, err)], unsupported: [] };
}

/**
 * A segment's `.index` and `.timeindex`, each checked entry by entry against its `.log`'s batches.
 * `active`: the segment a live writer appends to, whose index may hold entries for batches
 * appended after the `.log` was read (and a last entry half written): in progress, not damage.
 */
async function verifyIndexes(
  storage: Storage,
  name: string,
  dir: string,
  segment: SegmentFiles & { log: string },
  scan: LogScan,
  active: boolean,
  found: Findings,
): Promise<FileReport[]> {
  const files: FileReport[] = [];
  for (const [kind, file] of [
    ["index", segment.index],
    ["timeindex", segment.timeindex],
  ] as const) {
    const path = join(name, file ?? `${segment.log.slice(0, -4)}.${kind}`);
    if (file === undefined) {
      found.notes.push(`${path}: missing (the next open rebuilds it from the .log)`);
      continue;
    }
    let handle;
    try {
      handle = await storage.open(join(dir, file), { readOnly: true });
    } catch (err) {
      if (vanished(err)) found.notes.push(vanishedNote(path));
      else if (unreadable(err)) files.push(unreadableFile(path, kind, err));
      else throw err;
      continue;
    }
    // Streamed, and never more than the .log can need: a sparse 10 GiB index costs a chunk of
    // memory, and a run of identical bad entries (zeros) is one problem, not millions.
    const indexProblems: Problem[] = [];
    let walk: IndexWalk;
    try {
      walk = await walkIndex(handle, kind, scan, scan.size, (run) => {
        if (run.problem === undefined) return;
        const entrySize = kind === "index" ? OFFSET_INDEX_ENTRY_SIZE : TIME_INDEX_ENTRY_SIZE;
        const more =
          run.repeats === 0
            ? ""
            : `; the same in the ${plural(run.repeats, "identical entry", "identical entries")} after it (entries ${run.slot + 1}-${run.slot + run.repeats}, up to byte ${(run.slot + run.repeats + 1) * entrySize - 1})`;
        const problem = { path, byte: run.byte, problem: `entry ${run.slot}: ${run.problem}${more}` };
        if (active && run.offset >= scan.nextOffset) found.inProgress.push({ ...problem, note: AHEAD });
        else indexProblems.push(problem);
      });
    } catch (err) {
      if (!unreadable(err)) throw err;
      files.push(unreadableFile(path, kind, err));
      continue;
    } finally {
      await handle.close();
    }
    const fileProblems = walk.fileProblems.map((p) => ({ path, byte: p.byte, problem: p.problem }));
    if (active) found.inProgress.push(...fileProblems.map((p) => ({ ...p, note: AHEAD })));
    else indexProblems.push(...fileProblems);
    files.push({
      path,
      kind,
      summary: plural(walk.entries, "entry", "entries"),
      problems: indexProblems,
      unsupported: [],
    });
  }
  return files;
}

const AHEAD = "an entry the live writer added after verify read the .log (or is still writing): expected while it runs";

/** A partition's files that are no segment's: leftovers of a write, and a Kafka compaction's swap files. */
function checkOthers(name: string, others: readonly string[], found: Findings): void {
  for (const other of others) {
    if (LEFTOVER.test(other))
      found.notes.push(
        `${join(name, other)}: ${other.endsWith(".deleted") ? "a deleted segment's file (Kafka's broker leaves them for a minute)" : "a leftover of an interrupted write"}: not checked (the next writable open removes it)`,
      );
    if (!SWAP.test(other)) continue;
    const problem = {
      path: join(name, other),
      byte: 0,
      problem:
        "an interrupted compaction: the next open finishes the swap if it holds whole batches ending where a later segment starts, and otherwise refuses this log (PAGELOG_CORRUPT) without deleting it (docs/compaction.md)",
    };
    if (found.writer === undefined) found.problems.push(problem);
    else
      found.inProgress.push({
        ...problem,
        note: `process ${found.writer} holds the lock: a compaction it is running, expected while it runs`,
      });
  }
}
