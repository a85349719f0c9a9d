/**
 * The summary `pagelog recover` prints once every partition is open: one line per partition
 * (clean, or what its recovery scanned and repaired), then the directory's totals.
 */
import type { LogDirRecovery } from "../../log/log-dir.js";
import type { LogRecovery } from "../../log/load/log-loader.js";
import { plural } from "../../text/plural.js";
import { formatBytes } from "./progress.js";

export interface PartitionRecovery {
  readonly name: string;
  readonly recovery: LogRecovery;
}

export interface RecoverReport {
  readonly root: string;
  readonly partitions: readonly PartitionRecovery[];
  readonly totals: LogDirRecovery;
  /** The close wrote the clean-shutdown marker: the next open is a clean one. */
  readonly closedCleanly: boolean;
}

/** `41943040 bytes (40.0 MiB)`, or `0 bytes`. */
function bytes(n: number): string {
  return n < 1024 ? plural(n, "byte") : `${plural(n, "byte")} (${formatBytes(n)})`;
}

/** What a recovery did, as the clauses of one line. */
function work(r: Omit<LogDirRecovery, "clean" | "logsOpened" | "durationMs">): string[] {
  return [
    `${plural(r.segmentsScanned, "segment")}, ${bytes(r.bytesScanned)} scanned`,
    `${bytes(r.bytesTruncated)} truncated`,
    `${plural(r.segmentsDeleted, "segment")} deleted`,
    `${plural(r.indexesRebuilt, "index", "indexes")} rebuilt`,
  ];
}

function partitionLine({ name, recovery: r }: PartitionRecovery): string {
  if (r.clean) return `${name}: clean`;
  const clauses = work(r);
  if (r.tailCut === "mid-log") clauses.push("cut mid-log: every later segment deleted");
  if (r.leftoversRemoved.length > 0) clauses.push(`${plural(r.leftoversRemoved.length, "leftover file")} removed`);
  if (r.startedOver) clauses.push("started over, empty, at its checkpointed start offset");
  return `${name}: recovered, ${clauses.join(", ")}`;
}

export function recoverText(report: RecoverReport): string {
  const { totals } = report;
  const lines = [
    `recover ${report.root} (${totals.clean ? "clean-shutdown marker present: nothing to recover" : "no clean-shutdown marker: unclean shutdown, every partition recovered"})`,
    ...report.partitions.map(partitionLine),
  ];
  const count = plural(report.partitions.length, "partition");
  lines.push(
    totals.clean
      ? `clean: ${count}, nothing to recover`
      : `recovered: ${count}, ${work(totals).join(", ")}, in ${Math.round(totals.durationMs)} ms`,
  );
  lines.push(
    report.closedCleanly
      ? "closed cleanly: the clean-shutdown marker is written, the next open is a clean one"
      : "NOT closed cleanly: the clean-shutdown marker was not written, the next open recovers again",
  );
  return lines.join("\n") + "\n";
}
