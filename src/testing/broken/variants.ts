/**
 * Deliberately broken logs, for one purpose: proving that the crash suite catches each classic
 * durability bug (`test/property/broken-variants.test.ts`, `pagelog fuzz --broken <name>`).
 *
 * None of them is a switch in the product: each one is pagelog's real `LogDir` and `Log` run
 * over a storage wrapper (`HookedStorage`) that drops, reorders or swallows the storage calls
 * the bug is about, or given a CRC function that makes every stored CRC match. The wrapper can
 * only see storage calls (paths and their order), not which line of the log made them, so some
 * variants break a little more or a little less than the bug they model: each says where.
 * Every one of them loses acknowledged data: never use one for anything but proving the suite.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { crc32c, type Crc32c } from "../../format/crc32c.js";
import { CLEAN_SHUTDOWN_FILE, LOG_START_CHECKPOINT, type LogDirOptions, parsePartitionName, RECOVERY_POINT_CHECKPOINT } from "../../log/log-dir.js";
import { parseSegmentFileName } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";
import { HookedStorage, type StorageHook, type StorageOp } from "../hooked-storage.js";

export const BROKEN_VARIANTS = [
  /** Flush writes the checkpoint (naming the new recovery point) before fsyncing the data. */
  "checkpoint-before-fsync",
  /** Flush never fsyncs the partition directory, so a rolled segment's name may not be durable. */
  "no-dir-fsync-after-roll",
  /** Open removes the clean-shutdown marker without fsyncing the directory. */
  "marker-not-durably-removed",
  /** Recovery truncates the torn tail without fsyncing the truncation before appends. */
  "recovery-truncation-not-durable",
  /** Recovery accepts batches without checking their CRC-32C. */
  "skip-crc-in-recovery",
  /** Flush ignores a failed fsync and advances the recovery point anyway. */
  "ignore-fsync-failure",
] as const;

export type BrokenVariant = (typeof BROKEN_VARIANTS)[number];

export function isBrokenVariant(value: unknown): value is BrokenVariant {
  return typeof value === "string" && (BROKEN_VARIANTS as readonly string[]).includes(value);
}

/** How the crash harness runs a broken log instead of the real one. */
export interface BrokenLog {
  readonly variant: BrokenVariant;
  /** The directory options to open it with (a variant may change one). */
  dirOptions(options: LogDirOptions): LogDirOptions;
  /** One `LogDir.open` of the broken log: the storage to give it, and two moments to hear about. */
  session(storage: Storage): BrokenSession;
}

export interface BrokenSession {
  /** What `LogDir.open` gets instead of the storage itself. */
  readonly storage: Storage;
  /** The directory and its log are open: recovery is over (and, like a call, settles). */
  opened(): Promise<void>;
  /**
   * A call on the log resolved: runs anything held back that the broken log itself would have
   * done before that call returned (only `checkpoint-before-fsync` holds anything back).
   */
  settle(): Promise<void>;
}

// ---- what a path is -------------------------------------------------------------------------

/** `<topic>-<partition>/<base>.{log,index,timeindex}`: the segment's `<topic>-<partition>/<base>`, else undefined. */
function segmentOf(path: string): string | undefined {
  const slash = path.indexOf("/");
  if (slash < 0 || path.indexOf("/", slash + 1) >= 0) return undefined;
  const dir = path.slice(0, slash);
  const file = parseSegmentFileName(path.slice(slash + 1));
  if (parsePartitionName(dir) === undefined || file === undefined) return undefined;
  return `${dir}/${file.baseOffset}`;
}

const isSegmentFile = (path: string): boolean => segmentOf(path) !== undefined;
const isPartitionDir = (path: string): boolean => !path.includes("/") && parsePartitionName(path) !== undefined;
/** The two offset checkpoints and their temp files, in the root directory. */
const isCheckpointFile = (path: string): boolean => !path.includes("/") && (path.startsWith(RECOVERY_POINT_CHECKPOINT) || path.startsWith(LOG_START_CHECKPOINT));

function isFailedSync(err: unknown): boolean {
  return err instanceof PagelogError && err.code !== ErrorCode.POWER_CUT;
}

// ---- the variants ---------------------------------------------------------------------------

type Session = { hook: StorageHook; opened?: () => void; settle?: () => Promise<void> };

function broken(variant: BrokenVariant, newSession: () => Session, dirOptions: (options: LogDirOptions) => LogDirOptions = (o) => o): BrokenLog {
  return {
    variant,
    dirOptions,
    session(storage) {
      const s = newSession();
      const settle = async (): Promise<void> => s.settle?.();
      return {
        storage: new HookedStorage(storage, s.hook),
        opened: async () => {
          s.opened?.();
          await settle();
        },
        settle,
      };
    },
  };
}

/**
 * checkpoint-before-fsync. Every flush checkpoints (the directory's interval is set to 0, as the
 * broken flush wrote the checkpoint on every flush), and the data fsyncs of segment files, with
 * the partition directory's fsync, are held back until the checkpoint that follows is durable
 * (the root directory's fsync after its rename): the checkpoint names the new recovery point
 * while the data below it is still only in the page cache. Exact for flushes. A sync held back
 * is run before any other storage call (the checkpoint's own calls aside) and when the log call
 * resolves, so syncs outside a flush (truncation, recovery, an eviction) are only delayed, never
 * lost, and keep their order against every write.
 */
function checkpointBeforeFsync(): Session {
  const held: Array<() => Promise<unknown>> = [];
  const drain = async (): Promise<void> => {
    while (held.length > 0) await held.shift()!();
  };
  const hook: StorageHook = async (op, run) => {
    if ((op.kind === "sync" && isSegmentFile(op.path)) || (op.kind === "syncDir" && isPartitionDir(op.path))) {
      held.push(run);
      return undefined;
    }
    if (isCheckpointFile(op.path)) return run();
    if (op.kind === "syncDir" && op.path === "") {
      const result = await run(); // the checkpoint is durable: only now the data fsyncs
      await drain();
      return result;
    }
    await drain();
    return run();
  };
  return { hook, settle: drain };
}

/**
 * no-dir-fsync-after-roll. An fsync of a partition directory is dropped when the only changes
 * it would make durable are file creations (a roll's new segment files); one that also covers a
 * removal or a rename runs. Approximate: the broken flush skipped only its own directory fsync,
 * while this also drops the one after a new log's first segment and after recovery re-creates a
 * lost index file (whichever code asks, a creation is what a dropped fsync loses).
 */
function noDirFsyncAfterRoll(): Session {
  const removedIn = new Set<string>();
  const hook: StorageHook = async (op, run) => {
    if ((op.kind === "remove" || op.kind === "rename") && op.path.includes("/")) removedIn.add(op.path.slice(0, op.path.indexOf("/")));
    if (op.kind === "syncDir" && isPartitionDir(op.path)) {
      if (!removedIn.has(op.path)) return undefined;
      removedIn.delete(op.path);
    }
    return run();
  };
  return { hook };
}

/**
 * marker-not-durably-removed. The root directory's fsync that comes right after the
 * clean-shutdown marker's removal is dropped. Exact: open removes the marker and fsyncs the root
 * next; later fsyncs of the root (temp-file cleanup, the first checkpoint) still run.
 */
function markerNotDurablyRemoved(): Session {
  let markerJustRemoved = false;
  const hook: StorageHook = async (op, run) => {
    const drop = markerJustRemoved && op.kind === "syncDir" && op.path === "";
    markerJustRemoved = op.kind === "remove" && op.path === CLEAN_SHUTDOWN_FILE;
    return drop ? undefined : run();
  };
  return { hook };
}

/**
 * recovery-truncation-not-durable. While the directory and its log open (until `opened()`), a
 * truncation of a segment's file makes the next fsync of each of that segment's three files a
 * no-op: recovery cut the torn tail (and rewrote the indexes) in the page cache only, and appends
 * follow. Approximate: a recovery that rebuilt the indexes without cutting the log still syncs
 * them (the broken recovery skipped those fsyncs too, which changes nothing a crash can show
 * beyond index damage recovery rebuilds), and later fsyncs of the same files run as usual.
 */
function recoveryTruncationNotDurable(): Session {
  let opening = true;
  const cut = new Set<string>();
  const skipped = new Set<string>();
  const hook: StorageHook = async (op, run) => {
    const segment = segmentOf(op.path);
    if (opening && segment !== undefined) {
      if (op.kind === "truncate") cut.add(segment);
      if (op.kind === "sync" && cut.has(segment) && !skipped.has(op.path)) {
        skipped.add(op.path);
        return undefined;
      }
    }
    return run();
  };
  return { hook, opened: () => (opening = false) };
}

/**
 * skip-crc-in-recovery: `LogOptions.crc32c` set to a function that, when the batch it is given
 * already holds a CRC, returns that CRC, so every check matches; a batch being encoded (CRC field
 * still 0) gets its real CRC, so what the log writes stays valid Kafka. (`crc32c` is called on
 * the bytes after the CRC field, a view into the whole batch: the field is the 4 bytes before.)
 * Approximate: every CRC check is skipped (recovery's, and the tail scan of a clean open), not
 * only recovery's; a stored CRC of 0 is still checked.
 */
export const storedCrcMatches: Crc32c = (bytes) => {
  if (bytes.byteOffset < 4) return crc32c(bytes);
  const stored = new DataView(bytes.buffer, bytes.byteOffset - 4, 4).getUint32(0);
  return stored !== 0 ? stored : crc32c(bytes);
};

/**
 * ignore-fsync-failure. A failed fsync of a segment file (any error but a power cut) is
 * swallowed: the log sees success and advances its recovery point. Approximate: the broken flush
 * ignored only its own fsyncs' failures (and skipped the rest of that segment's fsyncs); this
 * swallows any segment file's fsync failure, in truncation and recovery too.
 */
function ignoreFsyncFailure(): Session {
  const hook: StorageHook = async (op: StorageOp, run) => {
    if (op.kind !== "sync" || !isSegmentFile(op.path)) return run();
    try {
      return await run();
    } catch (err) {
      if (!isFailedSync(err)) throw err;
      return undefined;
    }
  };
  return { hook };
}

/** The broken log called `variant`. */
export function brokenLog(variant: BrokenVariant): BrokenLog {
  switch (variant) {
    case "checkpoint-before-fsync":
      return broken(variant, checkpointBeforeFsync, (o) => ({ ...o, checkpointIntervalMs: 0 }));
    case "no-dir-fsync-after-roll":
      return broken(variant, noDirFsyncAfterRoll);
    case "marker-not-durably-removed":
      return broken(variant, markerNotDurablyRemoved);
    case "recovery-truncation-not-durable":
      return broken(variant, recoveryTruncationNotDurable);
    case "skip-crc-in-recovery":
      return broken(variant, () => ({ hook: (_op, run) => run() }), (o) => ({ ...o, log: { ...o.log, crc32c: storedCrcMatches } }));
    case "ignore-fsync-failure":
      return broken(variant, ignoreFsyncFailure);
  }
}
