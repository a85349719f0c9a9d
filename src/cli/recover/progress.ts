/**
 * The progress lines `pagelog recover` prints to stderr while a log's recovery walks its
 * segments. A recovery of millions of segments reports millions of times, so lines are
 * throttled: the first and last report of each log, and between them one whenever the walk has
 * gone another `step` of the way. On a terminal one line is redrawn in place (`\r`).
 */
import type { RecoveryProgress } from "../../log/log-dir.js";
import { plural } from "../../text/plural.js";

/** Bytes as a person reads them: `512 B`, `12.0 KiB`, `40.0 MiB`, `1.5 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]!}`;
}

/** How far a walk got, in [0, 1]: by bytes, or by segments when there are no bytes to walk. */
function fractionOf(p: RecoveryProgress): number {
  if (p.bytesToWalk > 0) return Math.min(1, p.bytesWalked / p.bytesToWalk);
  const segments = p.segmentsWalked + p.segmentsLeft;
  return segments === 0 ? 1 : p.segmentsWalked / segments;
}

/** One progress line, without its end: `recovering orders-0: 12.0 MiB of 40.0 MiB (30%), 3 segments left`. */
function progressLine(p: RecoveryProgress): string {
  const percent = Math.floor(fractionOf(p) * 100);
  return `recovering ${p.log}: ${formatBytes(p.bytesWalked)} of ${formatBytes(p.bytesToWalk)} (${percent}%), ${plural(p.segmentsLeft, "segment")} left`;
}

interface ProgressPrinter {
  /** The `onProgress` listener. */
  readonly listener: (progress: RecoveryProgress) => void;
  /** Ends a redrawn line, if one is showing (before anything else is printed). */
  end(): void;
}

/**
 * A listener printing throttled lines to `stream`: `tty` redraws one line, otherwise one line
 * per printed report. `step` is the fraction of a walk between two lines (0.1: every 10%).
 */
export function progressPrinter(stream: { write(text: string): unknown }, tty: boolean, step: number): ProgressPrinter {
  let current: string | undefined; // the log whose walk is being shown
  let shownAt = 0;
  let open = false; // a redrawn line is on screen, unended
  const end = (): void => {
    if (open) stream.write("\n");
    open = false;
  };
  const listener = (p: RecoveryProgress): void => {
    const fraction = fractionOf(p);
    const first = p.log !== current;
    const last = p.segmentsLeft === 0;
    if (!first && !last && fraction - shownAt < step) return;
    if (first) end();
    current = p.log;
    shownAt = fraction;
    if (tty) {
      stream.write(`\r${progressLine(p)}\x1b[K`);
      open = true;
      if (last) end();
    } else {
      stream.write(`${progressLine(p)}\n`);
    }
  };
  return { listener, end };
}
