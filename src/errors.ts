/**
 * The one error class pagelog throws for anything that is not a programmer mistake.
 *
 * Codes are stable: they never change meaning between versions, and every one is listed in the
 * README's Errors section. Messages may change. Programmer mistakes (a wrong argument type, a
 * negative length) are `TypeError`/`RangeError`s naming the argument, not `PagelogError`s.
 */

/** Every code pagelog can put on a {@link PagelogError}. */
export const ErrorCode = {
  /** An I/O operation failed for a reason with no code of its own (EIO, EACCES, ENOTEMPTY, …). */
  IO: "PAGELOG_IO",
  /** The device is full (ENOSPC, EDQUOT). Nothing of the failed operation is durable. */
  NO_SPACE: "PAGELOG_NO_SPACE",
  /** The file or directory does not exist. */
  NOT_FOUND: "PAGELOG_NOT_FOUND",
  /** A path is empty, absolute, contains `..`, `.`, an empty segment, a backslash or NUL. */
  INVALID_PATH: "PAGELOG_INVALID_PATH",
  /** The simulated power is off: every operation after a scheduled cut fails with this. */
  POWER_CUT: "PAGELOG_POWER_CUT",
  /** The storage, file handle or log was used after `close()`. */
  CLOSED: "PAGELOG_CLOSED",
  /** Another process (or another open in this one) holds the directory's lock. */
  LOCKED: "PAGELOG_LOCKED",
  /**
   * The directory a storage (and its `LogDir`) opened was moved, replaced or deleted while open:
   * its path now names another directory, which pagelog leaves alone. Reopen at the new place.
   */
  MOVED: "PAGELOG_MOVED",
  /** Bytes on disk are damaged where they were known to be good. */
  CORRUPT: "PAGELOG_CORRUPT",
  /** A record batch uses a compression codec pagelog cannot read (snappy, lz4, zstd). */
  UNSUPPORTED_COMPRESSION: "PAGELOG_UNSUPPORTED_COMPRESSION",
  /** A batch would be larger than `maxBatchBytes` (Kafka's `max.message.bytes`). */
  RECORD_TOO_LARGE: "PAGELOG_RECORD_TOO_LARGE",
  /** An offset below the log start offset or past the log end offset (Kafka's OffsetOutOfRange). */
  OFFSET_OUT_OF_RANGE: "PAGELOG_OFFSET_OUT_OF_RANGE",
  /**
   * A `records()` iterator's log was truncated below the offset it had got to: records it handed
   * out are gone (or were replaced by others), so going on would splice two histories together.
   * Start again from an offset the log holds (a follower: find where its history diverged).
   */
  TRUNCATED: "PAGELOG_TRUNCATED",
  /**
   * The log failed an I/O while writing (a failed fsync above all) and refuses writes until it
   * is reopened: after a failed fsync nothing can say which bytes reached the disk.
   */
  FAILED: "PAGELOG_FAILED",
  /**
   * A course policy given in `LogOptions.policies` (a reader's `writeVarint`, `lookup`,
   * `segmentsToDelete` or `recover`) threw or returned an answer the log cannot use safely. The
   * error's `policy` says which function and why; the log wrote nothing on its answer.
   */
  POLICY: "PAGELOG_POLICY",
  /**
   * A write (append, flush, truncateTo, deleteRecordsBefore, applyRetention, checkpoint) on a
   * `Log` or `LogDir` opened with `{ readOnly: true }`: a read-only open never changes a file.
   */
  READ_ONLY: "PAGELOG_READ_ONLY",
  /**
   * A serializer failed on a record being appended (nothing was appended), or a deserializer
   * rejected a stored key or value: the message names the partition and the offset, and the
   * deserializer's error is the cause. A record is never skipped.
   */
  SERIALIZATION: "PAGELOG_SERIALIZATION",
  /**
   * `dir.topic(name, { partitions })` with fewer partitions than the directory records for the
   * topic: as in Kafka, partitions can be added, never removed (keys would move partitions).
   */
  PARTITION_COUNT: "PAGELOG_PARTITION_COUNT",
  /**
   * An optional peer dependency an entry needs is not installed: `pagelog/kafka` and
   * `pagelog mirror` need `kafkajs` (`npm install kafkajs`). The message names the package.
   */
  MISSING_DEPENDENCY: "PAGELOG_MISSING_DEPENDENCY",
  /**
   * The Kafka cluster refused or could not do what the mirror needs: no broker answered at the
   * start, the target topic does not exist or has too few partitions, or another mirror of the
   * same target partition took over (fenced this one). The message says which.
   */
  KAFKA: "PAGELOG_KAFKA",
  /**
   * The mirror's target and its source disagree: the target's checkpoint is past the source's
   * end (the source lost records it had mirrored, or is another log), below its start (records
   * were deleted before they were mirrored), or names another source partition. Nothing is produced.
   */
  MIRROR_DIVERGED: "PAGELOG_MIRROR_DIVERGED",
  /**
   * An internal invariant of pagelog failed (a chokepoint's assertion: the segment list, a flush
   * and the recovery point, an encoded batch, a truncation, a checkpoint): a bug in pagelog, not
   * in the input or the disk. The message, which starts with "pagelog bug:", names the invariant;
   * please report it. Nothing past the failed check was written; a write that failed so fails the log.
   */
  BUG: "PAGELOG_BUG",
} as const;

/** The `code` of a `PagelogError`: one of the `ErrorCode` constants' values (`"PAGELOG_CORRUPT"`, …). */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Marks pagelog errors across copies of the module (the ESM and CJS builds loaded side by side). */
const BRAND = Symbol.for("pagelog.PagelogError");

/** What a `PagelogError` may carry besides its message and code. */
export interface PagelogErrorOptions {
  /** The underlying error, for example the `node:fs` error with its OS `code` and `syscall`. */
  cause?: unknown;
  /** The storage path the error concerns, when there is one. */
  path?: string;
  /** For `PAGELOG_POLICY`: which policy failed, and how. */
  policy?: PolicyFault;
}

/** What a `PAGELOG_POLICY` error says about the reader's function. */
export interface PolicyFault {
  /** The policy's name: `writeVarint`, `lookup`, `segmentsToDelete` or `recover`. */
  readonly policy: string;
  /** Why its answer was refused, in a sentence ("threw RangeError: …" when it threw). */
  readonly why: string;
  /** What it returned (absent when it threw). */
  readonly returned?: unknown;
  /** For `recover`: the first byte position where reading the bytes it kept fails. */
  readonly breaksAt?: number;
}

/**
 * Every error pagelog raises for bad input or a failed operation: `code` is stable (the README's Errors section lists
 * each), the message is for people. Programmer mistakes (a wrong argument type or option) are `TypeError`s or
 * `RangeError`s instead. `instanceof` works across the ESM and CJS builds loaded side by side.
 */
export class PagelogError extends Error {
  /** Always `"PagelogError"`. */
  override readonly name = "PagelogError";
  /** What went wrong, as a stable code to branch on (see `ErrorCode`). */
  readonly code: ErrorCode;
  /** The storage path the error concerns, or undefined when there is none. */
  readonly path: string | undefined;
  /** Set on `PAGELOG_POLICY` errors: the reader's function and what was wrong with its answer. */
  readonly policy: PolicyFault | undefined;

  /** An error with `message` (for people), `code` (for programs) and, in `options`, the cause and the path. */
  constructor(message: string, code: ErrorCode, options: PagelogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
    this.policy = options.policy;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** `instanceof` that also recognises errors from another loaded copy of pagelog. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** True when `err` is a {@link PagelogError}, optionally with the given code. */
export function isPagelogError(err: unknown, code?: ErrorCode): err is PagelogError {
  return err instanceof PagelogError && (code === undefined || err.code === code);
}

/**
 * Whether the expensive invariant checks run (re-parsing what was just encoded, walking the whole
 * segment list): `PAGELOG_CHECKS=all` in the environment, read once when pagelog loads. The test
 * setup sets it (vitest.config.ts; docs/testing.md); production and the benchmarks leave it unset,
 * and run only the cheap checks, which are always on.
 */
export const expensiveChecks: boolean = checksSwitch();

function checksSwitch(): boolean {
  // No `process` in a browser: the expensive checks stay off there.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.PAGELOG_CHECKS === "all";
}

/** The `PAGELOG_BUG` error of a failed invariant: `what` says which (it gets the "pagelog bug:" prefix). */
export function pagelogBug(what: string, path?: string): PagelogError {
  return new PagelogError(`pagelog bug: ${what}`, ErrorCode.BUG, path === undefined ? {} : { path });
}

/**
 * A chokepoint's assertion: throws `PAGELOG_BUG` with `what()` (built only on failure) unless
 * `ok`. Cheap conditions only here on the hot path; guard an expensive one with `expensiveChecks`.
 */
export function assertInvariant(ok: boolean, what: () => string, path?: string): asserts ok {
  if (!ok) throw pagelogBug(what(), path);
}

/** True when `err`, or one of its causes, is a failed invariant (`PAGELOG_BUG`). */
export function isPagelogBug(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (isPagelogError(e, ErrorCode.BUG)) return true;
  return false;
}

/** A `PAGELOG_CORRUPT` error: bytes that should be a valid structure are not. */
export function corruptError(message: string, path?: string): PagelogError {
  return new PagelogError(message, ErrorCode.CORRUPT, path === undefined ? {} : { path });
}
