/*
 * Progress of a long recovery, as Kafka's KIP-831 metrics report it (remaining logs and
 * segments to recover): an unclean open that must walk gigabytes of segments tells the
 * application how far it got, through `LogDir.open(…, { onProgress })`.
 */

/** One report: sent before a log's walk starts and after each segment it walked. */
export interface RecoveryProgress {
  /** The partition directory being recovered, `<topic>-<partition>`. */
  readonly log: string;
  /** Bytes of `.log` walked so far in this log's recovery. */
  readonly bytesWalked: number;
  /** Bytes of `.log` this recovery walks in all (the segments from the recovery point on). */
  readonly bytesToWalk: number;
  /** Segments walked so far. */
  readonly segmentsWalked: number;
  /** Segments still to walk. */
  readonly segmentsLeft: number;
}

export type ProgressListener = (progress: RecoveryProgress) => void;

/** Checks the `onProgress` option: a function or undefined, else a TypeError naming it. */
export function checkProgressListener(value: unknown): ProgressListener | undefined {
  if (value === undefined || typeof value === "function") return value as ProgressListener | undefined;
  throw new TypeError(`option onProgress must be a function (progress) => void, got ${typeof value}`);
}

/**
 * Sends a report. A listener that throws is not allowed to fail a recovery it only watches:
 * its error is dropped (the recovery's own outcome is what the open reports).
 */
export function report(listener: ProgressListener | undefined, progress: RecoveryProgress): void {
  if (listener === undefined) return;
  try {
    listener(progress);
  } catch {
    // watched, not part of the recovery
  }
}
