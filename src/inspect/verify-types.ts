/** What `pagelog verify`'s checks (verify-dir.ts, verify-partition.ts) report. */
import { ErrorCode, isPagelogError } from "../errors.js";

/** One finding that makes the directory damaged: the file, the byte, what is wrong. */
export interface Problem {
  readonly path: string;
  readonly byte: number;
  readonly problem: string;
  /** Context, for example that a torn tail is what a crash leaves and the next open cuts it. */
  readonly note?: string;
}

export interface FileReport {
  readonly path: string;
  readonly kind: "log" | "index" | "timeindex";
  /** "12 batches, offsets 0-20, 1402 bytes" or "3 entries". */
  readonly summary: string;
  readonly problems: Problem[];
  /** Batches pagelog cannot read (see `VerifyReport.unsupported`); empty for index files. */
  readonly unsupported: Problem[];
}

export interface PartitionReport {
  readonly name: string;
  readonly segments: number;
  readonly startOffset: number | null;
  readonly endOffset: number | null;
  readonly bytes: number;
  readonly files: FileReport[];
}

/** Where the checks put what they find, as they go. */
export interface Findings {
  readonly notes: string[];
  readonly problems: Problem[];
  /** What a live writer explains (see `VerifyReport.inProgress`). */
  readonly inProgress: Problem[];
  /** The pid of the live process holding the log directory's lock, if any. */
  readonly writer: number | undefined;
}

/**
 * True if `err` says the path is gone (`PAGELOG_NOT_FOUND`): a file or directory listed a moment
 * before and removed since, which a writer does all the time (a roll's leftovers, retention, the
 * cleaner's swaps). Not damage: the file is simply no longer part of the log.
 */
export function vanished(err: unknown): boolean {
  return isPagelogError(err, ErrorCode.NOT_FOUND);
}

/** True if `err` is one file's I/O failure (`PAGELOG_IO`: EACCES, EIO, not a regular file…): a finding, not the end of the run. */
export function unreadable(err: unknown): err is Error {
  return isPagelogError(err, ErrorCode.IO);
}

/** The note for a file that was listed and then was gone when it was read. */
export function vanishedNote(path: string): string {
  return `${path}: removed while verify read the directory (a writer rolled, cleaned or deleted it): not checked`;
}
