/** `pagelog dump`'s text output, in the spirit of Kafka's `kafka-dump-log`: one line per batch, `| ` lines per record. */
import type { Dump, DumpedBatch, DumpedFile, DumpedRecord } from "./model.js";

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

function fileLines(f: DumpedFile): string[] {
  const out: string[] = [`Dumping ${f.path}`];
  if (f.kind === "log") {
    out.push(`Starting offset: ${f.baseOffset}`);
    for (const b of f.batches) {
      out.push(batchLine(b));
      for (const p of b.problems) out.push(`  DAMAGED at byte ${b.position}: ${p}`);
      if (b.unsupported !== undefined) out.push(`  UNSUPPORTED at byte ${b.position}: ${b.unsupported}`);
      for (const r of b.records ?? []) out.push(recordLine(r, b.timestampType));
      if (b.recordsError !== undefined) out.push(`| records not decoded: ${b.recordsError}`);
    }
    if (f.trailing !== null)
      out.push(
        `${f.trailing.bytes} bytes at position ${f.trailing.position} are not a whole batch: ${f.trailing.detail}`,
      );
    const bad = f.batches.filter((b) => b.problems.length > 0).length;
    const first = f.batches[0];
    const last = f.batches[f.batches.length - 1];
    const offsets =
      first === undefined || last === undefined ? "no offsets" : `offsets ${first.baseOffset}-${last.lastOffset}`;
    const unreadable = f.batches.filter((b) => b.unsupported !== undefined).length;
    const verdict =
      bad === 0 && f.trailing === null
        ? "every batch valid"
        : `${bad} damaged batches${f.trailing === null ? "" : ", an invalid tail"}`;
    out.push(
      `Summary: ${f.batches.length} batches, ${offsets}, ${f.size} bytes; ${verdict}${unreadable === 0 ? "" : `; ${unreadable} batches pagelog cannot read`}`,
    );
    return out;
  }
  out.push(
    f.checkedAgainst === null
      ? "(no .log beside it: entries not checked)"
      : `(entries checked against ${f.checkedAgainst})`,
  );
  for (const e of f.entries) {
    const body =
      f.kind === "index"
        ? `offset: ${e.offset} position: ${e.position}`
        : `timestamp: ${e.timestamp} offset: ${e.offset}`;
    out.push(
      e.problem === undefined || f.checkedAgainst === null ? body : `${body} MISMATCH at byte ${e.byte}: ${e.problem}`,
    );
  }
  for (const p of f.fileProblems) out.push(`DAMAGED at byte ${p.byte}: ${p.problem}`);
  const mismatches = f.checkedAgainst === null ? 0 : f.entries.filter((e) => e.problem !== undefined).length;
  out.push(
    `Summary: ${f.entries.length} entries, ${f.size} bytes; ${mismatches + f.fileProblems.length === 0 ? "consistent" : `${mismatches + f.fileProblems.length} problems`}`,
  );
  return out;
}

export function dumpText(dump: Dump): string {
  return dump.files.map((f) => fileLines(f).join("\n") + "\n").join("\n");
}
