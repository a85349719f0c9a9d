/**
 * `pagelog verify <log-dir>`: reads every segment and index of every partition and checks every
 * CRC, record, index entry and offset, as the log's own loader and reads would. Exit 0 when clean,
 * 1 when anything is damaged (each problem named by file and byte), 2 on bad arguments, 3 when
 * nothing is damaged but some batches are ones pagelog cannot read (snappy, lz4, zstd). Reads
 * only; takes no lock, but looks whether a live writer holds one (its findings in progress are
 * no damage). With `--json` every outcome is one JSON document on stdout, an error too.
 */
import { basename, dirname, join } from "node:path";
import { isPagelogError } from "../../errors.js";
import { lockHolder } from "../../storage/fs-lock.js";
import { onePositional, parseCommandLine } from "../terminal/args.js";
import { partitionCleanPoint } from "../files/clean-point.js";
import { openTarget } from "../files/open-dir.js";
import { isLogDir, isSegmentFile, partitionContents, scanLogDir, someNames } from "../../inspect/dir-kind.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import type { FsStorage } from "../../storage/fs-storage.js";
import { colorWanted, makeStyle } from "../terminal/style.js";
import { verdictOf, verifyDir } from "../../inspect/verify-dir.js";
import { verifyText } from "./report.js";

/** Exit status of each verdict (2 is a usage error, as for every command). */
export const VERIFY_EXIT = { clean: 0, damaged: 1, unsupported: 3 } as const;

export const VERIFY_HELP = `pagelog verify <log-dir> [options]

Reads every segment (.log) and index (.index, .timeindex) of every partition directory in a
log directory and checks what opening and reading the log would check: every batch's framing
and CRC-32C, every record decoded by pagelog's own decoder (gzip decompressed), offsets that
continue from batch to batch and segment to segment, every index entry against the log, the
checkpoints against the logs' ends, and files the loader refuses (.swap). A partition directory
(such as orders-0) can be named instead, to check only it. Reads only; takes no lock.

A log directory holds one of Kafka's log-directory files (.lock, .kafka_cleanshutdown, the
offset checkpoints, meta.properties) or a partition directory of segment files; anything else
is a usage error. A <topic>-<partition> folder holding other files is not a partition (a note).

A live writer holding the directory's .lock is named in the report: what it is in the middle
of (the active segment's tail, index entries ahead of the .log read, checkpoints moving on) is
listed as in progress, not damage, and the verdict is on the rest.

Exit status: 0 clean; 1 damaged (every problem is printed with its file and byte), or an
error (one line on stderr); 2 usage; 3 unsupported: nothing damaged, but some batches use what
pagelog cannot read (snappy, lz4, zstd compression, or gzip that inflates past 64 MiB), so
reads of them fail.

Options:
  --json      print the report as JSON ("status": "clean" | "damaged" | "unsupported"), or
              an error as {"status": "error", "error": {"code", "message"}}, always on stdout
  --no-color  no colours (also NO_COLOR=1, FORCE_COLOR=0, TERM=dumb); --color forces them
  -h, --help  show this help
`;

/** Whether the command line asks for JSON (before a `--`), looked at before it is parsed: so a usage error is JSON too. */
function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
}

export async function run(args: string[], io: CliIo): Promise<number> {
  if (!wantsJson(args)) return verify(args, io);
  try {
    return await verify(args, io);
  } catch (err) {
    // Every outcome of --json is a JSON document: a script reads stdout, never an empty one.
    const message = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
    const code =
      err instanceof UsageError
        ? "USAGE"
        : isPagelogError(err)
          ? err.code
          : typeof (err as { code?: unknown }).code === "string"
            ? (err as { code: string }).code
            : "ERROR";
    const root = args.find((a) => !a.startsWith("-")) ?? null;
    io.stdout.write(JSON.stringify({ root, status: "error", clean: false, error: { code, message } }, null, 2) + "\n");
    io.stderr.write(`pagelog verify: ${message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

async function verify(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    args,
    {
      json: { type: "boolean" },
      color: { type: "boolean" },
      "no-color": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help === true) {
    io.stdout.write(VERIFY_HELP);
    return 0;
  }
  const given = onePositional(positionals, "log directory");
  const target = await openTarget(given);
  try {
    if (target.kind !== "dir")
      throw new UsageError(`${given} is a file; verify takes a log directory (or one partition directory)`);
    const asPartition = await partitionOrLogDir(target.storage, given, target.path);
    const cleanPoint = asPartition === undefined ? undefined : await partitionCleanPoint(target.path);
    // The lock of the log directory: the root's, or a partition's parent's.
    const writer = await lockHolder(join(asPartition === undefined ? target.path : dirname(target.path), ".lock"));
    const report = await verifyDir(target.storage, asPartition, cleanPoint, writer);
    const status = verdictOf(report);
    io.stdout.write(
      values.json === true
        ? JSON.stringify({ root: given, status, clean: status === "clean", ...report }, null, 2) + "\n"
        : verifyText(report, given, makeStyle(colorWanted(io, values))),
    );
    return VERIFY_EXIT[status];
  } finally {
    await target.storage.close();
  }
}

/**
 * What the directory is: a partition (its name returned: it holds segment files) or a log
 * directory (undefined); anything else is a usage error.
 */
async function partitionOrLogDir(storage: FsStorage, given: string, path: string): Promise<string | undefined> {
  const names = await storage.list("");
  if (names.some(isSegmentFile)) {
    const { foreign } = await partitionContents(storage, "");
    if (foreign.length > 0)
      throw new UsageError(
        `${given} is not a partition directory: it holds ${someNames(foreign)}, which neither pagelog nor Kafka keeps in one`,
      );
    return basename(path);
  }
  if (!(await isLogDir(storage, await scanLogDir(storage, names, { keepGoing: true }))))
    throw new UsageError(
      `${given} is not a log directory: it holds none of Kafka's log-directory files (.lock, .kafka_cleanshutdown, the offset checkpoints) and no partition directory of segment files (<topic>-<partition>/<20-digit offset>.log)`,
    );
  return undefined;
}
