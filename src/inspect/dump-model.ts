/**
 * What `pagelog dump` reports, as plain data streamed to a sink: the text printer and `--json`
 * both start here. Read by walking the files through FsStorage; nothing is written.
 */
import { COMPRESSION_NAMES } from "../format/batch-layout.js";
import { offsetName } from "../segment/segment-names.js";
import type { Storage } from "../storage/storage.js";
import { hex32 } from "./batch-walk.js";
import { type IndexRun, type IndexWalk, type SegmentFacts, walkIndex } from "./index-check.js";
import { type BatchFinding, decodeLikeRead, groupSegments, type LogScan, scanLog } from "./scan-log.js";

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

/** A `.log` as dump sees it before its batches: where it is and how large. */
export interface DumpedLogStart {
  kind: "log";
  path: string;
  baseOffset: number;
  size: number;
}

/** A `.log` after its last batch. */
export interface DumpedLogEnd {
  /** Where the walk stopped before the end of the file, and why; null if it reached the end. */
  trailing: { position: number; bytes: number; reason: string; detail: string } | null;
  batches: number;
  /** Batches with a problem. */
  damaged: number;
  /** Batches pagelog cannot read (snappy, lz4, zstd). */
  unreadable: number;
  firstOffset: number | null;
  lastOffset: number | null;
}

/** An `.index` or `.timeindex` as dump sees it before its entries. */
export interface DumpedIndexStart {
  kind: "index" | "timeindex";
  path: string;
  size: number;
  /** The `.log` the entries were checked against, or null if there is none. */
  checkedAgainst: string | null;
}

/**
 * Where dump sends what it reads, file by file and batch by batch as it goes, so that memory
 * holds one batch or one chunk of index entries, never a whole file (the text and JSON printers
 * implement it). Each call may return a promise: the walk waits for it (a slow pipe holds it back).
 */
export interface DumpSink {
  logStart(file: DumpedLogStart): void | Promise<void>;
  batch(batch: DumpedBatch): void | Promise<void>;
  logEnd(end: DumpedLogEnd): void | Promise<void>;
  indexStart(file: DumpedIndexStart): void | Promise<void>;
  /** An entry, and how many identical entries follow it (`repeats`). */
  entry(run: IndexRun): void | Promise<void>;
  indexEnd(end: IndexWalk): void | Promise<void>;
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

/**
 * Dumps one file (`name` inside `dir`), or every segment file of the partition directory `dir`
 * when `name` is undefined, to `sink`. `shown` turns a storage path into the path printed.
 * `gapsBelow`: the partition's clean point (its log directory's `cleaner-offset-checkpoint`),
 * below which a batch skipping offsets is the cleaner's doing, not a problem (as the loader takes it).
 */
export async function streamDump(
  storage: Storage,
  dir: string,
  name: string | undefined,
  withRecords: boolean,
  sink: DumpSink,
  shown: (path: string) => string = (path) => path,
  gapsBelow?: number,
): Promise<void> {
  const names = name === undefined ? await storage.list(dir) : [name];
  const join = (n: string) => (dir === "" ? n : `${dir}/${n}`);
  const { segments, others } = groupSegments(names);
  if (name !== undefined && others.length === 1) {
    // A file whose name is not a segment's (a copied vector, say): read it as a .log from offset 0.
    await dumpLog(storage, join(name), shown(join(name)), 0, withRecords, sink, { gapsBelow });
    return;
  }
  for (const segment of segments) {
    let facts: LogScan | undefined;
    if (segment.log !== undefined) {
      facts = await dumpLog(
        storage,
        join(segment.log),
        shown(join(segment.log)),
        segment.baseOffset,
        withRecords,
        sink,
        // Batch summaries only when an index beside it is checked against them.
        { keepBatches: segment.index !== undefined || segment.timeindex !== undefined, gapsBelow },
      );
    } else if (segment.index !== undefined || segment.timeindex !== undefined) {
      // An index asked for alone: check it against its .log if that is there.
      const logName = `${offsetName(segment.baseOffset)}.log`;
      if ((await storage.stat(join(logName)))?.kind === "file")
        facts = await scanLog(storage, join(logName), segment.baseOffset);
    }
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
      const handle = await storage.open(join(file), { readOnly: true });
      try {
        await sink.indexStart({
          kind,
          path: shown(join(file)),
          size: await handle.size(),
          checkedAgainst: facts === undefined ? null : `${offsetName(segment.baseOffset)}.log`,
        });
        // Streamed, and never more than the .log can need (a sparse 10 GiB index costs a chunk).
        const walk = await walkIndex(handle, kind, facts ?? none, facts?.size, (run) => sink.entry(run));
        await sink.indexEnd(walk);
      } finally {
        await handle.close();
      }
    }
  }
}

async function dumpLog(
  storage: Storage,
  path: string,
  shownPath: string,
  baseOffset: number,
  withRecords: boolean,
  sink: DumpSink,
  { keepBatches = false, gapsBelow }: { keepBatches?: boolean; gapsBelow?: number | undefined } = {},
): Promise<LogScan> {
  const stat = await storage.stat(path);
  await sink.logStart({ kind: "log", path: shownPath, baseOffset, size: stat?.kind === "file" ? stat.size : 0 });
  let count = 0;
  let damaged = 0;
  let unreadable = 0;
  let firstOffset: number | null = null;
  let lastOffset: number | null = null;
  const scan = await scanLog(
    storage,
    path,
    baseOffset,
    async (finding) => {
      const h = finding.batch.header;
      const dumped = dumpedBatch(finding);
      if (withRecords) await addRecords(dumped, finding);
      count++;
      if (finding.problems.length > 0) damaged++;
      if (finding.unsupported !== undefined) unreadable++;
      firstOffset ??= h.baseOffset;
      lastOffset = h.lastOffset;
      await sink.batch(dumped);
    },
    keepBatches,
    gapsBelow,
  );
  const trailing =
    scan.end.reason === undefined
      ? null
      : {
          position: scan.end.position,
          bytes: scan.size - scan.end.position,
          reason: scan.end.reason,
          detail: scan.end.detail,
        };
  await sink.logEnd({ trailing, batches: count, damaged, unreadable, firstOffset, lastOffset });
  return scan;
}

/** What a dump shows of one batch's header and checks. */
function dumpedBatch({ batch, problems, unsupported }: BatchFinding): DumpedBatch {
  const h = batch.header;
  return {
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
}

/** The batch's records as a dump shows them, or why they cannot be shown (`recordsError`). */
async function addRecords(dumped: DumpedBatch, { batch, problems, unsupported, decoded }: BatchFinding): Promise<void> {
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
    return;
  }
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
