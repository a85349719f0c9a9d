/*
 * Issue 21's same-process follower rows, on tmpfs: `follow-latency` (from an append resolving to
 * a follower in the same process yielding its record: median and p99) and `follow-throughput`
 * (a follower keeping up with a writer appending 100 x 1 KiB per call, against `records()` over
 * the finished log).
 */
import type { Log } from "../../log/log.js";
import { type BenchContext, freshDir, makeRecords, openBenchLog, removeDir, scaled } from "../context.js";
import { MB, type Measured, mbPerSecond, stats } from "../measure.js";

/** Microseconds on the monotonic clock. */
const micros = (): number => Number(process.hrtime.bigint()) / 1e3;

/** The `p`-th percentile (0..1) of `values`, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * One append at a time, each waited for until the follower yielded it: the latency of each from
 * the append's promise resolving to the follower's loop body running with the record.
 */
async function latencies(log: Log, count: number): Promise<number[]> {
  const records = makeRecords(1, 1024, 7);
  const yieldedAt = new Float64Array(count);
  let seen = 0;
  let wake: (() => void) | undefined;
  const follower = (async () => {
    for await (const record of log.records({ from: log.endOffset, follow: true, to: log.endOffset + count })) {
      yieldedAt[seen++] = micros();
      if (record.value?.length !== 1024) throw new Error(`record ${record.offset} has the wrong value`);
      wake?.();
    }
  })();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    await log.append(records);
    const appended = micros();
    if (seen <= i) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    // A follower can run before the appender's continuation does: that is no latency at all.
    out.push(Math.max(0, yieldedAt[i]! - appended));
  }
  await follower;
  return out;
}

export async function followLatency(ctx: BenchContext): Promise<Measured[]> {
  const count = scaled(ctx, 5000, 200);
  const medians: number[] = [];
  const p99s: number[] = [];
  const path = freshDir(ctx.tmpfsDir, "follow-latency");
  try {
    for (let r = 0; r < ctx.repeats; r++) {
      const opened = await openBenchLog(ctx, freshDir(ctx.tmpfsDir, "follow-latency"));
      try {
        const values = await latencies(opened.log, count);
        medians.push(stats(values).median);
        p99s.push(percentile(values, 0.99));
      } finally {
        await opened.close();
      }
    }
  } finally {
    removeDir(path);
  }
  const note = `${count} single 1 KiB appends, one at a time; from append() resolving to records({ follow: true }) yielding the record`;
  return [
    { row: "follow-latency/median", unit: "µs", pagelog: medians, reference: null, notes: [note] },
    { row: "follow-latency/p99", unit: "µs", pagelog: p99s, reference: null, notes: [] },
  ];
}

/** Writes `calls` appends of `batch` while a follower reads them; MB/s of log bytes each saw. */
async function followWhileWriting(log: Log, calls: number): Promise<{ follower: number; writer: number }> {
  const batch = makeRecords(100, 1024, 8);
  const total = calls * batch.length;
  const started = micros();
  let count = 0;
  const follower = (async () => {
    for await (const record of log.records({ from: 0, follow: true, to: total })) {
      if (record.offset !== count) throw new Error(`the follower skipped to ${record.offset} from ${count}`);
      count++;
    }
    return micros();
  })();
  for (let i = 0; i < calls; i++) await log.append(batch);
  const written = micros();
  const followed = await follower;
  if (count !== total) throw new Error(`the follower saw ${count} of ${total} records`);
  return {
    follower: mbPerSecond(log.size, (followed - started) / 1e3),
    writer: mbPerSecond(log.size, (written - started) / 1e3),
  };
}

/** The same writer with nobody following: MB/s of log bytes. */
async function writeAlone(log: Log, calls: number): Promise<number> {
  const batch = makeRecords(100, 1024, 8);
  const started = micros();
  for (let i = 0; i < calls; i++) await log.append(batch);
  return mbPerSecond(log.size, (micros() - started) / 1e3);
}

/** `records()` over the whole finished log: MB/s of log bytes. */
async function readFinished(log: Log): Promise<number> {
  const started = micros();
  let count = 0;
  for await (const record of log.records({ from: 0 })) count += record.value === null ? 0 : 1;
  if (count !== log.endOffset) throw new Error(`records() read ${count} of ${log.endOffset}`);
  return mbPerSecond(log.size, (micros() - started) / 1e3);
}

export async function followThroughput(ctx: BenchContext): Promise<Measured[]> {
  const calls = Math.max(10, Math.round(scaled(ctx, 64 * MB) / (100 * 1024)));
  const follower: number[] = [];
  const reference: number[] = [];
  const writer: number[] = [];
  const writerAlone: number[] = [];
  const path = freshDir(ctx.tmpfsDir, "follow-throughput");
  try {
    for (let r = 0; r < ctx.repeats; r++) {
      const opened = await openBenchLog(ctx, freshDir(ctx.tmpfsDir, "follow-throughput"));
      try {
        const seen = await followWhileWriting(opened.log, calls);
        follower.push(seen.follower);
        writer.push(seen.writer);
        reference.push(await readFinished(opened.log));
      } finally {
        await opened.close();
      }
      const alone = await openBenchLog(ctx, freshDir(ctx.tmpfsDir, "follow-throughput"));
      try {
        writerAlone.push(await writeAlone(alone.log, calls));
      } finally {
        await alone.close();
      }
    }
  } finally {
    removeDir(path);
  }
  const mb = (calls * 100 * 1024) / MB;
  return [
    {
      row: "follow-throughput",
      unit: "MB/s",
      pagelog: follower,
      reference,
      notes: [
        `a follower of a writer appending ${mb.toFixed(0)} MiB as 100 x 1 KiB per call (from the first append to the last record yielded); reference: records() over the finished log`,
        `the writer meanwhile: median ${stats(writer).median.toFixed(0)} MB/s (the follower cannot be faster than it)`,
      ],
    },
    {
      row: "follow-throughput/vs-writer",
      unit: "MB/s",
      pagelog: follower,
      reference: writerAlone,
      notes: ["the same follower against the same writer with nobody following: how far following slows the writer"],
    },
  ];
}
