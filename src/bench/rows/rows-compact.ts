/*
 * Issue 22's compaction rows, on tmpfs: `compact-throughput` (a cleaning's MB/s of dirty log read,
 * beside one CRC-32C pass over the same bytes in the same process: a cleaner checks every batch
 * it reads), `compact-space` (10,000 keys updated 100 times each: bytes before and after) and
 * `append-during-clean` (appends while a background cleaning runs, against appends alone).
 */
import { statSync } from "node:fs";
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
      goal: { on: "ratio", op: "≥", value: 0.25 },
      notes: [
        `log.compact() of ${KEYS} keys x ${updates} updates (${VALUE_BYTES} B values, ${PER_CALL} per batch, ${SEGMENT_BYTES / MB} MiB segments), MB/s of dirty .log bytes read; reference: one CRC-32C pass over the same bytes in memory (the cleaner reads them twice, map then rewrite, CRC-checking each batch, and fsyncs each cleaned segment)`,
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

export async function appendDuringClean(ctx: BenchContext): Promise<Measured[]> {
  const updates = scaled(ctx, 30, 2);
  const during: number[] = [];
  const alone: number[] = [];
  const notes: string[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.tmpfsDir, "append-during-clean");
    try {
      await buildKeyed(ctx, path, updates);
      // Reopened as a compacted log: its open finds it all dirty and starts a background cleaning.
      const opened = await openBenchLog(ctx, path, { log: { segmentBytes: SEGMENT_BYTES, cleanupPolicy: "compact" } });
      try {
        const cleaner = backgroundCleanerOf(opened.log)!;
        let cleaning = true;
        void cleaner.idle().then(() => (cleaning = false));
        let count = 0;
        const { ms } = await timed(() =>
          Promise.all(
            Array.from({ length: IN_FLIGHT }, async (_, w) => {
              while (cleaning) await opened.log.append(keyed((count++ * PER_CALL + w) % KEYS, 1));
            }),
          ),
        );
        during.push(perSecond(count * PER_CALL, ms));
        const passes = cleaner.passes;
        const aloneMs = (
          await timed(() =>
            Promise.all(
              Array.from({ length: IN_FLIGHT }, async () => {
                for (let i = 0; i < Math.ceil(count / IN_FLIGHT); i++) await opened.log.append(keyed(i * PER_CALL, 2));
              }),
            ),
          )
        ).ms;
        alone.push(perSecond(Math.ceil(count / IN_FLIGHT) * IN_FLIGHT * PER_CALL, aloneMs));
        if (r === 0) notes.push(`${count} appends during the cleaning (${ms.toFixed(0)} ms, ${passes} pass)`);
      } finally {
        await opened.close();
      }
    } finally {
      removeDir(path);
    }
  }
  return [
    {
      row: "append-during-clean",
      unit: "records/s",
      pagelog: during,
      reference: alone,
      goal: { on: "ratio", op: "≥", value: 0.3 },
      notes: [
        `${IN_FLIGHT} appends of ${PER_CALL} keyed records in flight while a background cleaning of ${KEYS} keys x ${updates} updates runs (one step per queue turn: an append waits for at most one segment scanned or one group of <= ${SEGMENT_BYTES / MB} MiB rewritten), vs the same appends on the same log once it is idle`,
        ...notes,
      ],
    },
  ];
}
