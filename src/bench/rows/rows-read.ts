/**
 * The rows that read a log of 100 x 1 KiB batches back, on tmpfs: `recovery-scan` (the full
 * unclean scan of an open), `read-batches`, `records`, each against a pread of the same segment
 * files with the CRC-32C of what was read; and `clean-reopen-bytes` (a clean open should not
 * cost more for a bigger log).
 */
import { closeSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { readBatchHeader } from "../../format/index.js";
import { CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT } from "../../log/log-dir.js";
import type { Log } from "../../log/log.js";
import {
  type BenchContext,
  buildLog,
  crcPass,
  freshDir,
  makeRecords,
  openBenchLog,
  PARTITION,
  readSegments,
  removeDir,
  scaled,
  segmentLogFiles,
} from "../context.js";
import { keep, MB, type Measured, mbPerSecond, timed } from "../measure.js";

/** Size of the log the read rows read back (scaled). */
const READ_LOG_BYTES = 256 * MB;

/** A log of `bytes` of 100 x 1 KiB batches at `name` on tmpfs, cleanly closed; its `.log` bytes. */
async function readLog(ctx: BenchContext, name: string, bytes: number): Promise<{ path: string; logBytes: number }> {
  const path = freshDir(ctx.tmpfsDir, name);
  await buildLog(ctx, path, bytes, makeRecords(100, 1024, 6));
  const logBytes = segmentLogFiles(join(path, PARTITION)).reduce((n, file) => n + statSync(file).size, 0);
  return { path, logBytes };
}

/**
 * The reference's MB/s, repeat by repeat: the segment files read with pread (`readSync`, 1 MiB at
 * a time into one buffer) and the CRC-32C of each chunk: what any reader that checks the bytes
 * must do. `crcAlone` is the CRC pass over the same bytes already in memory, for the note.
 */
function crcReference(ctx: BenchContext, path: string): number[] {
  // The row's peak RSS is pagelog's: taken before the reference holds the whole log in memory.
  ctx.markRss();
  const files = segmentLogFiles(join(path, PARTITION));
  const buffer = Buffer.allocUnsafe(MB);
  const out: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    let total = 0;
    let acc = 0;
    const start = process.hrtime.bigint();
    for (const file of files) {
      const fd = openSync(file, "r");
      try {
        for (let at = 0, n = readSync(fd, buffer, 0, MB, 0); n > 0; n = readSync(fd, buffer, 0, MB, at)) {
          acc ^= ctx.crc(buffer.subarray(0, n));
          at += n;
          total += n;
        }
      } finally {
        closeSync(fd);
      }
    }
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    keep(acc);
    out.push(mbPerSecond(total, ms));
  }
  return out;
}

/** The CRC-32C alone over the same bytes in memory, median MB/s: what bounds the reference. */
function crcAlone(ctx: BenchContext, path: string): number {
  const segments = readSegments(join(path, PARTITION));
  const bytes = segments.reduce((n, s) => n + s.length, 0);
  const out: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const start = process.hrtime.bigint();
    crcPass(ctx.crc, segments);
    out.push(mbPerSecond(bytes, Number(process.hrtime.bigint() - start) / 1e6));
  }
  return out.sort((a, b) => a - b)[out.length >> 1]!;
}

const REFERENCE_NOTE = "reference: pread of the same segment files, 1 MiB at a time, and the CRC-32C of each chunk";

/** The reference and its note, for a read row of the log at `path`. */
function referenceOf(ctx: BenchContext, path: string): { reference: number[]; note: string } {
  const reference = crcReference(ctx, path);
  return {
    reference,
    note: `${REFERENCE_NOTE} (the CRC-32C alone, in memory: ${crcAlone(ctx, path).toFixed(0)} MB/s)`,
  };
}

export async function recoveryScan(ctx: BenchContext): Promise<Measured[]> {
  const { path, logBytes } = await readLog(ctx, "recovery-scan", scaled(ctx, READ_LOG_BYTES));
  try {
    const pagelog: number[] = [];
    for (let r = 0; r < ctx.repeats; r++) {
      // No marker and no recovery point: the open walks every batch from offset 0.
      rmSync(join(path, CLEAN_SHUTDOWN_FILE), { force: true });
      rmSync(join(path, RECOVERY_POINT_CHECKPOINT), { force: true });
      const { ms, value: opened } = await timed(() => openBenchLog(ctx, path));
      try {
        const scanned = opened.log.recovery.bytesScanned;
        if (opened.log.recovery.clean || scanned !== logBytes)
          throw new Error(`the unclean open scanned ${scanned} bytes, not the log's ${logBytes}`);
      } finally {
        await opened.close();
      }
      pagelog.push(mbPerSecond(logBytes, ms));
    }
    const { reference, note } = referenceOf(ctx, path);
    return [
      {
        row: "recovery-scan",
        unit: "MB/s",
        pagelog,
        reference,
        notes: [
          `LogDir.open + dir.log of a ${(logBytes / MB).toFixed(1)} MB log with no clean-shutdown marker and no recovery point; ${note}`,
        ],
      },
    ];
  } finally {
    removeDir(path);
  }
}

/** Reads the whole log through readBatches, maxBytes 1 MiB a call; returns the bytes read. */
async function readAllBatches(log: Log): Promise<number> {
  let offset = log.startOffset;
  let total = 0;
  for (;;) {
    const bytes = await log.readBatches(offset, { maxBytes: MB });
    if (bytes.length === 0) return total;
    total += bytes.length;
    // Whole batches: the next read starts after the last one's last offset.
    let last = offset - 1;
    for (let at = 0; at < bytes.length;) {
      const header = readBatchHeader(bytes, at);
      last = header.lastOffset;
      at += header.sizeInBytes;
    }
    offset = last + 1;
  }
}

/** Pagelog's MB/s reading the whole log `ctx.repeats` times with `read`, which returns the bytes it read. */
async function readRepeats(
  ctx: BenchContext,
  path: string,
  logBytes: number,
  read: (log: Log) => Promise<number>,
): Promise<number[]> {
  const opened = await openBenchLog(ctx, path);
  try {
    const out: number[] = [];
    for (let r = 0; r < ctx.repeats; r++) {
      const { ms, value } = await timed(() => read(opened.log));
      if (value !== logBytes) throw new Error(`read ${value} bytes, the log has ${logBytes}`);
      out.push(mbPerSecond(logBytes, ms));
    }
    return out;
  } finally {
    await opened.close();
  }
}

export async function readBatches(ctx: BenchContext): Promise<Measured[]> {
  const { path, logBytes } = await readLog(ctx, "read-batches", scaled(ctx, READ_LOG_BYTES));
  try {
    const pagelog = await readRepeats(ctx, path, logBytes, readAllBatches);
    const { reference, note } = referenceOf(ctx, path);
    return [
      {
        row: "read-batches",
        unit: "MB/s",
        pagelog,
        reference,
        notes: [`the whole ${(logBytes / MB).toFixed(1)} MB log through readBatches, 1 MiB a call; ${note}`],
      },
    ];
  } finally {
    removeDir(path);
  }
}

export async function records(ctx: BenchContext): Promise<Measured[]> {
  const { path, logBytes } = await readLog(ctx, "records", scaled(ctx, READ_LOG_BYTES));
  try {
    const pagelog = await readRepeats(ctx, path, logBytes, async (log) => {
      let values = 0;
      let count = 0;
      for await (const record of log.records({ from: 0 })) {
        values += record.value?.length ?? 0;
        count++;
      }
      if (count !== log.endOffset || values !== count * 1024)
        throw new Error(`read ${count} records (${values} value bytes) of ${log.endOffset}`);
      return logBytes; // every record of the log was read: its bytes
    });
    const { reference, note } = referenceOf(ctx, path);
    return [
      {
        row: "records",
        unit: "MB/s",
        pagelog,
        reference,
        notes: [
          `for await of log.records({ from: 0 }) over the ${(logBytes / MB).toFixed(1)} MB log, MB/s of log bytes; ${note}`,
        ],
      },
    ];
  } finally {
    removeDir(path);
  }
}

export async function cleanReopenBytes(ctx: BenchContext): Promise<Measured[]> {
  const big = await readLog(ctx, "reopen-big", scaled(ctx, 150 * MB));
  const small = await readLog(ctx, "reopen-small", scaled(ctx, MB));
  try {
    const reopen = async (path: string) => {
      const { ms, value: opened } = await timed(() => openBenchLog(ctx, path));
      const clean = opened.log.recovery.clean;
      await opened.close();
      if (!clean) throw new Error("the reopen was not clean");
      return ms;
    };
    const bigMs: number[] = [];
    const smallMs: number[] = [];
    for (let r = 0; r < ctx.repeats; r++) {
      bigMs.push(await reopen(big.path));
      smallMs.push(await reopen(small.path));
    }
    return [
      {
        row: "clean-reopen-bytes",
        unit: "ms",
        pagelog: bigMs,
        reference: smallMs,
        notes: [
          `clean LogDir.open + dir.log of a ${(big.logBytes / MB).toFixed(1)} MB log (pagelog) vs a ${(small.logBytes / MB).toFixed(1)} MB one (reference); ratio = t(big) / t(small)`,
        ],
      },
    ];
  } finally {
    removeDir(big.path);
    removeDir(small.path);
  }
}
