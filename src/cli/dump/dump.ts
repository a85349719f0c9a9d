/**
 * `pagelog dump <file|partition-dir>`: Kafka's `kafka-dump-log` for pagelog (and Kafka) files.
 * Per batch its position, offsets, record count, size, CRC validity, timestamps and compression;
 * `--records` adds each record; `.index` and `.timeindex` files are listed entry by entry and
 * checked against the `.log`; `--json` prints the same as one JSON document.
 */
import { dirname } from "node:path";
import type { Storage } from "../../storage/storage.js";
import { onePositional, parseCommandLine } from "../terminal/args.js";
import { jsonSink } from "./json.js";
import { streamDump } from "../../inspect/dump-model.js";
import { partitionCleanPoint } from "../files/clean-point.js";
import { textSink } from "./text.js";
import { walkBatches } from "../../inspect/batch-walk.js";
import { isLogDir, isSegmentFile, partitionContents, scanLogDir, someNames } from "../../inspect/dir-kind.js";
import { fileSource } from "../../inspect/file-read.js";
import { openTarget } from "../files/open-dir.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import { Output } from "../terminal/output.js";

export const DUMP_HELP = `pagelog dump <file|partition-dir> [options]

Prints what is in a segment file, or in every segment of a partition directory, the way
Kafka's kafka-dump-log does: per batch its position, base and last offset, record count,
size, CRC (and whether it matches), timestamps and compression. .index and .timeindex files
are listed entry by entry and checked against their .log (an index is read only as far as
its .log can need; a run of identical entries is one line). Reads only; never writes.

A file must be a segment file (named <20-digit offset>.log, .index or .timeindex, or starting
with a valid record batch); a directory must be a partition directory (segment files, and
nothing pagelog or Kafka would not keep there).

Exit status: 0 the files were read (whatever damage they show: use verify for a verdict);
1 a file could not be read; 2 usage (also: not a segment file or partition directory).

Options:
  --records   also print every record (key and value as UTF-8 when printable, else 0x… hex)
  --json      print one JSON document instead of text
  -h, --help  show this help

Examples:
  pagelog dump data/orders-0
  pagelog dump --records data/orders-0/00000000000000000000.log
  pagelog dump --json data/orders-0/00000000000000000000.index
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    args,
    { records: { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    true,
  );
  if (values.help === true) {
    io.stdout.write(DUMP_HELP);
    return 0;
  }
  const given = onePositional(positionals, "file or partition directory");
  const target = await openTarget(given);
  try {
    if (target.kind === "dir") await checkPartitionDir(target.storage, given);
    else await checkSegmentFile(target.storage, target.name, given);
    const out = new Output(io.stdout);
    const json = values.json === true ? jsonSink(out) : undefined;
    // Name files as the user named them: the argument, plus the file name inside a directory.
    const shown = (path: string) => (target.kind === "dir" ? `${given.replace(/\/+$/, "")}/${path}` : given);
    try {
      await streamDump(
        target.storage,
        "",
        target.kind === "dir" ? undefined : target.name,
        values.records === true,
        json ?? textSink(out),
        shown,
        // A compacted log's gaps below its clean point are the cleaner's, not damage.
        await partitionCleanPoint(target.kind === "dir" ? target.path : dirname(target.path)),
      );
    } catch (err) {
      // Text read so far is worth seeing above the error; half a JSON document is not.
      if (json === undefined) await out.drain(true);
      throw err;
    }
    json?.end();
    await out.drain(true);
    return 0;
  } finally {
    await target.storage.close();
  }
}

/** A directory to dump must be a partition directory (see files/dir-kind.ts); a log directory is named as one. */
async function checkPartitionDir(storage: Storage, given: string): Promise<void> {
  const contents = await partitionContents(storage, "");
  if (contents.hasSegments && contents.foreign.length === 0) return;
  if (contents.hasSegments)
    throw new UsageError(
      `${given} is not a partition directory: it holds ${someNames(contents.foreign)}, which neither pagelog nor Kafka keeps in one (name one file to dump it)`,
    );
  const scan = await scanLogDir(storage, contents.names);
  if (await isLogDir(storage, scan)) {
    const some = scan.partitions.length === 0 ? "" : ` (${someNames(scan.partitions)})`;
    throw new UsageError(
      `${given} is a log directory, not a partition directory: name one of its partitions${some}, or use pagelog verify for all of them`,
    );
  }
  throw new UsageError(
    `${given} is not a partition directory: it holds no segment files (<20-digit offset>.log, .index, .timeindex)`,
  );
}

/**
 * A file to dump must be a segment file: named `<20-digit offset>.log`, `.index` or `.timeindex`,
 * or, under another name (a copied Kafka test vector), starting with a whole record batch whose
 * CRC matches, which is then read as a `.log` from offset 0. Anything else (package.json) is refused.
 */
async function checkSegmentFile(storage: Storage, name: string, given: string): Promise<void> {
  if (isSegmentFile(name)) return;
  if (await startsWithBatch(storage, name)) return;
  throw new UsageError(
    `${given} is not a segment file: its name is not <20-digit offset>.log, .index or .timeindex, and it does not start with a valid record batch`,
  );
}

async function startsWithBatch(storage: Storage, name: string): Promise<boolean> {
  const file = await storage.open(name, { readOnly: true });
  try {
    let valid = false;
    const stop = new Error("first batch read");
    try {
      await walkBatches(await fileSource(file), (batch) => {
        valid = batch.crcValid;
        throw stop;
      });
    } catch (err) {
      if (err !== stop) throw err;
    }
    return valid;
  } finally {
    await file.close();
  }
}
