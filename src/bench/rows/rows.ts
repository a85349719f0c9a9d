/**
 * Every row `pagelog bench` knows, in the order it runs them: its name (for `--rows`), what it
 * measures in one line (for `--help`), the fixture it needs built first, and the function that
 * measures it. A row may report sub-rows (`lookups/read`, `lookups/offsetForTimestamp`).
 */
import type { BenchContext } from "../context.js";
import type { Measured } from "../measure.js";
import { append100B, append1KiB, append4GB, appendInFlight } from "./rows-append.js";
import { durableAppend } from "./rows-durable.js";
import { followLatency, followThroughput } from "./rows-follow.js";
import { cleanReopenBytes, readBatches, records, recoveryScan } from "./rows-read.js";
import { buildSegmentsFixture, lookups, reopenSegments } from "./rows-segments.js";
import { consumerCommits } from "./rows-positions.js";
import { followProcess } from "./rows-follow-process.js";
import { appendDuringClean, compactSpace, compactThroughput } from "./rows-compact.js";
import { idleSegmentBytes, open100kSegments, open10kPartitions, open10kSegments } from "./rows-open.js";
import { kafkaProduce, kafkaRecovery } from "./rows-kafka.js";

export interface RowSpec {
  readonly name: string;
  readonly summary: string;
  /** A fixture the row reads, built once per run before the first row that needs it. */
  readonly fixture?: FixtureName;
  readonly run: (ctx: BenchContext) => Promise<Measured[]>;
}

export const FIXTURES = {
  segments: async (ctx: BenchContext): Promise<void> => {
    await buildSegmentsFixture(ctx);
  },
} as const;
export type FixtureName = keyof typeof FIXTURES;

export const ROWS: readonly RowSpec[] = [
  { name: "append-100B", summary: "append 100 x 100 B per call vs writeSync + crc32c (tmpfs)", run: append100B },
  { name: "append-1KiB", summary: "append 100 x 1 KiB per call vs writeSync + crc32c (tmpfs)", run: append1KiB },
  {
    name: "append-in-flight",
    summary: "64 single-record appends in flight vs the same 64 per call (tmpfs)",
    run: appendInFlight,
  },
  {
    name: "durable-append",
    summary: "flushMessages 1, 64 x 1 KiB per call vs writeSync + fdatasyncSync (real disk); syncs per append",
    run: durableAppend,
  },
  {
    name: "recovery-scan",
    summary: "a full unclean recovery scan vs one CRC pass in memory (tmpfs)",
    run: recoveryScan,
  },
  { name: "read-batches", summary: "the whole log through readBatches vs one CRC pass (tmpfs)", run: readBatches },
  { name: "records", summary: "for await of log.records() vs one CRC pass (tmpfs)", run: records },
  { name: "clean-reopen-bytes", summary: "clean reopen of a 150 MB log vs a 1 MB one (tmpfs)", run: cleanReopenBytes },
  {
    name: "reopen-10k-segments",
    summary: "clean reopen of 10,000 segments vs readdir + stat (tmpfs)",
    fixture: "segments",
    run: reopenSegments,
  },
  {
    name: "lookups",
    summary: "random read(offset) and offsetForTimestamp on 10,000 segments vs open + read + close",
    fixture: "segments",
    run: lookups,
  },
  // Issue 20 (lazy segments): rows-open.ts.
  { name: "open-10k-segments", summary: "clean open of 10,000 segments vs readdir; first read", run: open10kSegments },
  {
    name: "open-100k-segments",
    summary: "clean open of 100,000 segments vs readdir; first read",
    run: open100kSegments,
  },
  { name: "open-10k-partitions", summary: "clean LogDir.open of 10,000 partitions vs readdir", run: open10kPartitions },
  { name: "idle-segment-bytes", summary: "heap bytes per idle segment after a clean open", run: idleSegmentBytes },
  // Issue 21 (consumers): rows-follow.ts.
  {
    name: "follow-latency",
    summary: "append resolving to a same-process follower yielding it: median, p99 (tmpfs)",
    run: followLatency,
  },
  {
    name: "follow-throughput",
    summary: "a follower of a 100 x 1 KiB per call writer vs records() on the finished log (tmpfs)",
    run: followThroughput,
  },
  // Issue 21 (consumer positions): rows-positions.ts.
  {
    name: "consumer-commits",
    summary: "64 consumer commits in flight vs one atomic file write per commit (real disk); syncs per commit",
    run: consumerCommits,
  },
  // Issue 21 (consumers): rows-follow-process.ts.
  {
    name: "follow-process",
    summary: "read-only follower in a second process: latency (pollMs 100, 10) and MB/s vs the writer (tmpfs)",
    run: followProcess,
  },
  // Issue 22 (compaction): rows-compact.ts.
  {
    name: "compact-throughput",
    summary: "log.compact() MB/s of dirty log read vs one CRC-32C pass over the same bytes (tmpfs)",
    run: compactThroughput,
  },
  {
    name: "compact-space",
    summary: "10,000 keys updated 100 times: .log bytes after cleaning vs before (tmpfs)",
    run: compactSpace,
  },
  {
    name: "append-during-clean",
    summary: "appends while a background cleaning runs vs the same appends alone (tmpfs)",
    run: appendDuringClean,
  },
  { name: "append-4GB", summary: "append 4 GiB to one log vs writeSync + crc32c; peak RSS (tmpfs)", run: append4GB },
  // Issue 34 (Kafka as the bar to beat): rows-kafka.ts, skipped where no broker can run.
  {
    name: "kafka-recovery",
    summary: "pagelog recover vs a Kafka broker loading the same unclean 1 GiB partition (real disk); vs a cold read",
    run: kafkaRecovery,
  },
  {
    name: "kafka-produce",
    summary: "in-process appends vs Kafka's ProducerPerformance (acks=1) into a local broker (real disk); vs writeSync",
    run: kafkaProduce,
  },
];

export function rowNamed(name: string): RowSpec | undefined {
  return ROWS.find((r) => r.name === name);
}

/** Names that stand for several rows in `--rows`: `kafka` for the rows beside a local Kafka broker. */
export const ROW_GROUPS: Readonly<Record<string, readonly string[]>> = {
  kafka: ["kafka-recovery", "kafka-produce"],
};

/**
 * The rows `names` ask for, groups expanded, in order, each once; the first name that is neither a
 * row nor a group is `unknown`.
 */
export function expandRowNames(names: readonly string[]): { rows: string[]; unknown?: string } {
  const rows: string[] = [];
  for (const name of names) {
    const members = Object.hasOwn(ROW_GROUPS, name) ? ROW_GROUPS[name]! : [name];
    for (const member of members) {
      if (rowNamed(member) === undefined) return { rows, unknown: member };
      if (!rows.includes(member)) rows.push(member);
    }
  }
  return { rows };
}

/** "append-100B, …, kafka (the group: kafka-recovery, kafka-produce)": for messages naming what --rows takes. */
export function rowChoices(): string {
  const groups = Object.entries(ROW_GROUPS).map(([g, rows]) => `${g} (${rows.join(" + ")})`);
  return [...ROWS.map((r) => r.name), ...groups].join(", ");
}
