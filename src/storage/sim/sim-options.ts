/**
 * The simulator's public option and report types (operations, faults, trace events, the file
 * map and the pending state a crash would decide) and the checks on its options. sim-storage.ts
 * re-exports the public ones.
 */
import { ErrorCode } from "../../errors.js";
import { type OptionResolvers, resolveOptions } from "../../options.js";
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
  | "release"
  | "size"
  | "read"
  | "write"
  | "truncate"
  | "sync"
  | "close";

/** Options of `new SimStorage(options)`. An unknown key is a `TypeError` naming it and the known ones. */
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

/** A fault to inject (`SimStorage.injectFault`): the next `times` matching operations fail with `code`. */
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

/** One operation in `SimStorage.trace`: what was called, on which path, and how it ended. */
export interface TraceEvent {
  /** 1-based index of the operation in this storage's life (`opCount` after it began). */
  readonly seq: number;
  /** The operation. */
  readonly op: SimOp;
  /** The path it was called on (normalized). */
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
  /** The simulated page size (`SimStorageOptions.pageSize`). */
  readonly pageSize: number;
  /** The atomic write unit (`SimStorageOptions.sectorSize`). */
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

/**
 * What one power cut decided (`SimStorage.lastCrash`, on the storage the reboot found): the fate
 * of each dirty page, each unsynced size change and each unsynced directory entry change. A
 * crash test reads it to know which kinds of damage its schedules actually produced.
 */
export interface CrashReport {
  /** Dirty pages that reached the disk whole. */
  readonly pagesWritten: number;
  /** Dirty pages none of which reached the disk (it keeps what it held before). */
  readonly pagesLost: number;
  /** Dirty pages that reached the disk in part: some sectors new, the others old. */
  readonly pagesTorn: number;
  /** Files whose unsynced size change reached the disk (any part no page write covered reads as zeros). */
  readonly sizesKept: number;
  /** Files whose unsynced size change was undone: the durable size came back (a truncation undone). */
  readonly sizesUndone: number;
  /** Unsynced directory entry changes that survived (each directory keeps a prefix of its own). */
  readonly dirChangesKept: number;
  /** Unsynced entries created (a new file or directory), renames and removals that the cut lost. */
  readonly createsLost: number;
  /** Unsynced renames the cut lost: the entry is back under its old name. */
  readonly renamesLost: number;
  /** Unsynced removals the cut lost: the file is back. */
  readonly removesLost: number;
}

/** What is not durable yet: the inputs to a crash, for tests that enumerate crash states. */
export interface PendingState {
  /** Each file with unsynced state: its dirty pages, and whether its size change is unsynced. */
  readonly files: ReadonlyArray<{ path: string; dirtyPages: readonly number[]; sizeDirty: boolean }>;
  /** Each directory with unsynced entry changes, and how many. */
  readonly dirs: ReadonlyArray<{ path: string; pendingChanges: number }>;
}

export const FAULT_CODE = { EIO: ErrorCode.IO, ENOSPC: ErrorCode.NO_SPACE } as const;

/** Every option resolved (null, as undefined, is the default): the keys of the resolvers below are every option there is. */
export type ResolvedSimStorageOptions = Required<SimStorageOptions>;

const RESOLVERS: OptionResolvers<SimStorageOptions> = {
  seed: (given) => {
    const value = given ?? 0;
    if (typeof value !== "number" || !Number.isSafeInteger(value))
      throw new TypeError(`seed must be a safe integer, got ${String(value)}`);
    return value;
  },
  sectorSize: (given) => {
    const value = given ?? 512;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
      throw new TypeError(`sectorSize must be a positive integer`);
    return value;
  },
  // Checked against sectorSize once both are resolved (resolveSimOptions).
  pageSize: (given) => {
    const value = given ?? 4096;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
      throw new TypeError(`pageSize must be a positive multiple of sectorSize, got ${String(value)}`);
    return value;
  },
  writeback: (given) => {
    const value = given ?? 0;
    if (typeof value !== "number" || !(value >= 0 && value <= 1))
      throw new TypeError(`writeback must be a probability in [0, 1], got ${String(value)}`);
    return value;
  },
  traceLimit: (given) => {
    const value = given ?? 1000;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      throw new TypeError(`traceLimit must be a non-negative integer`);
    return value;
  },
};

export function resolveSimOptions(options: SimStorageOptions | undefined): ResolvedSimStorageOptions {
  const r = resolveOptions(options, "SimStorage options", RESOLVERS);
  if (r.pageSize < r.sectorSize || r.pageSize % r.sectorSize !== 0) {
    throw new TypeError(
      `pageSize must be a positive multiple of sectorSize (${r.sectorSize}), got ${String(r.pageSize)}`,
    );
  }
  return r;
}

/** Checks a fault spec (an options object too: a misspelled `time` must not mean once). */
export function resolveFaultSpec(spec: FaultSpec): Required<Omit<FaultSpec, "path">> & { path: string | undefined } {
  return resolveOptions<FaultSpec, Required<Omit<FaultSpec, "path">> & { path: string | undefined }>(
    spec,
    "fault spec",
    {
      op: (value) => value as SimOp,
      path: (value) => value as string | undefined,
      code: (value) => {
        if (typeof value !== "string" || !Object.hasOwn(FAULT_CODE, value))
          throw new TypeError(`fault code must be EIO or ENOSPC, got ${String(value)}`);
        return value as FaultSpec["code"];
      },
      times: (given) => {
        const value = given ?? 1;
        if (!((value as number) >= 1)) throw new RangeError(`times must be at least 1, got ${String(value)}`);
        return value as number;
      },
    },
  );
}
