/**
 * One segment as an open log holds it: loaded (a `Segment`, its files open) or idle (only what
 * the directory listing says: its base offset, from its name, and its end, the next segment's
 * base). A clean open leaves every old segment idle, so opening a partition of many segments
 * costs its listing, not its history; an idle segment holds no descriptor and no index entry.
 *
 * An idle segment is opened, sized and checked on its first use (`load()`, which runs
 * idle-slot.ts: the parts that make idle slots, the loader, the read-only mode and the cleaner's
 * swap, bring it with them, so a log whose segments were all opened, a new one, never loads it).
 * A check that fails is `PAGELOG_CORRUPT` naming the file, from that use, with nothing written; a
 * use after it fails the same way. Concurrent first uses share one load. See docs/recovery.md
 * ("Lazy segments").
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Segment, SegmentOptions } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";

/** What every slot of one log shares (one object per log, not per segment). */
export interface SlotContext {
  readonly storage: Storage;
  /** The partition directory. */
  readonly dir: string;
  readonly segmentOptions: SegmentOptions;
  /** What first uses did so far (the log adds them to its `recovery`). */
  readonly firstUses: FirstUses;
  /**
   * A read-only open: a first use opens the files read-only and keeps a rebuilt index in memory
   * (nothing is ever written; another process may own the files).
   */
  readonly readOnly?: boolean;
}

/** What an idle slot's first use (idle-slot.ts) gets of it. */
export interface IdleSpan {
  readonly context: SlotContext;
  readonly baseOffset: number;
  /** The next segment's base: where the listing says this one ends. */
  readonly end: number;
  /** Index files without a `.log` inside its span (see `SegmentSlot.orphans`). */
  readonly orphans: readonly string[];
  /** The first use proved them garbage and removed them. */
  orphansRemoved(): void;
  /** Whether `close()` was called meanwhile. */
  isClosed(): boolean;
}

/** Opens and checks an idle slot's segment on its first use (idle-slot.ts). */
type FirstUse = (span: IdleSpan) => Promise<Segment>;

interface FirstUses {
  /** Idle segments loaded (opened, sized and checked). */
  segmentsLoaded: number;
  /** Of those, the ones whose indexes failed a check (or were missing) and were rebuilt. */
  indexesRebuilt: number;
}

export class SegmentSlot {
  readonly baseOffset: number;
  readonly #context: SlotContext;
  /** Idle: the next segment's base, where the listing says this one ends. */
  readonly #end: number;
  /** Idle: the `.log`'s size once something needed it (retention), else undefined. */
  #size: number | undefined;
  #segment: Segment | undefined;
  /**
   * Index files a clean open found inside this segment's span with no `.log` of their own (paths).
   * A compaction that crashed while deleting the segments it merged leaves such files, and so
   * does a `.log` lost to damage. Only a first use that proves the span whole (its batches end
   * where the next segment starts) tells the two apart: then they are garbage and go; a use that
   * rejects leaves them, as it leaves every file (docs/guarantees.md, guarantee 10).
   */
  #orphans: readonly string[] = [];
  /** The first use in progress: every use meanwhile waits for it (one load, never two). */
  #loading: Promise<Segment> | undefined;
  #closed = false;
  /** Idle: how its first use opens and checks it. */
  readonly #firstUse: FirstUse | undefined;

  private constructor(
    context: SlotContext,
    baseOffset: number,
    end: number,
    segment: Segment | undefined,
    firstUse?: FirstUse,
  ) {
    this.#context = context;
    this.baseOffset = baseOffset;
    this.#end = end;
    this.#segment = segment;
    this.#firstUse = firstUse;
  }

  /**
   * A segment not loaded yet, ending (by the listing) at `end`, that `firstUse` opens and checks
   * (make one with idle-slot.ts's `idleSlot`); `size` if already known; `orphans`: index files
   * with no `.log` inside its span, removed once a first use proves them garbage.
   */
  static idle(
    firstUse: FirstUse,
    context: SlotContext,
    baseOffset: number,
    end: number,
    size?: number,
    orphans: readonly string[] = [],
  ): SegmentSlot {
    const slot = new SegmentSlot(context, baseOffset, end, undefined, firstUse);
    slot.#size = size;
    slot.#orphans = orphans;
    return slot;
  }

  /** A segment that is open already (the active one, a new one). */
  static of(context: SlotContext, segment: Segment): SegmentSlot {
    return new SegmentSlot(context, segment.baseOffset, segment.nextOffset, segment);
  }

  /** The segment if it is loaded, else undefined. */
  get segment(): Segment | undefined {
    return this.#segment;
  }

  /** One past its last offset: the loaded segment's, or (idle) the next segment's base. */
  get nextOffset(): number {
    return this.#segment?.nextOffset ?? this.#end;
  }

  /** Bytes in its `.log` if known (loaded, or sized), else undefined. */
  get knownSize(): number | undefined {
    return this.#segment?.size ?? this.#size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Index files without a `.log` in its span, not removed yet: deleting the segment removes them too. */
  get orphans(): readonly string[] {
    return this.#orphans;
  }

  /** The segment, loading (and checking) it on first use. */
  load(): Promise<Segment> {
    if (this.#segment !== undefined) return Promise.resolve(this.#segment);
    if (this.#closed) return Promise.reject(closedLog(this.#context.dir));
    if (this.#loading === undefined) {
      const loading = this.#load();
      this.#loading = loading;
      // A failed first use leaves the slot idle: the next use checks again (and fails again).
      loading.then(
        () => undefined,
        () => {
          if (this.#loading === loading) this.#loading = undefined;
        },
      );
    }
    return this.#loading;
  }

  /** The `.log`'s size: one stat of an idle segment (no descriptor, no check), kept. */
  async size(): Promise<number> {
    const known = this.knownSize;
    if (known !== undefined) return known;
    const path = this.#logPath();
    const stat = await this.#context.storage.stat(path);
    if (stat === null || stat.kind !== "file") throw missingSegment(path);
    this.#size = stat.size;
    return stat.size;
  }

  /** Closes the segment if loaded (after a first use in progress settles); no later use loads it. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading?.catch(() => undefined);
    await this.#segment?.close();
  }

  async #load(): Promise<Segment> {
    const segment = await this.#firstUse!({
      context: this.#context,
      baseOffset: this.baseOffset,
      end: this.#end,
      orphans: this.#orphans,
      orphansRemoved: () => {
        this.#orphans = [];
      },
      isClosed: () => this.#closed,
    });
    this.#segment = segment;
    this.#size = undefined;
    return segment;
  }

  #logPath(): string {
    return segmentFilePath(this.#context.dir, this.baseOffset, LOG_SUFFIX);
  }
}

/** A segment the log held at open whose `.log` is gone. */
export function missingSegment(path: string): PagelogError {
  return new PagelogError(`segment ${path} is missing: the log held it when it was opened`, ErrorCode.CORRUPT, {
    path,
  });
}

/** A use of a segment of a closed log. */
export function closedLog(dir: string): PagelogError {
  return new PagelogError(`log ${dir} is closed`, ErrorCode.CLOSED, { path: dir });
}
