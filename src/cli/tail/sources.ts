/*
 * What `pagelog tail` reads: one partition's records (`tail <dir> orders-0`), or a topic's, every
 * partition merged (`tail <dir> orders`), each record then carrying its partition.
 */
import { ErrorCode, isPagelogError } from "../../errors.js";
import type { LogDir } from "../../log/log-dir.js";
import type { Isolation, Log, LogRecord } from "../../log/log.js";
import { UsageError } from "../terminal/io.js";

/** A record as tail prints it: a topic's carries its partition. */
export type TailRecord = LogRecord & { readonly partition?: number };

/** Where to start and how to read, from tail's options. */
export interface TailRead {
  readonly root: string;
  readonly target: string;
  readonly from: number | undefined;
  readonly fromTime: number | undefined;
  readonly follow: boolean;
  readonly durable: boolean;
  readonly isolation: Isolation;
}

/** Where to start in one log: --from (checked against the log's offsets), --from-time, or the start. */
async function startOffset(log: Log, args: TailRead): Promise<number> {
  if (args.from !== undefined) {
    if (args.from < log.startOffset || args.from > log.endOffset)
      throw new UsageError(
        `--from ${args.from} is out of range: ${log.name} holds offsets ${log.startOffset} to ${log.endOffset - 1} (its end, ${log.endOffset}, is where the next record goes)`,
      );
    return args.from;
  }
  if (args.fromTime !== undefined) return (await log.offsetForTimestamp(args.fromTime)) ?? log.endOffset;
  return log.startOffset;
}

/** The records to print: the partition named, else the topic of that name; neither is a usage error. */
export async function tailSource(dir: LogDir, args: TailRead, signal: AbortSignal): Promise<AsyncIterable<TailRecord>> {
  const { follow, durable, isolation } = args;
  const names = await dir.logs();
  if (names.includes(args.target)) {
    const log = await dir.log(args.target);
    return log.records({ from: await startOffset(log, args), follow, durable, isolation, signal });
  }
  const topic = await dir.topic(args.target).catch((err: unknown) => {
    if (!isPagelogError(err, ErrorCode.NOT_FOUND)) throw err;
    throw new UsageError(
      `${args.root} has no partition or topic ${args.target} (${names.length === 0 ? "it holds none" : `it holds ${names.join(", ")}`})`,
    );
  });
  if (args.from !== undefined)
    throw new UsageError(
      `--from is an offset of one partition: tail ${args.target}-<partition> with it, or the topic with --from-time`,
    );
  const from: number[] = [];
  for (let p = 0; p < topic.partitions; p++) from.push(await startOffset(topic.partition(p), args));
  return topic.records({ from, follow, durable, isolation, signal });
}
