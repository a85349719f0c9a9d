/**
 * The simulator's public option and report types (operations, faults, trace events, the file
 * map and the pending state a crash would decide) and the checks on its options. sim-storage.ts
 * re-exports the public ones.
 */
import { ErrorCode } from "../../errors.js";
import type { ByteRange } from "./crash-chooser.js";

/** Every operation the simulator counts, traces and can fail. */
export type SimOp =
  | "open"
  | "stat"
  | "list"
  | "mkdir"
  | "remove"
  | "rename"
  | "syncDir"
  | "lock"
  | "unlock"
  | "size"
  | "read"
  | "write"
  | "truncate"
  | "sync"
  | "close";

export interface SimStorageOptions {
  /**
   * Seeds every random choice: write-back order, page fates, size and directory fates.
   * @defaultValue 0
   */
  seed?: number;
  /**
   * Page size of the simulated page cache, in bytes. Must be a multiple of `sectorSize`.
   * @defaultValue 4096
   */
  pageSize?: number;
  /**
   * The disk's atomic write unit: a torn page keeps some of its sectors and loses others.
   * @defaultValue 512
   */
  sectorSize?: number;
  /**
   * Probability, before each operation, that the OS writes one random dirty page back on its
   * own (in no particular order, as the kernel's flusher threads do). 0 keeps every dirty page
   * in the cache until a sync or a crash.
   * @defaultValue 0
   */
  writeback?: number;
  /**
   * How many recent operations `trace` keeps.
   * @defaultValue 1000
   */
  traceLimit?: number;
}

export interface FaultSpec {
  /** The operation to fail. */
  op: SimOp;
  /** Only on this path (normalized form); any path if omitted. */
  path?: string;
  /** `EIO` fails with PAGELOG_IO, `ENOSPC` with PAGELOG_NO_SPACE; both keep the OS code in `cause`. */
  code: "EIO" | "ENOSPC";
  /**
   * How many matching operations fail before the fault is used up.
   * @defaultValue 1
   */
  times?: number;
}

export interface TraceEvent {
  /** 1-based index of the operation in this storage's life (`opCount` after it began). */
  readonly seq: number;
  readonly op: SimOp;
  readonly path: string;
  /** Position and length, sizes, rename target: whatever says what the call did. */
  readonly detail?: string;
  /** The error code if the operation failed. */
  error?: string;
}

/** Durable / cached-only / torn state of a file's bytes, for the demo's picture. */
export interface FileMap {
  /** The size reads see. */
  readonly size: number;
  /** The size a power cut would surely leave. */
  readonly durableSize: number;
  readonly pageSize: number;
  readonly sectorSize: number;
  /**
   * Consecutive ranges covering [0, size): `durable` bytes are on the disk as the cache shows
   * them; `cached` bytes exist only in the cache (a power cut may lose them); `torn` bytes are
   * durable but came out of the last power cut from a page that was only partly written.
   */
  readonly ranges: ReadonlyArray<ByteRange & { readonly state: "durable" | "cached" | "torn" }>;
  /** Pages whose cached bytes have not been written to the disk. */
  readonly dirtyPages: readonly number[];
}

/** What is not durable yet: the inputs to a crash, for tests that enumerate crash states. */
export interface PendingState {
  readonly files: ReadonlyArray<{ path: string; dirtyPages: readonly number[]; sizeDirty: boolean }>;
  readonly dirs: ReadonlyArray<{ path: string; pendingChanges: number }>;
}

export const FAULT_CODE = { EIO: ErrorCode.IO, ENOSPC: ErrorCode.NO_SPACE } as const;

export interface ResolvedOptions {
  seed: number;
  pageSize: number;
  sectorSize: number;
  writeback: number;
  traceLimit: number;
}

export function resolveOptions(options: SimStorageOptions): ResolvedOptions {
  const r: ResolvedOptions = {
    seed: options.seed ?? 0,
    pageSize: options.pageSize ?? 4096,
    sectorSize: options.sectorSize ?? 512,
    writeback: options.writeback ?? 0,
    traceLimit: options.traceLimit ?? 1000,
  };
  if (!Number.isSafeInteger(r.seed)) throw new TypeError(`seed must be a safe integer, got ${String(r.seed)}`);
  if (!Number.isInteger(r.sectorSize) || r.sectorSize < 1) throw new TypeError(`sectorSize must be a positive integer`);
  if (!Number.isInteger(r.pageSize) || r.pageSize < r.sectorSize || r.pageSize % r.sectorSize !== 0) {
    throw new TypeError(
      `pageSize must be a positive multiple of sectorSize (${r.sectorSize}), got ${String(r.pageSize)}`,
    );
  }
  if (typeof r.writeback !== "number" || !(r.writeback >= 0 && r.writeback <= 1)) {
    throw new TypeError(`writeback must be a probability in [0, 1], got ${String(r.writeback)}`);
  }
  if (!Number.isInteger(r.traceLimit) || r.traceLimit < 0)
    throw new TypeError(`traceLimit must be a non-negative integer`);
  return r;
}
