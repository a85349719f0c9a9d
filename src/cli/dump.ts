/**
 * `pagelog dump <file|partition-dir>`: Kafka's `kafka-dump-log` for pagelog (and Kafka) files.
 * Per batch its position, offsets, record count, size, CRC validity, timestamps and compression;
 * `--records` adds each record; `.index` and `.timeindex` files are listed entry by entry and
 * checked against the `.log`; `--json` prints the same as one JSON document.
 */
import { parseArgs } from "node:util";
import { onePositional, parsing } from "./args.js";
import { buildDump, isSegmentFile } from "./dump/model.js";
import { dumpText } from "./dump/text.js";
import { openTarget } from "./files/open-dir.js";
import { type CliIo, UsageError } from "./io.js";

export const DUMP_HELP = `pagelog dump <file|partition-dir> [options]

Prints what is in a segment file, or in every segment of a partition directory, the way
Kafka's kafka-dump-log does: per batch its position, base and last offset, record count,
size, CRC (and whether it matches), timestamps and compression. .index and .timeindex files
are listed entry by entry and checked against their .log (an index is read only as far as
its .log can need). Reads only; never writes.

Exit status: 0 the files were read (whatever damage they show: use verify for a verdict);
1 a file could not be read; 2 usage.

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
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { records: { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }),
  );
  if (values.help === true) {
    io.stdout.write(DUMP_HELP);
    return 0;
  }
  const given = onePositional(positionals, "file or partition directory");
  const target = await openTarget(given);
  try {
    if (target.kind === "dir") {
      const names = await target.storage.list("");
      if (!names.some(isSegmentFile)) {
        throw new UsageError(
          `${target.path} holds no segment files (name a partition directory such as orders-0, or one file)`,
        );
      }
    }
    const dump = await buildDump(
      target.storage,
      "",
      target.kind === "dir" ? undefined : target.name,
      values.records === true,
    );
    // Name files as the user named them: the argument, plus the file name inside a directory.
    for (const file of dump.files)
      file.path = target.kind === "dir" ? `${given.replace(/\/+$/, "")}/${file.path}` : given;
    io.stdout.write(values.json === true ? JSON.stringify(dump, null, 2) + "\n" : dumpText(dump));
    return 0;
  } finally {
    await target.storage.close();
  }
}
