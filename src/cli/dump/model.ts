/**
 * What `pagelog dump` reports, as plain data: the text printer and `--json` both start here.
 * Built by walking the files through FsStorage; nothing is written.
 */
import { COMPRESSION_NAMES } from "../../format/batch-layout.js";
import { OFFSET_INDEX_ENTRY_SIZE } from "../../segment/offset-index.js";
import { offsetName, parseSegmentFileName } from "../../segment/segment-names.js";
import { TIME_INDEX_ENTRY_SIZE } from "../../segment/time-index.js";
import type { Storage } from "../../storage/storage.js";
import { hex32 } from "../files/batch-walk.js";
import {
  checkOffsetIndex,
  checkTimeIndex,
  type IndexEntryReport,
  indexReadLimit,
  oversizeProblem,
  type SegmentFacts,
} from "../files/index-check.js";
import { readBounded } from "../files/open-dir.js";
import { decodeLikeRead, groupSegments, type LogScan, scanLog } from "../files/scan-log.js";

export interface DumpedRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  keyEncoding: "utf8" | "hex";
  value: string | null;
  valueEncoding: "utf8" | "hex";
  headers: Array<{ key: string; value: string | null; valueEncoding: "utf8" | "hex" }>;
}

export interface DumpedBatch {
  position: number;
  baseOffset: number;
  lastOffset: number;
  count: number;
  size: number;
  magic: number;
  crc: string;
  crcValid: boolean;
  compression: string;
  timestampType: "CreateTime" | "LogAppendTime";
  baseTimestamp: number;
  maxTimestamp: number;
  partitionLeaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
  /** Problems with this batch (CRC, offsets not continuing the previous batch, records that cannot be decoded). */
  problems: string[];
  /** Why pagelog cannot read this batch although it is not known to be damaged (snappy, lz4, zstd). */
  unsupported?: string;
  /** With --records. */
  records?: DumpedRecord[];
  /** With --records, when the records could not be decoded (damaged, or unsupported). */
  recordsError?: string;
}

export type DumpedFile =
  | {
      kind: "log";
      path: string;
      baseOffset: number;
      size: number;
      batches: DumpedBatch[];
      /** Where the walk stopped before the end of the file, and why; null if it reached the end. */
      trailing: { position: number; bytes: number; reason: string; detail: string } | null;
    }
  | {
      kind: "index" | "timeindex";
      path: string;
      size: number;
      /** The `.log` the entries were checked against, or null if there is none. */
      checkedAgainst: string | null;
      entries: IndexEntryReport[];
      fileProblems: Array<{ byte: number; problem: string }>;
    };

export interface Dump {
  files: DumpedFile[];
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });
// Control characters other than tab, newline and carriage return make a value "not printable".
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** UTF-8 text when the bytes are printable UTF-8, hex otherwise. */
export function showBytes(bytes: Uint8Array | null): { text: string | null; encoding: "utf8" | "hex" } {
  if (bytes === null) return { text: null, encoding: "utf8" };
  try {
    const text = fatalUtf8.decode(bytes);
    if (!CONTROL.test(text)) return { text, encoding: "utf8" };
  } catch {
    // not UTF-8: hex below
  }
  return { text: Buffer.from(bytes).toString("hex"), encoding: "hex" };
}

/** Dumps one file (`name` inside `dir`), or every segment file of the partition directory `dir` when `name` is undefined. */
export async function buildDump(
  storage: Storage,
  dir: string,
  name: string | undefined,
  withRecords: boolean,
): Promise<Dump> {
  const names = name === undefined ? await storage.list(dir) : [name];
  const join = (n: string) => (dir === "" ? n : `${dir}/${n}`);
  const files: DumpedFile[] = [];
  const { segments, others } = groupSegments(names);
  if (name !== undefined && others.length === 1) {
    // A file whose name is not a segment's (a copied vector, say): read it as a .log from offset 0.
    files.push(await dumpLog(storage, join(name), 0, withRecords).then((r) => r.file));
    return { files };
  }
  for (const segment of segments) {
    let facts: LogScan | undefined;
    if (segment.log !== undefined) {
      const { file, scan } = await dumpLog(storage, join(segment.log), segment.baseOffset, withRecords);
      files.push(file);
      facts = scan;
    } else if (segment.index !== undefined || segment.timeindex !== undefined) {
      // An index asked for alone: check it against its .log if that is there.
      const logName = `${offsetName(segment.baseOffset)}.log`;
      if ((await storage.stat(join(logName)))?.kind === "file")
        facts = await scanLog(storage, join(logName), segment.baseOffset);
    }
    const against = facts === undefined ? null : `${offsetName(segment.baseOffset)}.log`;
    const none: SegmentFacts = {
      baseOffset: segment.baseOffset,
      batches: [],
      nextOffset: segment.baseOffset,
      hasLog: false,
    };
    for (const [kind, file] of [
      ["index", segment.index],
      ["timeindex", segment.timeindex],
    ] as const) {
      if (file === undefined) continue;
      // Never more than the .log can need (a sparse 10 GiB index costs its first bytes, not 10 GiB).
      const entrySize = kind === "index" ? OFFSET_INDEX_ENTRY_SIZE : TIME_INDEX_ENTRY_SIZE;
      const limit = indexReadLimit(entrySize, facts?.size);
      const { bytes, size } = await readBounded(storage, join(file), limit);
      const report = kind === "index" ? checkOffsetIndex(bytes, facts ?? none) : checkTimeIndex(bytes, facts ?? none);
      const fileProblems =
        size > bytes.length
          ? [...report.fileProblems, oversizeProblem(size, bytes.length, entrySize, facts?.size)]
          : report.fileProblems;
      files.push({ kind, path: join(file), size, checkedAgainst: against, entries: report.entries, fileProblems });
    }
  }
  return { files };
}

async function dumpLog(storage: Storage, path: string, baseOffset: number, withRecords: boolean) {
  const batches: DumpedBatch[] = [];
  const scan = await scanLog(storage, path, baseOffset, async ({ batch, problems, unsupported, decoded }) => {
    const h = batch.header;
    const dumped: DumpedBatch = {
      position: batch.position,
      baseOffset: h.baseOffset,
      lastOffset: h.lastOffset,
      count: h.recordsCount,
      size: h.sizeInBytes,
      magic: h.magic,
      crc: hex32(h.crc),
      crcValid: batch.crcValid,
      compression: COMPRESSION_NAMES[h.compression] ?? `unknown(${h.compression})`,
      timestampType: h.isLogAppendTime ? "LogAppendTime" : "CreateTime",
      baseTimestamp: h.baseTimestamp,
      maxTimestamp: h.maxTimestamp,
      partitionLeaderEpoch: h.partitionLeaderEpoch,
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      baseSequence: h.baseSequence,
      isTransactional: h.isTransactional,
      isControl: h.isControl,
      problems,
      ...(unsupported === undefined ? {} : { unsupported }),
    };
    if (withRecords) {
      // A batch whose CRC fails is still decoded for display, as far as its bytes allow.
      let shown = decoded;
      let error = unsupported;
      if (shown === undefined && !batch.crcValid) {
        const attempt = await decodeLikeRead(batch.bytes);
        if ("decoded" in attempt) shown = attempt.decoded;
        else error = "corrupt" in attempt ? attempt.corrupt : attempt.unsupported;
      }
      if (shown === undefined) {
        dumped.recordsError = error ?? problems[problems.length - 1] ?? "not decoded";
      } else {
        dumped.records = shown.records.map((r) => {
          const key = showBytes(r.key);
          const value = showBytes(r.value);
          return {
            offset: r.offset,
            timestamp: r.timestamp,
            key: key.text,
            keyEncoding: key.encoding,
            value: value.text,
            valueEncoding: value.encoding,
            headers: r.headers.map((hd) => {
              const v = showBytes(hd.value);
              return { key: hd.key, value: v.text, valueEncoding: v.encoding };
            }),
          };
        });
      }
    }
    batches.push(dumped);
  });
  const trailing =
    scan.end.reason === undefined
      ? null
      : {
          position: scan.end.position,
          bytes: scan.size - scan.end.position,
          reason: scan.end.reason,
          detail: scan.end.detail,
        };
  const file: DumpedFile = { kind: "log", path, baseOffset, size: scan.size, batches, trailing };
  return { file, scan };
}

/** True if `name` is a segment file name (for the "is this a partition directory" check). */
export function isSegmentFile(name: string): boolean {
  return parseSegmentFileName(name) !== undefined;
}
