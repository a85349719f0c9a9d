/**
 * What every bench row gets (its directories, repeats, scale and CRC) and the helpers the rows
 * share: opening a `LogDir` on `FsStorage`, making records, reading a partition's `.log` files
 * and one CRC pass over bytes, the reference most read rows are held to.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Crc32c, RecordInput } from "../format/index.js";
import { LogDir, type LogDirOptions } from "../log/log-dir.js";
import type { Log } from "../log/log.js";
import type { LogOptions } from "../log/options/log-options.js";
import { FsStorage } from "../storage/fs-storage.js";
import type { Storage } from "../storage/storage.js";
import { keep, MB, peakRssMB, xorshift } from "./measure.js";

export interface BenchContext {
  /** This run's directory on the real disk (the fsync rows). */
  readonly diskDir: string;
  /** This run's directory on tmpfs (the CPU-bound rows). */
  readonly tmpfsDir: string;
  readonly repeats: number;
  readonly scale: number;
  /** The CRC-32C the references use: pagelog's default, which the run's `--crc` set (bench/crc.ts). */
  readonly crc: Crc32c;
  /** The options every log of the run is opened with (none today: the CRC-32C is the default). */
  readonly logOptions: LogOptions;
  /**
   * Records the peak RSS now, for a row whose reference then loads the log's bytes into memory:
   * the row's peak RSS is then pagelog's, not the reference's buffers.
   */
  markRss(): void;
}

/** A context's RSS mark, kept beside it by whoever runs the rows. */
export function rssMarker(): { mark: () => void; value: () => number | null } {
  let marked: number | null = null;
  return { mark: () => (marked = peakRssMB()), value: () => marked };
}

/** `n` scaled, at least `min`. */
export function scaled(ctx: BenchContext, n: number, min = 1): number {
  return Math.max(min, Math.round(n * ctx.scale));
}

/** A fresh, empty directory `name` under `parent` (what a previous repeat left is removed). */
export function freshDir(parent: string, name: string): string {
  const path = join(parent, name);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  return path;
}

export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** The partition every row writes. */
export const PARTITION = "bench-0";

interface OpenedLog {
  readonly dir: LogDir;
  readonly log: Log;
  /** Cleanly closes the directory and its storage. */
  close(): Promise<void>;
}

/**
 * `LogDir.open` on an `FsStorage` at `path` (optionally wrapped, for counting syncs), then its
 * one log. The CLI has no path opener of its own, so it opens the storage itself.
 */
export async function openBenchLog(
  ctx: BenchContext,
  path: string,
  options: { log?: LogOptions; dir?: Omit<LogDirOptions, "log">; wrap?: (s: Storage) => Storage } = {},
): Promise<OpenedLog> {
  const storage = await FsStorage.open(path);
  let dir: LogDir | undefined;
  try {
    dir = await LogDir.open(options.wrap === undefined ? storage : options.wrap(storage), {
      ...options.dir,
      log: { ...ctx.logOptions, ...options.log },
    });
    const log = await dir.log(PARTITION);
    const opened = dir;
    return {
      dir: opened,
      log,
      close: async () => {
        try {
          await opened.close();
        } finally {
          await storage.close();
        }
      },
    };
  } catch (err) {
    await dir?.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    throw err;
  }
}

/** `count` records of `valueBytes` random bytes each, all with the same timestamp. */
export function makeRecords(count: number, valueBytes: number, seed: number, timestamp = 1_700_000_000_000) {
  const next = xorshift(seed);
  const records: RecordInput[] = [];
  for (let i = 0; i < count; i++) {
    const value = new Uint8Array(valueBytes);
    for (let j = 0; j < valueBytes; j += 4) {
      const r = next();
      for (let k = 0; k < 4 && j + k < valueBytes; k++) value[j + k] = (r >>> (8 * k)) & 0xff;
    }
    records.push({ value, timestamp });
  }
  return records;
}

/** The `.log` files of a partition directory, in offset order. */
export function segmentLogFiles(partitionDir: string): string[] {
  return readdirSync(partitionDir)
    .filter((name) => name.endsWith(".log"))
    .sort()
    .map((name) => join(partitionDir, name));
}

/** Every `.log` file of a partition, read into memory. */
export function readSegments(partitionDir: string): Uint8Array[] {
  return segmentLogFiles(partitionDir).map((path) => {
    const b = readFileSync(path);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  });
}

/** One CRC pass over all the bytes, 1 MiB at a time. */
export function crcPass(crc: Crc32c, chunks: readonly Uint8Array[]): void {
  let acc = 0;
  for (const bytes of chunks) {
    for (let at = 0; at < bytes.length; at += MB) acc ^= crc(bytes.subarray(at, Math.min(bytes.length, at + MB)));
  }
  keep(acc);
}

/** Appends `calls` times `records` (one batch per call) and closes cleanly: a log to read back. */
export async function buildLog(
  ctx: BenchContext,
  path: string,
  targetBytes: number,
  records: readonly RecordInput[],
  log: LogOptions = {},
): Promise<number> {
  const opened = await openBenchLog(ctx, path, { log });
  try {
    // A few appends in flight at once (group commit makes the build quick), never many past the target.
    let batchBytes = 0;
    while (opened.log.size < targetBytes) {
      const inFlight = batchBytes === 0 ? 1 : Math.min(4, Math.ceil((targetBytes - opened.log.size) / batchBytes));
      const before = opened.log.size;
      await Promise.all(Array.from({ length: inFlight }, () => opened.log.append(records)));
      batchBytes = (opened.log.size - before) / inFlight;
    }
    return opened.log.size;
  } finally {
    await opened.close();
  }
}
