/**
 * `pagelog tail <log-dir> <partition|topic>`: the records of one partition, or of every
 * partition of a topic, one per line, as `kcat -C` prints a topic: from an offset, a time or
 * the start, then (with `--follow`) each record as it is appended, until Ctrl-C. It opens the
 * directory read-only (no lock, nothing written), so it works while a service has it open.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isSegmentFile } from "../../inspect/dir-kind.js";
import { LogDir, MAX_TOPIC_LENGTH } from "../../log/log-dir.js";
import type { Isolation } from "../../log/log.js";
import { FsStorage } from "../../storage/fs-storage.js";
import { dirAndTarget, intOption, parseCommandLine } from "../terminal/args.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import { LineWriter } from "./line-writer.js";
import { watchStdoutReader } from "./reader-gone.js";
import { jsonLine, plainLine } from "./render.js";
import { type TailRead, tailSource } from "./sources.js";

export const TAIL_HELP = `pagelog tail <log-dir> <partition|topic> [options]

Prints the records of one partition (a directory <topic>-<partition> of the log directory), one
per line, from the start of the log, from --from or --from-time, to its end; with --follow it
then waits and prints each record as it is appended, until Ctrl-C (which ends it cleanly, exit
0). The directory is opened read-only: no lock is taken and nothing is written, so it works
while a service has the directory open (a torn or half-written tail is the end for now); a
follower polls the files every 100 ms. When the reader of its output goes away (| head -1), it
ends, exit 0, within about a second even when it has nothing to write.

Given a topic (orders, over orders-0, orders-1, …), it prints every partition's records,
merged: each partition's in offset order, partitions interleaved as their records come.

Lines: "<offset> <key> <value>", each key and value as pagelog dump shows it: null, a JSON
string when the bytes are printable UTF-8, else 0x and hex; for a topic "<partition> <offset>
<key> <value>". --json prints one JSON object per line: {"offset","timestamp","key","value",
"headers":[{"key","value"}]} (a topic's with "partition" first), each key, value and header
value a UTF-8 string (or null); bytes that are not valid UTF-8 are base64, with "keyBase64",
"valueBase64" or the header's "base64" set to true (absent otherwise).

Exit status: 0 at the end of the log, or on Ctrl-C; 1 a log error (PAGELOG_CORRUPT, a
truncation under a follower, …); 2 usage (bad arguments, no such partition, --from outside
the log's offsets).

Options:
  --from N        start at offset N (the log's start offset to its end offset; a partition only)
  --from-time T   start at the first record whose timestamp is >= T (milliseconds since the
                  epoch, or an ISO 8601 date such as 2026-12-01T09:00:00Z); past the last, at the end
  --follow        keep printing records as they are appended, until Ctrl-C
  --durable       only records a flush made durable (below the recovery point): what a power
                  cut cannot take back; with --follow, each is printed once a flush covers it
  --isolation-level L
                  what is printed of a broker's transactions (a log pagelog wrote has none):
                  read_committed (the default) skips aborted transactions' records and stops at
                  the first open one, as Kafka's read_committed consumer; read_uncommitted prints
                  them; commit and abort markers never
  --json          JSON lines
  -h, --help      show this help
`;

/** --from-time: milliseconds since the epoch, or a date Date.parse reads with at least a year, month and day. */
function parseTime(text: string): number {
  if (/^\d+$/.test(text.trim())) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  } else if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(
    `--from-time must be milliseconds since the epoch or an ISO 8601 date (2026-12-01T09:00:00Z), got '${text}'`,
  );
}

/** --isolation-level: Kafka's two values, as its console consumer takes them. */
function isolationLevel(text: string | undefined): Isolation {
  if (text === undefined || text === "read_committed" || text === "read_uncommitted") return text ?? "read_committed";
  throw new UsageError(`--isolation-level must be read_committed or read_uncommitted, got '${text}'`);
}

interface TailArgs extends TailRead {
  readonly json: boolean;
}

function parse(args: string[]): TailArgs | "help" {
  const { values, positionals } = parseCommandLine(
    args,
    {
      from: { type: "string" },
      "from-time": { type: "string" },
      follow: { type: "boolean" },
      durable: { type: "boolean" },
      "isolation-level": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help === true) return "help";
  const [root, target] = dirAndTarget(positionals);
  if (!new RegExp(`^[a-zA-Z0-9._-]{1,${MAX_TOPIC_LENGTH + 11}}$`).test(target) || target === "." || target === "..")
    throw new UsageError(
      `'${target}' is not a partition (<topic>-<partition>, such as orders-0) or a topic (such as orders)`,
    );
  if (values.from !== undefined && values["from-time"] !== undefined)
    throw new UsageError("--from and --from-time are two ways to say where to start: give one");
  return {
    root,
    target,
    from: values.from === undefined ? undefined : intOption(values.from, "from", 0, 0, Number.MAX_SAFE_INTEGER),
    fromTime: values["from-time"] === undefined ? undefined : parseTime(values["from-time"]),
    follow: values.follow === true,
    durable: values.durable === true,
    isolation: isolationLevel(values["isolation-level"]),
    json: values.json === true,
  };
}

/** The log directory, read-only; a path that is not one is a usage error. */
async function openDir(given: string): Promise<{ storage: FsStorage; dir: LogDir }> {
  const path = resolve(given);
  try {
    if (!(await stat(path)).isDirectory())
      throw new UsageError(`${given} is not a directory; tail takes a log directory`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${given}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const storage = await FsStorage.open(path, { create: false });
  try {
    if ((await storage.list("")).some(isSegmentFile))
      throw new UsageError(
        `${given} is a partition directory; tail takes the log directory that holds it and the partition`,
      );
    return { storage, dir: await LogDir.open(storage, { readOnly: true }) };
  } catch (err) {
    await storage.close();
    throw err;
  }
}

export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parse(argv);
  if (args === "help") {
    io.stdout.write(TAIL_HELP);
    return 0;
  }
  const { storage, dir } = await openDir(args.root);
  // Ctrl-C ends the tail: the iterator's next step throws the abort, and the command exits 0.
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on("SIGINT", onSigint);
  // `tail --follow | head -1`: once head has exited, end as Ctrl-C does, even with nothing to write.
  const stopWatching =
    args.follow && io.stdout === process.stdout ? watchStdoutReader(() => stop.abort()) : () => undefined;
  const out = new LineWriter(io.stdout);
  try {
    const records = await tailSource(dir, args, stop.signal);
    const line = args.json ? jsonLine : plainLine;
    try {
      for await (const record of records) await out.write(line(record));
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
    return 0;
  } finally {
    process.off("SIGINT", onSigint);
    stopWatching();
    await out.flush();
    await dir.close().catch(() => undefined);
    await storage.close();
  }
}
