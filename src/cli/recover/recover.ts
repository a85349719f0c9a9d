/**
 * `pagelog recover <log-dir>`: opens a log directory as an application would (through `LogDir`,
 * on `FsStorage`, taking its lock), opens every partition so each runs the recovery an unclean
 * shutdown calls for, prints the walk's progress to stderr and a summary to stdout, and closes
 * the directory cleanly. Unlike `verify` and `dump` it writes: it is the open the next
 * application would otherwise do, done now, where its progress can be watched.
 */
import { dirname } from "node:path";
import { ErrorCode, PagelogError } from "../../errors.js";
import { CLEAN_SHUTDOWN_FILE, LogDir } from "../../log/log-dir.js";
import { isLogDir, isSegmentFile, scanLogDir } from "../../inspect/dir-kind.js";
import { onePositional, parseCommandLine } from "../terminal/args.js";
import { openTarget } from "../files/open-dir.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import { progressPrinter } from "./progress.js";
import { type PartitionRecovery, type RecoverReport, recoverText } from "./report.js";
import type { FsStorage } from "../../storage/fs-storage.js";

export const RECOVER_HELP = `pagelog recover <log-dir> [options]

Opens a log directory as the library does (LogDir.open on FsStorage, taking its .lock) and
opens every partition directory (<topic>-<partition>) in it, so each runs the recovery the
last shutdown calls for: after a clean shutdown (the .kafka_cleanshutdown marker) nothing is
walked; after a crash every segment from the recovery point on is walked and checked, a torn
tail is truncated, segments after it deleted, indexes rebuilt. Progress goes to stderr while
it walks (one line redrawn on a terminal; otherwise a line at each log's start and end and
every 10% between), then a summary to stdout: each partition clean or recovered, with bytes
scanned and truncated, segments deleted and indexes rebuilt, and the totals. It then closes
the directory cleanly, so the next open of it is a clean one.

It writes (truncates, deletes, rebuilds, writes the checkpoints and the marker): run it on a
directory no process has open. One that has it open holds the lock: an error, exit 2.

Exit status: 0 recovered (or clean) and closed cleanly; 1 a log could not be opened (for
example PAGELOG_CORRUPT) or the close did not write the marker; 2 usage (not a log
directory, or the directory is locked by another process).

Options:
  --json      print the summary as JSON
  -h, --help  show this help
`;

/** Refuses what is not a log directory: recover writes, so it must not write into any folder. */
async function checkLogDir(storage: FsStorage, given: string, path: string): Promise<void> {
  const names = await storage.list("");
  if (names.some(isSegmentFile))
    throw new UsageError(
      `${given} is a partition directory; recover takes the log directory that holds it (${dirname(path)})`,
    );
  if (!(await isLogDir(storage, await scanLogDir(storage, names))))
    throw new UsageError(
      `${given} is not a log directory: it holds none of Kafka's log-directory files (.lock, .kafka_cleanshutdown, the offset checkpoints) and no partition directory of segment files`,
    );
}

/** LogDir.open, with a lock held elsewhere as a one-line usage error (exit 2). */
async function openLocked(storage: FsStorage, given: string, io: CliIo, tty: boolean) {
  const printer = progressPrinter(io.stderr, tty, tty ? 0.01 : 0.1);
  try {
    return { dir: await LogDir.open(storage, { onProgress: printer.listener }), printer };
  } catch (err) {
    if (err instanceof PagelogError && err.code === ErrorCode.LOCKED)
      throw new UsageError(`${given} is open in another process (${err.code}: ${err.message})`);
    throw err;
  }
}

/** Opens every partition (so each recovers), then closes the directory; what each open did. */
async function recoverAll(dir: LogDir, end: () => void): Promise<PartitionRecovery[]> {
  const partitions: PartitionRecovery[] = [];
  try {
    for (const name of await dir.logs()) {
      const log = await dir.log(name);
      partitions.push({ name, recovery: log.recovery });
    }
  } catch (err) {
    end();
    await dir.close().catch(() => undefined); // the open's failure is the one to report
    throw err;
  }
  end();
  return partitions;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    args,
    { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    true,
  );
  if (values.help === true) {
    io.stdout.write(RECOVER_HELP);
    return 0;
  }
  const given = onePositional(positionals, "log directory");
  const target = await openTarget(given);
  try {
    if (target.kind !== "dir") throw new UsageError(`${given} is a file; recover takes a log directory`);
    await checkLogDir(target.storage, given, target.path);
    const tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
    const { dir, printer } = await openLocked(target.storage, given, io, tty);
    const partitions = await recoverAll(dir, () => printer.end());
    const totals = dir.recovery; // read before close: it sums the open logs
    await dir.close();
    const closedCleanly = (await target.storage.stat(CLEAN_SHUTDOWN_FILE))?.kind === "file";
    const report: RecoverReport = { root: given, partitions, totals, closedCleanly };
    io.stdout.write(values.json === true ? JSON.stringify(report, null, 2) + "\n" : recoverText(report));
    return closedCleanly ? 0 : 1;
  } finally {
    await target.storage.close();
  }
}
