/*
 * Issue 22's compaction rows, on tmpfs: `compact-throughput` (a cleaning's MB/s of dirty log read,
 * beside one CRC-32C pass over the same bytes in the same process: a cleaner checks every batch
 * it reads), `compact-space` (10,000 keys updated 100 times each: bytes before and after) and
 * `append-during-clean` (appends while a background cleaning runs, against appends alone).
 */
import { cpSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RecordInput } from "../../format/index.js";
import { backgroundCleanerOf } from "../../log/compaction/background-cleaner.js";
import {
  type BenchContext,
  crcPass,
  freshDir,
  openBenchLog,
  PARTITION,
  readSegments,
  removeDir,
  scaled,
  segmentLogFiles,
} from "../context.js";
import { MB, type Measured, mbPerSecond, perSecond, timed } from "../measure.js";

const KEYS = 10_000;
const VALUE_BYTES = 64;
const PER_CALL = 100;
const SEGMENT_BYTES = MB;

/** `PER_CALL` records for keys `from, from+1, …` (mod KEYS), `VALUE_BYTES` each. */
function keyed(from: number, round: number): RecordInput[] {
  const value = new Uint8Array(VALUE_BYTES).fill(round & 0xff);
  return Array.from({ length: PER_CALL }, (_, i) => ({ key: `key-${(from + i) % KEYS}`, value }));
}

/** Every key updated `updates` times, appended with the delete policy (nothing cleans while building), closed. */
async function buildKeyed(ctx: BenchContext, path: string, updates: number): Promise<void> {
  const opened = await openBenchLog(ctx, path, { log: { segmentBytes: SEGMENT_BYTES } });
  try {
    for (let round = 0; round < updates; round++) {
      const calls = [];
      for (let from = 0; from < KEYS; from += PER_CALL) calls.push(opened.log.append(keyed(from, round)));
      await Promise.all(calls);
    }
  } finally {
    await opened.close();
  }
}

export async function compactThroughput(ctx: BenchContext): Promise<Measured[]> {
  const updates = scaled(ctx, 30, 2);
  const pagelog: number[] = [];
  const reference: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.tmpfsDir, "compact-throughput");
    try {
      await buildKeyed(ctx, path, updates);
      // The reference: one CRC pass over the segments the cleaner reads (all but the active one).
      const bytes = readSegments(join(path, PARTITION)).slice(0, -1);
      const total = bytes.reduce((n, b) => n + b.length, 0);
      reference.push(mbPerSecond(total, (await timed(() => crcPass(ctx.crc, bytes))).ms));
      ctx.markRss();
      const opened = await openBenchLog(ctx, path, { log: { segmentBytes: SEGMENT_BYTES, cleanupPolicy: "compact" } });
      try {
        const { ms, value } = await timed(() => opened.log.compact());
        pagelog.push(mbPerSecond(value.bytesBefore, ms));
      } finally {
        await opened.close();
      }
    } finally {
      removeDir(path);
    }
  }
  return [
    {
      row: "compact-throughput",
      unit: "MB/s",
      pagelog,
      reference,
      goal: { on: "ratio", op: "≥", value: 0.3 },
      notes: [
        `log.compact() of ${KEYS} keys x ${updates} updates (${VALUE_BYTES} B values, ${PER_CALL} per batch, ${SEGMENT_BYTES / MB} MiB segments), MB/s of dirty .log bytes read; reference: one CRC-32C pass over the same bytes in memory (the cleaner reads the dirty part once, CRC-checking each batch, keeps it for the rewrite, and fsyncs each cleaned segment)`,
      ],
    },
  ];
}

export async function compactSpace(ctx: BenchContext): Promise<Measured[]> {
  const updates = scaled(ctx, 100, 2);
  const after: number[] = [];
  const before: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.tmpfsDir, "compact-space");
    try {
      await buildKeyed(ctx, path, updates);
      before.push(logMB(path));
      const opened = await openBenchLog(ctx, path, { log: { segmentBytes: SEGMENT_BYTES, cleanupPolicy: "compact" } });
      try {
        // The open finds it all dirty and starts a background cleaning; compact() takes it over.
        await opened.log.compact();
        after.push(logMB(path));
      } finally {
        await opened.close();
      }
    } finally {
      removeDir(path);
    }
  }
  return [
    {
      row: "compact-space",
      unit: "MB",
      pagelog: after,
      reference: before,
      goal: { on: "ratio", op: "≤", value: 0.05 },
      notes: [
        `${KEYS} keys updated ${updates} times each (${VALUE_BYTES} B values): the log's .log bytes after cleaning vs before; ratio = fraction kept (1 - ratio reclaimed; the active segment is never cleaned, ideal ${(1 / updates).toFixed(3)})`,
      ],
    },
  ];
}

/** Every `.log` byte of the partition, as the file system counts them. */
function logMB(path: string): number {
  return segmentLogFiles(join(path, PARTITION)).reduce((n, f) => n + statSync(f).size, 0) / MB;
}

const IN_FLIGHT = 16;

/** The `p`-th percentile (0..1) of `values`, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * `IN_FLIGHT` writers appending `PER_CALL` keyed records a call while `going()`, or `calls` calls
 * each: the records per second and every call's latency (ms, from the call to its promise resolving).
 */
async function appendLoad(
  log: { append(records: RecordInput[]): Promise<unknown> },
  round: number,
  going: (call: number) => boolean,
): Promise<{ perSecond: number; calls: number; latencies: number[] }> {
  const latencies: number[] = [];
  let calls = 0;
  const { ms } = await timed(() =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, w) => {
        for (let i = 0; going(i); i++) {
          const records = keyed((calls++ * PER_CALL + w) % KEYS, round);
          const started = performance.now();
          await log.append(records);
          latencies.push(performance.now() - started);
        }
      }),
    ),
  );
  return { perSecond: perSecond(calls * PER_CALL, ms), calls, latencies };
}

export async function appendDuringClean(ctx: BenchContext): Promise<Measured[]> {
  const updates = scaled(ctx, 30, 2);
  const during: number[] = [];
  const alone: number[] = [];
  const p99During: number[] = [];
  const p99Alone: number[] = [];
  const notes: string[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.tmpfsDir, "append-during-clean");
    const idlePath = freshDir(ctx.tmpfsDir, "append-during-clean-idle");
    try {
      await buildKeyed(ctx, path, updates);
      cpSync(path, idlePath, { recursive: true }); // the same log, for the appends alone
      // Reopened as a compacted log: its open finds it all dirty and starts a background cleaning.
      const opened = await openBenchLog(ctx, path, { log: { segmentBytes: SEGMENT_BYTES, cleanupPolicy: "compact" } });
      let busy;
      let cleanMs;
      try {
        const cleaner = backgroundCleanerOf(opened.log)!;
        const started = performance.now();
        // Until the first pass ends (the appends keep dirtying the log: later passes follow).
        busy = await appendLoad(opened.log, 1, () => cleaner.passes + cleaner.abandoned === 0);
        cleanMs = performance.now() - started;
      } finally {
        await opened.close();
      }
      // The same calls on the same log with no cleaning (backgroundCleaning off).
      const still = await openBenchLog(ctx, idlePath, {
        log: { segmentBytes: SEGMENT_BYTES, cleanupPolicy: "compact", backgroundCleaning: false },
      });
      let idle;
      try {
        const perWriter = Math.max(1, Math.ceil(busy.calls / IN_FLIGHT));
        idle = await appendLoad(still.log, 1, (i) => i < perWriter);
      } finally {
        await still.close();
      }
      during.push(busy.perSecond);
      alone.push(idle.perSecond);
      p99During.push(percentile(busy.latencies, 0.99));
      p99Alone.push(percentile(idle.latencies, 0.99));
      if (r === 0) notes.push(`${busy.calls} appends during the first cleaning pass (${cleanMs.toFixed(0)} ms)`);
    } finally {
      removeDir(path);
      removeDir(idlePath);
    }
  }
  const what = `${IN_FLIGHT} appends of ${PER_CALL} keyed records in flight while a background cleaning of ${KEYS} keys x ${updates} updates runs (the cleaning's reads, CRC checks, map and rewrite outside the log's queue; only its 256 KiB reads and each group's swap take a turn), vs the same appends on a copy of the same log opened with backgroundCleaning off`;
  return [
    {
      row: "append-during-clean",
      unit: "records/s",
      pagelog: during,
      reference: alone,
      goal: { on: "ratio", op: "≥", value: 0.7 },
      notes: [what, ...notes],
    },
    {
      row: "append-during-clean/p99",
      unit: "ms",
      pagelog: p99During,
      reference: p99Alone,
      goal: { on: "ratio", op: "<", value: 2 },
      notes: ["p99 latency of one append call (call to resolve) during the cleaning vs alone, same run"],
    },
  ];
}
