/*
 * The log directory's two offset checkpoints, Kafka's `recovery-point-offset-checkpoint` and
 * `log-start-offset-checkpoint`, and when they are written: after a log's flush once the interval
 * (`checkpointIntervalMs`) has passed, on a timer for logs that flushed and went quiet, when a log
 * asks (a truncation lowering its recovery point, a start offset moved), and at close. Kafka keeps
 * these files apart from LogManager's registry of logs (its CheckpointFile classes and the
 * scheduler's flush-checkpoint task); so does pagelog: `LogDir` keeps the directory's lifecycle and
 * its open logs, and this class their checkpointed values and the schedule.
 *
 * A checkpoint reads every open log's values when it starts and writes both files durably (each
 * `<name>.tmp`, fsynced, renamed over the old one, then the root fsynced), so a crash leaves the
 * old checkpoint or the new one, whole. Logs record only recovery points whose data is durable,
 * so a checkpoint never claims more; the writer asserts what it can check (PAGELOG_BUG).
 */
import { assertInvariant, ErrorCode, PagelogError } from "../../errors.js";
import type { CheckpointEntry } from "../../format/checkpoint.js";
import type { Storage } from "../../storage/storage.js";
import { checkedClock, type Clock, type Stopwatch, stopwatchFor, systemClock } from "../options/log-clock.js";
import { SerialQueue } from "../util/serial-queue.js";
import { writeCheckpoint } from "./checkpoint-files.js";
import { LOG_START_CHECKPOINT, RECOVERY_POINT_CHECKPOINT } from "./root-files.js";

/** What a checkpoint reads of an open log. */
export interface CheckpointedLog {
  readonly status: string;
  readonly recoveryPoint: number;
  readonly startOffset: number;
  readonly endOffset: number;
}

/** Where the directory is in its life, as the schedule needs it. */
type DirStatus = "open" | "closing" | "closed";

/** What the checkpoints need of their `LogDir`. */
interface CheckpointsHost {
  readonly storage: Storage;
  /** The checkpointed values read at open (kept for logs not opened this session). */
  readonly recoveryPoints: Map<string, number>;
  readonly startOffsets: Map<string, number>;
  /** `checkpointIntervalMs`: -1 never after a flush, 0 after every flush. */
  readonly intervalMs: number;
  /** The directory's injected clock, if any (then no timer: real time must not decide what a test sees). */
  readonly clock: Clock | undefined;
  /** Whether a timer may run at all (not for a read-only directory, which writes nothing). */
  readonly timed: boolean;
  /** The logs open this session, by name. */
  readonly opened: ReadonlyMap<string, CheckpointedLog>;
  /** Whether an entry for `name` is carried forward (see `#write`). */
  readonly kept: (name: string) => boolean;
  readonly status: () => DirStatus;
  /** With `PAGELOG_CHECKS=all`: the read-back of each text written (write/write-checks.ts, loaded by `LogDir.open`). */
  readonly checkEncoded?: ((file: string, text: string, entries: readonly CheckpointEntry[]) => void) | undefined;
}

/** The recovery-point and log-start checkpoints of one log directory, and their schedule. */
export class OffsetCheckpoints {
  readonly #host: CheckpointsHost;
  readonly #queue = new SerialQueue();
  /** Elapsed time for the interval: a wall clock set back must not hold checkpoints off. */
  readonly #stopwatch: Stopwatch;
  #lastAt: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A checkpoint requested but not started yet: later requests share it (it reads the values when it starts). */
  #pending: Promise<void> | undefined;

  constructor(host: CheckpointsHost) {
    this.#host = host;
    // Checked as the logs' is: a clock that throws is a TypeError naming it, never a failed log.
    const clock = host.clock === undefined ? systemClock : checkedClock(host.clock);
    this.#stopwatch = stopwatchFor(clock);
    this.#lastAt = this.#stopwatch.now();
    if (host.intervalMs > 0 && clock === systemClock && host.timed) this.#arm();
  }

  /** The recovery point checkpointed for `name` (or set by `reopened`), if any. */
  recoveryPoint(name: string): number | undefined {
    return this.#host.recoveryPoints.get(name);
  }

  /** The log start offset checkpointed for `name` (or set by `reopened`), if any. */
  startOffset(name: string): number | undefined {
    return this.#host.startOffsets.get(name);
  }

  /** A log closed cleanly and is opened again: its own values are the newest, and durable. */
  reopened(name: string, log: CheckpointedLog): void {
    this.#host.recoveryPoints.set(name, log.recoveryPoint);
    this.#host.startOffsets.set(name, log.startOffset);
  }

  /**
   * The timer, for logs that flushed and went quiet (not for an interval of 0, which checkpoints
   * after every flush). It re-arms itself only after its checkpoint finished, so it never queues
   * a checkpoint behind an unfinished one of its own, however slow the disk.
   */
  #arm(): void {
    const timer = setTimeout(() => {
      void (async () => {
        try {
          if (this.#host.status() !== "open") return;
          if (this.#due()) await this.write();
        } catch {
          // A failed checkpoint is retried at the next tick; the logs report their own failures.
        } finally {
          if (this.#host.status() === "open" && this.#timer === timer) this.#arm();
        }
      })();
    }, this.#host.intervalMs);
    this.#timer = timer;
    (timer as { unref?: () => void }).unref?.();
  }

  #due(): boolean {
    return this.#stopwatch.now() - this.#lastAt >= this.#host.intervalMs;
  }

  /** Stops the timer (the directory is closing: its last checkpoint is close's own). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** After a log's flush: checkpoint if the interval has passed since the last one. */
  async afterFlush(): Promise<void> {
    if (this.#host.intervalMs === -1 || this.#host.status() !== "open") return;
    if (!this.#due()) return;
    await this.write();
  }

  /**
   * Writes both checkpoints durably. A checkpoint queued and not started yet will read every
   * log's values when it starts, so it serves a later request too: the queue never holds more
   * than one running and one waiting.
   */
  write(): Promise<void> {
    if (this.#pending !== undefined) return this.#pending;
    const queued: Promise<void> = this.#queue.run(async () => {
      if (this.#pending === queued) this.#pending = undefined;
      // After close the lock is released: another opener may own these files now. (While
      // closing, close() itself and the logs' last truncations still need to checkpoint.)
      if (this.#host.status() === "closed") throw new PagelogError("log directory is closed", ErrorCode.CLOSED);
      const { recoveryPoints, startOffsets, storage } = this.#host;
      for (const [name, log] of this.#host.opened) {
        if (log.status === "failed") continue; // keep its last good value: recovery will scan more
        checkLogValues(name, log);
        recoveryPoints.set(name, log.recoveryPoint);
        startOffsets.set(name, log.startOffset);
      }
      await this.#write(RECOVERY_POINT_CHECKPOINT, recoveryPoints);
      await this.#write(LOG_START_CHECKPOINT, startOffsets);
      await storage.syncDir("");
      // For the interval only: an injected clock that throws keeps the last value (the next
      // flush checkpoints again) rather than failing a checkpoint that is written, or a close.
      try {
        this.#lastAt = this.#stopwatch.now();
      } catch {
        // kept
      }
    });
    this.#pending = queued;
    return queued;
  }

  /**
   * Entries of logs this process did not open are carried forward as they were read when
   * anything is at their name: a partition whose directory is a file for now, or whose
   * dir.log() failed, may be repaired, and without its log start offset the records deleted
   * below it would reappear. Only a name with nothing there at open drops its entry: that
   * directory was deleted (its creation is always made durable first), dir.log() would open
   * it as a new log, and kept for ever such entries would grow the file past its read bound.
   * With PAGELOG_CHECKS=all, what is written reads back as exactly these entries (the pair of
   * the reader's check).
   */
  #write(file: string, values: Map<string, number>): Promise<void> {
    return writeCheckpoint(this.#host.storage, file, values, this.#host.kept, this.#host.checkEncoded);
  }
}

/**
 * The checkpoint writer's assertion: an open log's recovery point and start offset lie in
 * [0, end]. A recovery point past the end would let the next recovery skip bytes never written.
 */
function checkLogValues(name: string, log: CheckpointedLog): void {
  const end = log.endOffset;
  for (const [what, value] of [
    ["recovery point", log.recoveryPoint],
    ["start offset", log.startOffset],
  ] as const) {
    assertInvariant(
      Number.isSafeInteger(value) && value >= 0 && value <= end,
      () => `checkpoint of ${name}: ${what} ${value} outside [0, end ${end}]`,
      name,
    );
  }
}
