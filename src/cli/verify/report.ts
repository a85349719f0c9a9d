/** `pagelog verify`'s text report: one line per file, then every problem naming its file and byte. */
import type { Style } from "../style.js";
import { ANSI } from "../style.js";
import { type VerifyReport, verdictOf } from "./check.js";

export function verifyText(report: VerifyReport, root: string, style: Style): string {
  const out: string[] = [];
  const marker =
    report.cleanShutdown === null
      ? ""
      : ` (clean-shutdown marker ${report.cleanShutdown ? "present" : "absent: the last shutdown was not clean"})`;
  out.push(`verify ${root}${marker}`);
  const width = Math.max(0, ...report.partitions.flatMap((p) => p.files.map((f) => f.path.length)));
  for (const p of report.partitions) {
    const range =
      p.startOffset === null ? "no segments" : `offsets ${p.startOffset}-${(p.endOffset ?? p.startOffset) - 1}`;
    out.push(`${p.name}: ${p.segments} segment${p.segments === 1 ? "" : "s"}, ${range}, ${p.bytes} bytes`);
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
  for (const note of report.notes) out.push(`note: ${note}`);
  const files = new Set(report.problems.map((p) => p.path)).size;
  const segments = report.partitions.reduce((n, p) => n + p.segments, 0);
  const verdict = verdictOf(report);
  if (verdict === "clean") {
    out.push(
      style.paint(
        `clean: ${report.partitions.length} partition${report.partitions.length === 1 ? "" : "s"}, ${segments} segment${segments === 1 ? "" : "s"}, every batch's CRC and records, every index entry and offset checked`,
        ANSI.green,
      ),
    );
  }
  if (report.problems.length > 0) {
    out.push(
      style.paint(
        `DAMAGED: ${report.problems.length} problem${report.problems.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}`,
        ANSI.red,
        ANSI.bold,
      ),
    );
    for (const p of report.problems)
      out.push(`  ${p.path} byte ${p.byte}: ${p.problem}${p.note === undefined ? "" : ` (${p.note})`}`);
  }
  if (report.unsupported.length > 0) {
    const n = report.unsupported.length;
    const inFiles = new Set(report.unsupported.map((p) => p.path)).size;
    out.push(
      style.paint(
        `UNSUPPORTED: ${n} batch${n === 1 ? "" : "es"} in ${inFiles} file${inFiles === 1 ? "" : "s"} that pagelog cannot read (reads of them fail; nothing says they are damaged)`,
        ANSI.gold,
        ANSI.bold,
      ),
    );
    for (const p of report.unsupported) out.push(`  ${p.path} byte ${p.byte}: ${p.problem}`);
  }
  return out.join("\n") + "\n";
}
