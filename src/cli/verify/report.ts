/** `pagelog verify`'s text report: one line per file, then every problem naming its file and byte. */
import type { Style } from "../terminal/style.js";
import { ANSI } from "../terminal/style.js";
import { plural } from "../../text/plural.js";
import { type VerifyReport, verdictOf } from "../../inspect/verify-dir.js";

/** The report as text: the partitions and their files, then notes, the verdict and each finding. */
export function verifyText(report: VerifyReport, root: string, style: Style): string {
  const out: string[] = [];
  const marker =
    report.cleanShutdown === null
      ? ""
      : ` (clean-shutdown marker ${report.cleanShutdown ? "present" : "absent: the last shutdown was not clean"})`;
  out.push(`verify ${root}${marker}`);
  if (report.writer !== null)
    out.push(
      `writer: process ${report.writer.pid} holds the lock (.lock): the log was being written while verify read it. What it is in the middle of (the active segment's unflushed tail, index entries ahead of the .log read, checkpoints moving on) is listed as in progress, not damage; anything else found is damage all the same`,
    );
  out.push(...partitionLines(report, style));
  for (const note of report.notes) out.push(`note: ${note}`);
  const files = new Set(report.problems.map((p) => p.path)).size;
  const segments = report.partitions.reduce((n, p) => n + p.segments, 0);
  const verdict = verdictOf(report);
  if (verdict === "clean") {
    out.push(
      style.paint(
        `clean: ${plural(report.partitions.length, "partition")}, ${plural(segments, "segment")}, every batch's CRC and records, every index entry and offset checked`,
        ANSI.green,
      ),
    );
  }
  if (report.problems.length > 0) {
    const whileWritten =
      report.writer === null
        ? ""
        : ` (while process ${report.writer.pid} writes: none of these is what a running writer leaves)`;
    out.push(
      style.paint(
        `DAMAGED: ${plural(report.problems.length, "problem")} in ${plural(files, "file")}${whileWritten}`,
        ANSI.red,
        ANSI.bold,
      ),
    );
    for (const p of report.problems)
      out.push(`  ${p.path} byte ${p.byte}: ${p.problem}${p.note === undefined ? "" : ` (${p.note})`}`);
  }
  if (report.inProgress.length > 0) {
    out.push(
      `IN PROGRESS: ${plural(report.inProgress.length, "finding")} the live writer (process ${report.writer?.pid}) explains, not damage (verify again once it has closed the log to check those bytes)`,
    );
    for (const p of report.inProgress)
      out.push(`  ${p.path} byte ${p.byte}: ${p.problem}${p.note === undefined ? "" : ` (${p.note})`}`);
  }
  if (report.unsupported.length > 0) {
    const n = report.unsupported.length;
    const inFiles = new Set(report.unsupported.map((p) => p.path)).size;
    out.push(
      style.paint(
        `UNSUPPORTED: ${plural(n, "batch")} in ${plural(inFiles, "file")} that pagelog cannot read (reads of them fail; nothing says they are damaged)`,
        ANSI.gold,
        ANSI.bold,
      ),
    );
    for (const p of report.unsupported) out.push(`  ${p.path} byte ${p.byte}: ${p.problem}`);
  }
  return out.join("\n") + "\n";
}

/** One line per partition, then one per file with its verdict, the paths in one column. */
function partitionLines(report: VerifyReport, style: Style): string[] {
  const out: string[] = [];
  const width = Math.max(0, ...report.partitions.flatMap((p) => p.files.map((f) => f.path.length)));
  for (const p of report.partitions) {
    const end = p.endOffset ?? p.startOffset;
    const range =
      p.startOffset === null || end === null
        ? "no segments"
        : end === p.startOffset
          ? `no records (next offset ${end})`
          : `offsets ${p.startOffset}-${end - 1}`;
    out.push(`${p.name}: ${plural(p.segments, "segment")}, ${range}, ${plural(p.bytes, "byte")}`);
    for (const f of p.files) {
      const verdict =
        f.problems.length > 0
          ? style.paint(`DAMAGED (${f.problems.length})`, ANSI.red, ANSI.bold)
          : f.unsupported.length > 0
            ? style.paint(`UNSUPPORTED (${f.unsupported.length})`, ANSI.gold, ANSI.bold)
            : style.paint("ok", ANSI.green);
      out.push(`  ${f.path.padEnd(width)}  ${f.summary}: ${verdict}`);
    }
  }
  return out;
}
