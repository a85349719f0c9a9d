/**
 * One segment as an open log holds it: loaded (a `Segment`, its files open) or idle (only what
 * the directory listing says: its base offset, from its name, and its end, the next segment's
 * base). A clean open leaves every old segment idle, so opening a partition of many segments
 * costs its listing, not its history; an idle segment holds no descriptor and no index entry.
 *
 * An idle segment is opened, sized and checked on its first use (`load()`): the checks a clean
 * open used to run on every segment (Segment.planLoadClean: the indexes' structure, the tail
 * after the last index entry, the last time-index entry), plus that its batches end exactly where
 * the next segment starts (or, wholly below the clean point, before it: `cleanedAway`). A check
 * that fails is `PAGELOG_CORRUPT` naming the file, from that use, with nothing written; a use
 * after it fails the same way. Concurrent first uses share one load. See docs/recovery.md ("Lazy
 * segments").
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { cleanedAway } from "../../segment/batch-scanner.js";
import { Segment, type SegmentOptions } from "../../segment/segment.js";
import { LOG_SUFFIX, segmentFilePath } from "../../segment/segment-names.js";
import type { Storage } from "../../storage/storage.js";
import { removeIfThere } from "./segment-files.js";

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

  private constructor(context: SlotContext, baseOffset: number, end: number, segment: Segment | undefined) {
    this.#context = context;
    this.baseOffset = baseOffset;
    this.#end = end;
    this.#segment = segment;
  }

  /**
   * A segment not loaded yet, ending (by the listing) at `end`; `size` if already known; `orphans`:
   * index files with no `.log` inside its span, removed once a first use proves them garbage.
   */
  static idle(
    context: SlotContext,
    baseOffset: number,
    end: number,
    size?: number,
    orphans: readonly string[] = [],
  ): SegmentSlot {
    const slot = new SegmentSlot(context, baseOffset, end, undefined);
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
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#loading === undefined) {
      const loading = this.#firstUse();
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
    if (stat === null || stat.kind !== "file") throw this.#missing(path);
    this.#size = stat.size;
    return stat.size;
  }

  /** Closes the segment if loaded (after a first use in progress settles); no later use loads it. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading?.catch(() => undefined);
    await this.#segment?.close();
  }

  async #firstUse(): Promise<Segment> {
    const { storage, dir, segmentOptions } = this.#context;
    const path = this.#logPath();
    // Read-only: a segment the writer deleted since the last refresh went by its retention (or
    // deleteRecordsBefore): the offsets are below its start now, as a fetch there would say.
    if (this.#context.readOnly === true && (await storage.stat(path)) === null) {
      throw new PagelogError(
        `segment ${path} is gone: its writer deleted it (retention or deleteRecordsBefore) since the log was last refreshed`,
        ErrorCode.OFFSET_OUT_OF_RANGE,
        { path },
      );
    }
    let segment: Segment;
    try {
      segment = this.#context.readOnly
        ? await Segment.openReadOnly(storage, dir, this.baseOffset, segmentOptions)
        : await Segment.openExisting(storage, dir, this.baseOffset, segmentOptions);
    } catch (err) {
      throw err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND ? this.#missing(path) : err;
    }
    try {
      // Reads only, as a clean open did: a check that fails leaves every byte as it was.
      const { indexesRebuilt } = await segment.planLoadClean();
      if (
        segment.nextOffset !== this.#end &&
        !cleanedAway(segment.nextOffset, this.#end, segmentOptions.offsetGaps?.below)
      ) {
        const side = segment.nextOffset < this.#end ? "records are missing before it" : "the two overlap";
        throw new PagelogError(
          `segment ${path} is corrupt: its batches end at offset ${segment.nextOffset - 1} (byte ${segment.size}), but the next segment starts at offset ${this.#end}: ${side}`,
          ErrorCode.CORRUPT,
          { path },
        );
      }
      // Checked: write an index it rebuilt (after a clean shutdown, as the open used to). Read-only:
      // the rebuild stays in memory (a pending rebuild is never released).
      if (this.#context.readOnly !== true) {
        await segment.commit();
        // The span is whole: index files without a `.log` inside it are a compaction's leftovers.
        // (A span whose end the cleaner dropped proves nothing about them: they stay.)
        if (segment.nextOffset === this.#end) {
          for (const orphan of this.#orphans) await removeIfThere(storage, orphan);
          this.#orphans = [];
        }
      }
      if (this.#closed) throw this.#closedError();
      this.#context.firstUses.segmentsLoaded++;
      if (indexesRebuilt) this.#context.firstUses.indexesRebuilt++;
    } catch (err) {
      await segment.close().catch(() => undefined);
      throw err;
    }
    this.#segment = segment;
    this.#size = undefined;
    return segment;
  }

  #logPath(): string {
    return segmentFilePath(this.#context.dir, this.baseOffset, LOG_SUFFIX);
  }

  #missing(path: string): PagelogError {
    return new PagelogError(`segment ${path} is missing: the log held it when it was opened`, ErrorCode.CORRUPT, {
      path,
    });
  }

  #closedError(): PagelogError {
    return new PagelogError(`log ${this.#context.dir} is closed`, ErrorCode.CLOSED, { path: this.#context.dir });
  }
}
