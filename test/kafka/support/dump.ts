// Reads what Kafka's DumpLogSegments (through PagelogProbe, test/kafka/java) printed: per file, its
// batches, records, index entries, and every line that reports a problem.
import type { ProbeCall } from "../../../scripts/kafka.mjs";
import type { PlainRecord } from "./segments.js";

export interface DumpedBatch {
  baseOffset: number;
  lastOffset: number;
  count: number;
  position: number;
  isvalid: string;
  compresscodec: string;
  magic: number;
  /** The header's largest timestamp (printed as CreateTime). */
  maxTimestamp: number;
  /** The stored CRC (printed in decimal). */
  crc: number;
  producerId: number;
  producerEpoch: number;
  isTransactional: boolean;
  isControl: boolean;
}

/**
 * A record as DumpLogSegments prints it: header keys only (it prints no header values). A control
 * record's key and value are not printed but what they say (`control`: `endTxnMarker: COMMIT
 * coordinatorEpoch: 0`, a KRaft `LeaderChange: …`): then `key` and `value` are null.
 */
export interface DumpedRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headerKeys: string;
  control?: string;
}

export interface DumpedFile {
  batches: DumpedBatch[];
  records: DumpedRecord[];
  /** `offset: N position: P` of an .index, `timestamp: T offset: O` of a .timeindex. */
  entries: string[];
  /** Lines that report damage: invalid bytes, index mismatches, failed sanity checks, errors. */
  problems: string[];
  /** Other lines (headers, "passed sanity check", …). */
  other: string[];
}

const PROBLEM = /mismatch|invalid|non-consecutive|out of order|error|exception|corrupt|failed/i;

function fields(line: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of line.matchAll(/(\w+): (\S*)/g)) if (!out.has(m[1]!)) out.set(m[1]!, m[2]!);
  return out;
}

/** The bytes a `--key/--value-decoder-class PagelogProbe$Hex` field printed, or null when the size was -1. */
function bytesField(line: string, name: "key" | "payload", size: number): string | null {
  if (size < 0) return null;
  const m = new RegExp(` ${name}: hex:([0-9a-f]*)`).exec(line);
  if (m === null) throw new Error(`no ${name} in a record of size ${size}: ${line}`);
  return m[1]!;
}

function parseRecord(line: string): DumpedRecord {
  const f = fields(line);
  const keySize = Number(f.get("keySize"));
  const valueSize = Number(f.get("valueSize"));
  // A control record: what its key and value say, in place of them.
  const control = /headerKeys: \[[^\]]*\] (?!key: |payload: )(.+)$/.exec(line)?.[1];
  if (control !== undefined && !/ (key|payload): hex:/.test(line))
    return {
      offset: Number(f.get("offset")),
      timestamp: Number(f.get("CreateTime")),
      key: null,
      value: null,
      headerKeys: /headerKeys: \[([^\]]*)\]/.exec(line)?.[1] ?? "?",
      control,
    };
  return {
    offset: Number(f.get("offset")),
    timestamp: Number(f.get("CreateTime")),
    key: bytesField(line, "key", keySize),
    value: bytesField(line, "payload", valueSize),
    headerKeys: /headerKeys: \[([^\]]*)\]/.exec(line)?.[1] ?? "?",
  };
}

function parseBatch(line: string): DumpedBatch {
  const f = fields(line);
  return {
    baseOffset: Number(f.get("baseOffset")),
    lastOffset: Number(f.get("lastOffset")),
    count: Number(f.get("count")),
    position: Number(f.get("position")),
    isvalid: f.get("isvalid") ?? "?",
    compresscodec: f.get("compresscodec") ?? "?",
    magic: Number(f.get("magic")),
    maxTimestamp: Number(f.get("CreateTime") ?? f.get("LogAppendTime")),
    crc: Number(f.get("crc")),
    producerId: Number(f.get("producerId")),
    producerEpoch: Number(f.get("producerEpoch")),
    isTransactional: f.get("isTransactional") === "true",
    isControl: f.get("isControl") === "true",
  };
}

/** DumpLogSegments over `files` with every batch and record, keys and values in hex (PagelogProbe$Hex). */
export function deepDumpCall(files: readonly string[]): ProbeCall {
  const hexDecoder = "PagelogProbe$Hex";
  return [
    "dump",
    "--deep-iteration",
    "--print-data-log",
    "--key-decoder-class",
    hexDecoder,
    "--value-decoder-class",
    hexDecoder,
    "--files",
    files.join(","),
  ];
}

/**
 * One dump call's lines, by file (`Dumping <path>` starts one). Lines before any file, and the
 * summary lines DumpLogSegments prints after all files (index mismatches), go to the file they
 * name, or to "" when they name none.
 */
export function parseDump(lines: readonly string[]): Map<string, DumpedFile> {
  const files = new Map<string, DumpedFile>();
  const file = (path: string): DumpedFile => {
    let f = files.get(path);
    if (f === undefined) files.set(path, (f = { batches: [], records: [], entries: [], problems: [], other: [] }));
    return f;
  };
  let current = "";
  // The file the last problem line named: its indented detail lines ("  Index offset: …") follow.
  let problemFile = "";
  for (const line of lines) {
    if (line === "") continue;
    if (line.startsWith("  ") && problemFile !== "") {
      file(problemFile).problems.push(line);
      continue;
    }
    problemFile = "";
    const dumping = /^Dumping (.+)$/.exec(line);
    if (dumping !== null) {
      current = dumping[1]!;
      file(current);
    } else if (line.startsWith("baseOffset: ")) file(current).batches.push(parseBatch(line));
    else if (line.startsWith("| offset: ")) file(current).records.push(parseRecord(line));
    else if (/^(offset: \d+ position: \d+|timestamp: -?\d+ offset: \d+)$/.test(line)) file(current).entries.push(line);
    else if (PROBLEM.test(line) && !/passed sanity check/.test(line)) {
      // A summary line naming a file ("Mismatches in :/path/x.index", "Non-consecutive offsets
      // in /path/x.log") belongs to that file.
      const named = /(?::|offsets in )(\/\S+)$/.exec(line)?.[1];
      problemFile = named ?? current;
      file(problemFile).problems.push(line);
    } else file(current).other.push(line);
  }
  return files;
}

/**
 * DumpLogSegments' problems less its "Non-consecutive offsets" report of gaps the broker's cleaner
 * left (pagelog's compacted segments; a broker's `__consumer_offsets` whenever its cleaner ran
 * before it stopped: timing), each pair kept only if `offsets` (the file's records, in order) do
 * not show the same gap: a gap a cleaner left is the file's content, not damage.
 */
export function gapsBesides(problems: readonly string[], offsets: readonly number[]): string[] {
  const gaps = new Set(offsets.slice(1).map((offset, i) => `${offsets[i]} is followed by ${offset}`));
  return problems.filter((line) => {
    if (/^Non-consecutive offsets in /i.test(line.trim())) return false;
    const pair = /^(\d+) is followed by (\d+)$/.exec(line.trim());
    return pair === null || !gaps.has(`${pair[1]} is followed by ${pair[2]}`);
  });
}

/** PagelogProbe's `records` lines (kafka-clients' FileRecords, header values included). */
export function parseProbeRecords(lines: readonly string[]): PlainRecord[] {
  return lines
    .filter((l) => l.startsWith("{"))
    .map((l) => {
      const r = JSON.parse(l) as Omit<PlainRecord, "headers"> & { headers: Array<[string, string | null]> };
      return { ...r, headers: r.headers };
    });
}

/**
 * A time index's problems less the one DumpLogSegments reports wrongly: an entry that points at a
 * batch left empty by the cleaner (count 0) with the batch header's largest timestamp. The tool
 * takes the largest timestamp over the batch's records, -1 for none, and calls the entry a
 * mismatch; Kafka's own cleaner writes the same entry for an empty batch it keeps (it keeps the
 * header's maxTimestamp, and LogSegment.append indexes batch headers), so both writers agree and
 * only the checker differs. Any other problem, or such a line without its empty batch, is kept.
 */
export function unexplainedTimeIndexProblems(problems: readonly string[], log: DumpedFile | undefined): string[] {
  // DumpLogSegments prints "Found timestamp mismatch in :<file>" once, then one "  Index
  // timestamp: …, log timestamp: …" line per mismatching entry of that file.
  const explained = (detail: string): boolean => {
    const m = /^ {2}Index timestamp: (-?\d+), log timestamp: -1$/.exec(detail);
    return m !== null && log?.batches.some((b) => b.count === 0 && b.maxTimestamp === Number(m[1])) === true;
  };
  const out: string[] = [];
  for (let i = 0; i < problems.length; i++) {
    const line = problems[i]!;
    if (!/^Found timestamp mismatch in :/.test(line)) {
      out.push(line);
      continue;
    }
    const details: string[] = [];
    while (i + 1 < problems.length && /^ {2}Index timestamp: /.test(problems[i + 1]!)) details.push(problems[++i]!);
    const unexplained = details.filter((d) => !explained(d));
    if (details.length === 0 || unexplained.length > 0) out.push(line, ...unexplained);
  }
  return out;
}
