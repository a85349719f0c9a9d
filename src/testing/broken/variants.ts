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
 * The compaction variants (`variantWorkload`) break the log cleaner's swap: only the compaction
 * workload, whose logs compact, reaches them.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { CLEANER_CHECKPOINT } from "../../log/checkpoints/cleaner-checkpoint.js";
import { crc32c, type Crc32c } from "../../format/crc32c.js";
import {
  CLEAN_SHUTDOWN_FILE,
  LOG_START_CHECKPOINT,
  type LogDirOptions,
  parsePartitionName,
  RECOVERY_POINT_CHECKPOINT,
} from "../../log/log-dir.js";
import { parseSegmentFileName } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";
import type { CrashTestAdapter } from "../engine/adapter.js";
import { HookedStorage, type StorageHook, type StorageOp } from "../hooked-storage.js";
import { adapterFor, tunedDirOptions } from "../pagelog-adapter.js";

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
  /** Compaction: the cleaned segment is swapped into place without its bytes ever being fsynced. */
  "swap-before-cleaned-fsync",
  /** Compaction: the new clean point's rename is not made durable before the swap that needs it. */
  "clean-point-not-durable",
] as const;

/** The variants that only a compacted log has: the compaction workload runs them. */
const COMPACTION_VARIANTS: ReadonlySet<BrokenVariant> = new Set([
  "swap-before-cleaned-fsync",
  "clean-point-not-durable",
]);

/** The workload that reaches the variant's bug: `"compaction"` for the cleaner's, else the caller's choice. */
export function variantWorkload(variant: BrokenVariant | undefined): "compaction" | undefined {
  return variant !== undefined && COMPACTION_VARIANTS.has(variant) ? "compaction" : undefined;
}

export type BrokenVariant = (typeof BROKEN_VARIANTS)[number];

export function isBrokenVariant(value: unknown): value is BrokenVariant {
  return typeof value === "string" && (BROKEN_VARIANTS as readonly string[]).includes(value);
}

/** How the crash harness runs a broken log instead of the real one. */
interface BrokenLog {
  readonly variant: BrokenVariant;
  /** The directory options to open it with (a variant may change one). */
  dirOptions(options: LogDirOptions): LogDirOptions;
  /** One `LogDir.open` of the broken log: the storage to give it, and two moments to hear about. */
  session(storage: Storage): BrokenSession;
}

interface BrokenSession {
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
const isCheckpointFile = (path: string): boolean =>
  !path.includes("/") && (path.startsWith(RECOVERY_POINT_CHECKPOINT) || path.startsWith(LOG_START_CHECKPOINT));

function isFailedSync(err: unknown): boolean {
  return err instanceof PagelogError && err.code !== ErrorCode.POWER_CUT;
}

// ---- the variants ---------------------------------------------------------------------------

type Session = { hook: StorageHook; opened?: () => void; settle?: () => Promise<void> };

function broken(
  variant: BrokenVariant,
  newSession: () => Session,
  dirOptions: (options: LogDirOptions) => LogDirOptions = (o) => o,
): BrokenLog {
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
 * while the data below it is still only in the page cache: a flush's calls come in the broken
 * order. A sync held back
 * is run before any other storage call (the checkpoint's own calls aside) and when the log call
 * resolves, so syncs outside a flush (truncation, recovery, an eviction) are only delayed, never
 * lost, and keep their order against every write. Approximate: the broken flush checkpointed on
 * every flush whatever the interval, and again when the interval was due; checked against the
 * old in-product switch, 187 of the first 200 schedules of run seed 1 had the same outcome (12
 * caught by both; each catches some the other does not).
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
 * no-dir-fsync-after-roll. Once the directory and its log are open (`opened()`), an fsync of a
 * partition directory is dropped unless the call just before it removed or renamed a file
 * there: the fsyncs the log makes right after its own removals (retention) and its rename (a
 * truncation inside a batch) run, and what is dropped is the flush's, which makes a roll's new
 * segment files (and any removal the flush covers) durable. The opening's own fsyncs (the
 * loader's) run. Approximate: a flush whose directory fsync comes right after a removal keeps
 * it; checked against the old in-product switch, 299 of the first 300 schedules of run seed 1
 * had the same outcome (117 caught by both).
 */
function noDirFsyncAfterRoll(): Session {
  let opening = true;
  /** The partition the previous call removed or renamed a file in. */
  let justChanged: string | undefined;
  const hook: StorageHook = async (op, run) => {
    const previous = justChanged;
    justChanged =
      (op.kind === "remove" || op.kind === "rename") && op.path.includes("/")
        ? op.path.slice(0, op.path.indexOf("/"))
        : undefined;
    if (op.kind === "syncDir" && isPartitionDir(op.path) && !opening && previous !== op.path) return undefined;
    return run();
  };
  return { hook, opened: () => (opening = false) };
}

/**
 * marker-not-durably-removed. The root directory's fsync that comes right after the
 * clean-shutdown marker's removal is dropped. Exact: open removes the marker and fsyncs the root
 * next; later fsyncs of the root (temp-file cleanup, the first checkpoint) still run. Checked
 * against the old in-product switch: the same outcome on each of the first 200 schedules.
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
 * recovery-truncation-not-durable. A segment's recovery commit (the cut of its torn tail, its
 * rebuilt indexes) is not fsynced, and appends follow. The commit's calls are recognised by
 * where they fall: while the directory and its log open (until `opened()`), the first fsync of
 * each segment's `.log` is its commit's (nothing syncs a log earlier while opening; a clean
 * open's index rebuild syncs only the indexes); once open, the first fsync of a `.log` that was
 * just renamed into place is (a truncation inside a batch rewrites the segment and recovers it).
 * That `.log` fsync is dropped, and so are the fsyncs of the segment's `.index` and `.timeindex`
 * that follow it. Later fsyncs while opening (the loader's rewrite of the unflushed tail) run,
 * as they did in the broken recovery.
 *
 * The broken recovery left the segment flagged unsynced (its `.log` only if it cut it), so the
 * segment's next flush synced those files again. That flush is not visible as such, so the
 * dropped fsyncs are owed, and fall due where it shows: at the segment's next fsync (each owed
 * one replaced by the log's own fsync of that file when that comes next, in their order); for
 * the active segment, at its close (the log's close flushes it first); for one a roll left
 * behind, at the partition's next segment fsync (the flush syncs it first). A segment closed
 * otherwise is never flushed: its debt is dropped. Due fsyncs run before any other call. The
 * storage then sees the calls the broken recovery made, in the same order: checked against the
 * old in-product switch, each of the first 900 schedules of run seed 1 had the same outcome. Not exact for a descriptor pool that evicts a recovered `.log` before its commit (that
 * eviction's fsync would be the one dropped; the crash workload's pool never evicts).
 */
function recoveryTruncationNotDurable(): Session {
  let opening = true;
  /** Segments (`<dir>/<base>`) whose commit was seen while opening. */
  const committed = new Set<string>();
  /** Segments whose `.log` was renamed into place once open: they recover next. */
  const replaced = new Set<string>();
  /** `.log` files cut while opening (their commit's fsync is owed again). */
  const cut = new Set<string>();
  /** Index files whose next fsync is dropped (they follow a dropped commit's `.log` fsync). */
  const skip = new Set<string>();
  const debts = new OwedSyncs();

  const hook: StorageHook = async (op, run) => {
    const segment = segmentOf(op.path);
    const isLog = op.path.endsWith(".log");
    if (op.kind === "open" && segment !== undefined && isLog) {
      const current = debts.activeOf(segment);
      if (opening ? current === undefined || baseOf(segment) >= baseOf(current) : op.create === true)
        debts.setActive(segment);
    }
    if (op.kind === "rename" && op.to !== undefined && op.to.endsWith(".log")) {
      const target = segmentOf(op.to);
      if (target !== undefined) replaced.add(target);
    }
    if (opening && op.kind === "truncate" && segment !== undefined && isLog) cut.add(op.path);
    if (op.kind === "sync" && segment !== undefined) {
      if (isLog && ((opening && !committed.has(segment)) || replaced.has(segment))) {
        committed.add(segment);
        replaced.delete(segment);
        if (cut.delete(op.path)) debts.owe(segment, { path: op.path, run });
        const stem = op.path.slice(0, -".log".length);
        skip.add(`${stem}.index`).add(`${stem}.timeindex`);
        return undefined;
      }
      if (skip.delete(op.path)) {
        debts.owe(segment, { path: op.path, run });
        return undefined;
      }
    }
    if ((op.kind === "closeFile" || op.kind === "remove") && segment !== undefined && debts.owes(segment)) {
      if (!opening && op.kind === "closeFile" && debts.activeOf(segment) === segment) debts.fallDue(segment);
      else debts.forgive(segment);
    }
    if (opening) return run();
    if (op.kind === "sync" && segment !== undefined) {
      debts.fallDueBehind(segment);
      if (debts.owes(segment) && isLog) {
        // Its own `.log` fsync comes first, then what it owes (the `.log` among it is this one).
        await debts.runDue(op);
        const result = await run();
        debts.fallDue(segment);
        debts.paid(op.path);
        return result;
      }
      debts.fallDue(segment);
    }
    await debts.runDue(op);
    return run();
  };
  return { hook, opened: () => (opening = false), settle: () => debts.runDue() };
}

/** An fsync the broken recovery dropped, kept to run when the log's next flush would have. */
type Sync = { readonly path: string; readonly run: () => Promise<unknown> };

const dirOf = (segment: string): string => segment.slice(0, segment.indexOf("/"));
const baseOf = (segment: string): number => Number(segment.slice(segment.indexOf("/") + 1));

/**
 * recoveryTruncationNotDurable's ledger: the fsyncs each segment owes, and when they fall due (at
 * the segment's next fsync, at the active segment's close, at the partition's next fsync for a
 * segment a roll left behind).
 */
class OwedSyncs {
  /** Per segment: the fsyncs its broken commit left to its next flush. */
  readonly #owed = new Map<string, Sync[]>();
  /** Per partition: its active segment (the highest opened while opening, then each new one). */
  readonly #active = new Map<string, string>();
  /** Segments a roll left behind while they owed fsyncs: due at the partition's next fsync. */
  readonly #rolled = new Set<string>();
  /** Owed fsyncs that fell due: they run before the next call, unless it is one of them. */
  #due: Sync[] = [];

  owes(segment: string): boolean {
    return this.#owed.has(segment);
  }

  owe(segment: string, sync: Sync): void {
    this.#owed.set(segment, [...(this.#owed.get(segment) ?? []), sync]);
  }

  /** A segment closed otherwise than as the active one is never flushed: its debt is dropped. */
  forgive(segment: string): void {
    this.#owed.delete(segment);
    this.#rolled.delete(segment);
  }

  fallDue(segment: string): void {
    const syncs = this.#owed.get(segment);
    this.forgive(segment);
    if (syncs !== undefined) this.#due = [...this.#due, ...syncs];
  }

  /** A fsync of `segment`'s partition: what a roll left behind there falls due. */
  fallDueBehind(segment: string): void {
    for (const behind of [...this.#rolled])
      if (dirOf(behind) === dirOf(segment) && behind !== segment) this.fallDue(behind);
  }

  /** The log just synced `path` itself: that owed fsync is paid. */
  paid(path: string): void {
    this.#due = this.#due.filter((sync) => sync.path !== path);
  }

  async runDue(op?: StorageOp): Promise<void> {
    while (this.#due.length > 0) {
      const next = this.#due.shift()!;
      if (op?.kind === "sync" && op.path === next.path) return; // the log syncs it itself, now
      await next.run();
    }
  }

  activeOf(segment: string): string | undefined {
    return this.#active.get(dirOf(segment));
  }

  setActive(segment: string): void {
    const previous = this.#active.get(dirOf(segment));
    if (previous !== undefined && previous !== segment && this.#owed.has(previous)) this.#rolled.add(previous);
    this.#active.set(dirOf(segment), segment);
  }
}

/**
 * skip-crc-in-recovery: `LogOptions.crc32c` set to a function that, when the batch it is given
 * already holds a CRC, returns that CRC, so every check matches; a batch being encoded (CRC field
 * still 0) gets its real CRC, so what the log writes stays valid Kafka. (`crc32c` is called on
 * the bytes after the CRC field, a view into the whole batch: the field is the 4 bytes before.)
 * Approximate: every CRC check is skipped (recovery's, and the tail scan of a clean open), not
 * only recovery's; a stored CRC of 0 is still checked. Checked against the old in-product
 * switch: the same outcome on each of the first 200 schedules of run seed 1.
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
 * swallows any segment file's fsync failure, in truncation and recovery too. Checked against the
 * old in-product switch: the same outcome on each of the first 200 schedules of run seed 1.
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

/**
 * swap-before-cleaned-fsync. Every fsync of a `*.cleaned` file is dropped: the cleaner renames
 * the cleaned segment to `.swap` and into place, and removes the segments it replaces, while its
 * bytes are only in the page cache (nothing fsyncs a segment below the recovery point again).
 * Exact: only the cleaner writes `.cleaned` files, and it fsyncs each once, before the renames.
 */
function swapBeforeCleanedFsync(): Session {
  const hook: StorageHook = async (op, run) => (op.kind === "sync" && op.path.endsWith(".cleaned") ? undefined : run());
  return { hook };
}

/**
 * clean-point-not-durable. The root directory's fsync right after `cleaner-offset-checkpoint` is
 * renamed into place is dropped: the cleaner goes on to swap cleaned segments in (their gaps legal
 * only below the new clean point) while the rename naming that clean point may still be lost, and
 * an open then finds gaps above the clean point it reads. Exact: the cleaner's checkpoint write is
 * the only rename to that name, and it fsyncs the root right after. (The other ordering bugs of a
 * swap, such as removing the replaced segments before the renames to `.swap` are durable, cannot
 * show on SimStorage: a power cut keeps a prefix of a directory's changes, as a journaling file
 * system does.)
 */
function cleanPointNotDurable(): Session {
  let justRenamed = false;
  const hook: StorageHook = async (op, run) => {
    const drop = justRenamed && op.kind === "syncDir" && op.path === "";
    justRenamed = op.kind === "rename" && op.to === CLEANER_CHECKPOINT;
    return drop ? undefined : run();
  };
  return { hook };
}

/** The broken log called `variant`. */
function brokenLog(variant: BrokenVariant): BrokenLog {
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
      return broken(
        variant,
        () => ({ hook: (_op, run) => run() }),
        (o) => ({ ...o, log: { ...o.log, crc32c: storedCrcMatches } }),
      );
    case "ignore-fsync-failure":
      return broken(variant, ignoreFsyncFailure);
    case "swap-before-cleaned-fsync":
      return broken(variant, swapBeforeCleanedFsync);
    case "clean-point-not-durable":
      return broken(variant, cleanPointNotDurable);
  }
}

/** The broken log called `variant` as a crash-engine adapter, with each schedule's settings. */
export function brokenAdapter(variant: BrokenVariant): CrashTestAdapter {
  const broken = brokenLog(variant);
  const tuned = tunedDirOptions();
  return adapterFor({
    name: `pagelog, broken: ${variant}`,
    dirOptions: (context) => broken.dirOptions(tuned(context)),
    session: (storage) => broken.session(storage),
  });
}
