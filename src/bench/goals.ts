/*
 * Every bench row's goal, in one place: the table and the JSON read them from here, and the docs'
 * goal columns (docs/cli.md, docs/performance.md) are checked against it by a unit test. A row
 * listed here declares no goal of its own; a row not listed (a new one) may declare its own in its
 * `Measured`, or none, until it is added here.
 */

/**
 * What a row's goal is about: the ratio's median (pagelog / reference), pagelog's own median, or
 * the peak RSS of the process that ran the row.
 */
export interface Goal {
  readonly on: "ratio" | "pagelog" | "rss";
  readonly op: "≥" | "≤" | "<";
  readonly value: number;
  /** Printed after the value: "ms", "MB". */
  readonly unit?: string;
}

const ratio = (op: Goal["op"], value: number): Goal => ({ on: "ratio", op, value });

/** By printed row name (sub-rows too); null: the row is informative, with no goal. */
export const GOALS: Readonly<Record<string, Goal | null>> = {
  // Issue 23 set the append, durable, read and lookup goals.
  "append-100B": ratio("≥", 0.5),
  "append-1KiB": ratio("≥", 0.8),
  "append-1KiB/cold": null,
  "append-in-flight": ratio("≥", 0.5),
  "durable-append": ratio("≥", 0.8),
  "durable-append/syncs": ratio("≤", 1),
  "consumer-commits": ratio("≥", 8),
  "consumer-commits/syncs": ratio("≤", 0.1),
  "recovery-scan": ratio("≥", 0.8),
  "read-batches": ratio("≥", 0.8),
  records: ratio("≥", 0.6),
  "clean-reopen-bytes": ratio("≤", 1.5),
  "reopen-10k-segments": { on: "pagelog", op: "<", value: 100, unit: "ms" },
  "lookups/read": ratio("≥", 0.5),
  "lookups/offsetForTimestamp": ratio("≥", 0.3),
  "open-10k-segments": ratio("≤", 3),
  "open-10k-segments/first-read": null,
  "open-100k-segments": ratio("≤", 3),
  "open-100k-segments/first-read": null,
  "open-10k-partitions": null,
  "idle-segment-bytes": { on: "pagelog", op: "<", value: 1024, unit: "B" },
  "follow-latency/median": null,
  "follow-latency/p99": null,
  "follow-throughput": ratio("≥", 0.8),
  "follow-throughput/vs-writer": null,
  "follow-process/latency-poll100": null,
  "follow-process/latency-poll10": null,
  "follow-process/throughput": null,
  "append-4GB": { on: "rss", op: "<", value: 150, unit: "MB" },
  // Issue 34: pagelog's recovery at least as fast as Kafka's on the same bytes.
  "kafka-recovery": ratio("≥", 1),
  "kafka-recovery/disk-read": null,
  "kafka-produce": null,
  "kafka-produce/bytes": null,
  "kafka-produce/raw-write": null,
};

/** "≥ 0.8" (the ratio), "< 100 ms" (pagelog's own figure), "RSS < 150 MB". */
export function goalText(goal: Goal): string {
  return `${goal.on === "rss" ? "RSS " : ""}${goal.op} ${goal.value}${goal.unit === undefined ? "" : ` ${goal.unit}`}`;
}

/**
 * A measured row's goal: its entry here, else what the row declared (a row not listed yet), else
 * none. A listed row that declares one too is a mistake (two sources that could disagree): thrown.
 */
export function goalOf(row: string, declared: Goal | null | undefined): Goal | null {
  if (Object.hasOwn(GOALS, row)) {
    if (declared !== undefined)
      throw new Error(`bench row ${row}: its goal is in src/bench/goals.ts; the row must not declare one too`);
    return GOALS[row] ?? null;
  }
  return declared ?? null;
}

/** Whether `figure` meets `goal`. */
export function meets(goal: Goal, figure: number): boolean {
  return goal.op === "≥" ? figure >= goal.value : goal.op === "≤" ? figure <= goal.value : figure < goal.value;
}
