/**
 * The bench's child process: a separate entry (dist/bench-child.js), not a hidden flag of
 * `pagelog bench`, so the public parser knows nothing of it. The parent runs it with
 * `process.execPath` and one argument, the job as JSON (runner.ts); it runs that one row (or
 * builds that one fixture) and prints its report as the last line of stdout. The directories
 * are the parent's, already made; the parent removes them.
 */
import { loadCrc } from "./crc.js";
import type { ChildJob } from "./runner.js";
import { runJob } from "./runner.js";
import { rowNamed } from "./rows/rows.js";
import { runWriter, type WriterJob } from "./follow-writer.js";

async function main(arg: string | undefined): Promise<void> {
  if (arg === undefined) throw new Error("bench-child.js runs one job of `pagelog bench`; it is not run by hand");
  const job = JSON.parse(arg) as ChildJob & { writer?: WriterJob };
  // The writer process of the follow-process row (rows-follow-process.ts): no report.
  if (job.writer !== undefined) return runWriter(job.writer);
  const row = job.row === undefined ? undefined : rowNamed(job.row);
  const report = await runJob(job, loadCrc(job.options.crc), row);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main(process.argv[2]).catch((err: unknown) => {
  process.stderr.write(`pagelog bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
