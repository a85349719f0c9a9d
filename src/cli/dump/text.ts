/** `pagelog dump`'s text output, in the spirit of Kafka's `kafka-dump-log`: one line per batch, `| ` lines per record. */
import type { IndexRun, IndexWalk } from "../../inspect/index-check.js";
import type { Output } from "../terminal/output.js";
import { plural } from "../../text/plural.js";
import type {
  DumpedBatch,
  DumpedIndexStart,
  DumpedLogEnd,
  DumpedLogStart,
  DumpedRecord,
  DumpSink,
} from "../../inspect/dump-model.js";

function quoted(text: string | null, encoding: "utf8" | "hex"): string {
  if (text === null) return "null";
  return encoding === "hex" ? `0x${text}` : JSON.stringify(text);
}

function batchLine(b: DumpedBatch): string {
  return [
    `baseOffset: ${b.baseOffset}`,
    `lastOffset: ${b.lastOffset}`,
    `count: ${b.count}`,
    `position: ${b.position}`,
    `size: ${b.size}`,
    `${b.timestampType}: ${b.maxTimestamp}`,
    `baseTimestamp: ${b.baseTimestamp}`,
    `compresscodec: ${b.compression}`,
    `crc: ${b.crc}`,
    `isvalid: ${b.crcValid}`,
    `magic: ${b.magic}`,
    `partitionLeaderEpoch: ${b.partitionLeaderEpoch}`,
    `producerId: ${b.producerId}`,
    `producerEpoch: ${b.producerEpoch}`,
    `baseSequence: ${b.baseSequence}`,
    `isTransactional: ${b.isTransactional}`,
    `isControl: ${b.isControl}`,
  ].join(" ");
}

function recordLine(r: DumpedRecord, timestampType: string): string {
  const headers = r.headers.map((h) => `${JSON.stringify(h.key)}=${quoted(h.value, h.valueEncoding)}`);
  return `| offset: ${r.offset} ${timestampType}: ${r.timestamp} key: ${quoted(r.key, r.keyEncoding)} payload: ${quoted(r.value, r.valueEncoding)} headers: [${headers.join(", ")}]`;
}

/** Prints each file as it is read; files are separated by a blank line. */
export function textSink(out: Output): DumpSink {
  let files = 0;
  let index: DumpedIndexStart | undefined;
  let logSize = 0;
  const line = (text: string) => out.write(`${text}\n`);
  const start = (path: string) => {
    if (files++ > 0) line("");
    line(`Dumping ${path}`);
  };
  return {
    logStart(f: DumpedLogStart) {
      start(f.path);
      logSize = f.size;
      line(`Starting offset: ${f.baseOffset}`);
    },
    async batch(b: DumpedBatch) {
      line(batchLine(b));
      for (const p of b.problems) line(`  DAMAGED at byte ${b.position}: ${p}`);
      if (b.unsupported !== undefined) line(`  UNSUPPORTED at byte ${b.position}: ${b.unsupported}`);
      for (const r of b.records ?? []) line(recordLine(r, b.timestampType));
      if (b.recordsError !== undefined) line(`| records not decoded: ${b.recordsError}`);
      await out.drain();
    },
    logEnd(end: DumpedLogEnd) {
      for (const text of logEndLines(end, logSize)) line(text);
    },
    indexStart(f: DumpedIndexStart) {
      index = f;
      start(f.path);
      line(
        f.checkedAgainst === null
          ? "(no .log beside it: entries not checked)"
          : `(entries checked against ${f.checkedAgainst})`,
      );
    },
    async entry(e: IndexRun) {
      for (const text of entryLines(e, index)) line(text);
      await out.drain();
    },
    indexEnd(end: IndexWalk) {
      for (const p of end.fileProblems) line(`DAMAGED at byte ${p.byte}: ${p.problem}`);
      const problems = end.mismatches + end.fileProblems.length;
      line(
        `Summary: ${plural(end.entries, "entry", "entries")}, ${plural(end.size, "byte")}; ${problems === 0 ? "consistent" : plural(problems, "problem")}`,
      );
    },
  };
}

/** The end of a `.log`: its trailing bytes, if any, then its summary. */
function logEndLines(end: DumpedLogEnd, logSize: number): string[] {
  const lines: string[] = [];
  if (end.trailing !== null)
    lines.push(
      `${plural(end.trailing.bytes, "byte")} at position ${end.trailing.position} ${end.trailing.bytes === 1 ? "is" : "are"} not a whole batch: ${end.trailing.detail}`,
    );
  const offsets =
    end.firstOffset === null || end.lastOffset === null ? "no offsets" : `offsets ${end.firstOffset}-${end.lastOffset}`;
  const verdict =
    end.damaged === 0 && end.trailing === null
      ? "every batch valid"
      : [
          ...(end.damaged === 0 ? [] : [plural(end.damaged, "damaged batch", "damaged batches")]),
          ...(end.trailing === null ? [] : ["an invalid tail"]),
        ].join(", ");
  const unreadable = end.unreadable === 0 ? "" : `; ${plural(end.unreadable, "batch", "batches")} pagelog cannot read`;
  lines.push(
    `Summary: ${plural(end.batches, "batch", "batches")}, ${offsets}, ${plural(logSize, "byte")}; ${verdict}${unreadable}`,
  );
  return lines;
}

/** One run of index entries (of the index `index` started): the entry, then how often it repeats. */
function entryLines(e: IndexRun, index: DumpedIndexStart | undefined): string[] {
  const body =
    index?.kind === "index"
      ? `offset: ${e.offset} position: ${e.position}`
      : `timestamp: ${e.timestamp} offset: ${e.offset}`;
  const lines = [
    e.problem === undefined || index?.checkedAgainst === null
      ? body
      : `${body} MISMATCH at byte ${e.byte}: ${e.problem}`,
  ];
  if (e.repeats > 0) {
    const entrySize = index?.kind === "index" ? 8 : 12;
    const last = e.slot + e.repeats;
    const slots = e.repeats === 1 ? `slot ${last}` : `slots ${e.slot + 1}-${last}`;
    lines.push(
      `... and ${plural(e.repeats, "more identical entry", "more identical entries")} (${slots}, bytes ${e.byte + entrySize}-${(last + 1) * entrySize - 1})`,
    );
  }
  return lines;
}
