/*
 * The recovery report of an open that repaired nothing, and the clock its `durationMs` is read
 * on: shared by a new log's open (open-log-files.ts), the read-only load (which walks but never
 * repairs) and the loader, so that the three say "nothing changed" with the same fields.
 */

/** What opening a log had to do, so a user can see what a crash cost. */
export interface LogRecovery {
  /** The directory was shut down cleanly: nothing was scanned but the index sanity checks. */
  readonly clean: boolean;
  /** Segments whose batches were walked and validated. */
  readonly segmentsScanned: number;
  /** Bytes of `.log` walked. */
  readonly bytesScanned: number;
  /** Bytes cut off at the first invalid batch. */
  readonly bytesTruncated: number;
  /** Segments deleted because they came after a truncation or a gap. */
  readonly segmentsDeleted: number;
  /**
   * Segments whose `.index` and `.timeindex` were rebuilt from the log: by the open, and since
   * then by the first uses of old segments (which a clean open checks on first use).
   */
  readonly indexesRebuilt: number;
  /** Leftover files removed (`*.tmp`, `*.deleted`, orphaned indexes). */
  readonly filesRemoved: number;
  /** Their names, in the partition directory: what a crash had left half done. */
  readonly leftoversRemoved: readonly string[];
  /**
   * Where the open cut a torn tail (`bytesTruncated` counts its bytes): `"last-segment"`, or
   * `"mid-log"` when the damage was in an earlier segment and every later one was deleted (they
   * are among `segmentsDeleted`); `"none"` when nothing was cut.
   */
  readonly tailCut: "none" | "last-segment" | "mid-log";
  /** Segments deleted because they did not continue the log (an offset gap above the recovery point). */
  readonly segmentsDeletedAfterGap: number;
  /** Interrupted `truncateTo` calls the open finished: a replacement segment overlapped the one it was cutting. */
  readonly truncationsFinished: number;
  /** The checkpointed start offset was past every surviving record: the log started over, empty, there. */
  readonly startedOver: boolean;
  /** Interrupted compactions the open finished (a cleaned `<base>.log.swap` renamed into place: docs/compaction.md). */
  readonly swapsCompleted: number;
  /** Milliseconds spent opening this log. */
  readonly durationMs: number;
}

/** A monotonic clock in ms: `performance` where there is one, else the date. */
export function millisecondsNow(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

/** The report of an open started at `started` that walked what `scanned` says and changed nothing. */
export function unrepairedRecovery(
  clean: boolean,
  started: number,
  scanned: { readonly segments: number; readonly bytes: number } = { segments: 0, bytes: 0 },
): LogRecovery {
  return {
    clean,
    segmentsScanned: scanned.segments,
    bytesScanned: scanned.bytes,
    bytesTruncated: 0,
    segmentsDeleted: 0,
    indexesRebuilt: 0,
    filesRemoved: 0,
    leftoversRemoved: [],
    tailCut: "none",
    segmentsDeletedAfterGap: 0,
    truncationsFinished: 0,
    startedOver: false,
    swapsCompleted: 0, // only the writer's loader finishes an interrupted compaction's swap
    durationMs: millisecondsNow() - started,
  };
}
