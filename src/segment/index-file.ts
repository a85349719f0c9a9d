/**
 * What the offset index and the time index share: a file of fixed-size big-endian entries,
 * mirrored in memory, appended one entry at a time and cut back on truncation.
 *
 * Kafka memory-maps a preallocated file and trims it on close. pagelog writes each entry at
 * the end of the file as it is added, so the file never holds more than its used entries and
 * there is nothing to trim: a clean close leaves exactly what Kafka's trim would. Entries go to
 * the page cache like any write; `sync()` makes them durable, and recovery rebuilds an index
 * from the log whenever it cannot be trusted.
 *
 * The entries of an index can be released from memory (`release()`) and read back on demand
 * (`load()`): the Log keeps only the active segment's and a few recently read segments' indexes
 * in memory, so opening a large log costs memory for what is used, not for every segment.
 */
import { ErrorCode, PagelogError } from "../errors.js";
import { BATCH_HEADER_SIZE } from "../format/batch-layout.js";
import type { StorageFile } from "../storage/storage.js";

const EMPTY = new Uint8Array(0);

/**
 * What `OffsetIndex` and `TimeIndex` share: a file of fixed-size big-endian entries, appended one at a time and cut
 * back on truncation, its entries mirrored in memory.
 */
export abstract class IndexFile {
  /** The index file's handle. */
  readonly file: StorageFile;
  /** The segment's base offset: entries hold offsets relative to it. */
  readonly baseOffset: number;
  /** Bytes per entry: 8 in an `.index`, 12 in a `.timeindex`. */
  readonly entrySize: number;
  /** Largest number of entries (Kafka's `segment.index.bytes` / entry size). */
  readonly maxEntries: number;
  /** The entries' bytes, exactly as in the file; capacity grows by doubling. @internal */
  protected bytes: Uint8Array;
  /** @internal */
  protected view: DataView;
  #entries = 0;
  /** Written since the last sync: only then does `sync()` cost an fsync. */
  #unsynced = false;
  /** The file's size when it was opened or last written (not a multiple of entrySize if damaged). */
  #loadedSize = 0;
  /** Whether `bytes` holds the entries (false after `release()`, until `load()`). */
  #loaded = false;
  /**
   * Why the file cannot be an index of this segment (its size alone says so), or undefined. Such
   * a file is never read: it holds no entries in memory (lookups scan from the segment's start,
   * still correct) and `checkIndex` (load/index-checks.ts) fails, so opening rebuilds it; the first
   * write empties it.
   */
  #implausible: string | undefined;
  /**
   * A rebuild made in memory that has not reached the file yet (`beginRebuild()`): recovery
   * decides everything before it writes anything, so an open that rejects changes no byte.
   */
  #rebuildPending = false;
  /** The file's size when the rebuild began: what a crash during `commitRebuild` may leave of it. */
  #sizeBeforeRebuild = 0;
  /** A rebuild whose write found the disk full: kept in memory, written by a later sync (commitRebuild). */
  #writeDeferred = false;
  /** Bumped by every change of the entries in memory: a copy made for a course policy is stale once it moves. */
  #generation = 0;

  protected constructor(
    file: StorageFile,
    baseOffset: number,
    entrySize: number,
    maxIndexBytes: number,
    fileSize: number,
  ) {
    this.file = file;
    this.baseOffset = baseOffset;
    this.entrySize = entrySize;
    this.maxEntries = Math.max(1, Math.floor(maxIndexBytes / entrySize));
    this.#loadedSize = fileSize;
    this.#entries = Math.floor(fileSize / entrySize);
    this.bytes = EMPTY;
    this.view = new DataView(EMPTY.buffer);
  }

  /** Changes whenever the entries in memory change (see `OffsetIndex.policyEntries`). @internal */
  get generation(): number {
    return this.#generation;
  }

  /** Whether the entries are in memory. @internal */
  get loaded(): boolean {
    return this.#loaded;
  }

  /**
   * Reads the entries into memory if they were not (the file holds every entry). `logSize`, the
   * bytes of the segment's `.log`, bounds how many entries the file can plausibly hold: one per
   * batch (at least a 61-byte header each), plus one. A file whose size is not a whole number of
   * entries, or more than `maxEntries` or than that bound, is not read at all
   * (a sparse 3 GiB `.index` costs nothing): it loads as no entries and fails `checkIndex`.
   * @internal
   */
  async load(logSize?: number): Promise<void> {
    if (this.#loaded) return;
    this.#generation++;
    this.#implausible = this.#implausibleSize(logSize);
    if (this.#implausible !== undefined) {
      this.#entries = 0;
      this.bytes = new Uint8Array(this.entrySize * 16);
      this.view = new DataView(this.bytes.buffer);
      this.#loaded = true;
      return;
    }
    const content = await this.file.read(0, this.#loadedSize);
    if (content.length !== this.#loadedSize) {
      // Shorter than when opened: cut by someone else. Only whole entries read count.
      this.#loadedSize = content.length;
      this.#entries = Math.floor(content.length / this.entrySize);
    }
    this.bytes = new Uint8Array(Math.max(this.entrySize * 16, content.length));
    this.bytes.set(content);
    this.view = new DataView(this.bytes.buffer);
    this.#loaded = true;
  }

  #implausibleSize(logSize: number | undefined): string | undefined {
    const size = this.#loadedSize;
    if (size % this.entrySize !== 0) return `size ${size} is not a multiple of the entry size ${this.entrySize}`;
    const entries = size / this.entrySize;
    if (entries > this.maxEntries)
      return `${entries} entries (${size} bytes), more than the maximum ${this.maxEntries}`;
    if (logSize !== undefined) {
      const most = Math.floor(logSize / BATCH_HEADER_SIZE) + 1;
      if (entries > most)
        return `${entries} entries (${size} bytes), more than a .log of ${logSize} bytes can need (at most ${most})`;
    }
    return undefined;
  }

  /** Drops the in-memory copy of the entries; `load()` reads them back. @internal */
  release(): void {
    if (this.#rebuildPending) return; // the memory is the only copy until commitRebuild()
    this.#generation++;
    this.bytes = EMPTY;
    this.view = new DataView(EMPTY.buffer);
    this.#loaded = false;
  }

  /** How many entries the index holds. */
  get entries(): number {
    return this.#entries;
  }

  /** Whether the index has no room for another entry (`maxEntries` reached): the Log rolls. */
  get isFull(): boolean {
    return this.#entries >= this.maxEntries;
  }

  /** Size of the index file in bytes (whole entries only once the index has been written to). */
  get sizeInBytes(): number {
    return this.#entries * this.entrySize;
  }

  /** Why the file's size alone rules it out as this segment's index (see `load`), or undefined. @internal */
  get implausible(): string | undefined {
    return this.#implausible;
  }

  /** The file's size when it was opened or last written (not a multiple of entrySize if damaged). @internal */
  get loadedSize(): number {
    return this.#loadedSize;
  }

  /** Appends one entry (the subclass encoded it into `entry`) to memory and to the file. @internal */
  protected async appendEntry(entry: Uint8Array): Promise<void> {
    await this.load();
    if (this.#implausible !== undefined) await this.truncateToEntries(0);
    const at = this.#entries * this.entrySize;
    if (at + this.entrySize > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    if (!this.#rebuildPending) {
      this.#unsynced = true;
      await this.file.write(at, entry);
    }
    this.bytes.set(entry, at);
    this.#entries++;
    this.#generation++;
    this.#loadedSize = this.#entries * this.entrySize;
  }

  /** Keeps the first `n` entries, in memory and in the file. @internal */
  async truncateToEntries(n: number): Promise<void> {
    const keep = Math.min(n, this.#entries);
    if (!this.#rebuildPending) {
      this.#unsynced = true;
      await this.file.truncate(keep * this.entrySize);
    }
    this.#entries = keep;
    this.#generation++;
    this.#loadedSize = keep * this.entrySize;
    this.#implausible = undefined;
  }

  /**
   * Starts a rebuild in memory: no entries, and nothing written to the file until
   * `commitRebuild()`. Appends and truncations meanwhile change only the memory copy.
   * @internal
   */
  beginRebuild(): void {
    if (!this.#rebuildPending) this.#sizeBeforeRebuild = this.#loadedSize;
    this.bytes = new Uint8Array(this.entrySize * 16);
    this.view = new DataView(this.bytes.buffer);
    this.#loaded = true;
    this.#entries = 0;
    this.#generation++;
    this.#loadedSize = 0;
    this.#implausible = undefined;
    this.#rebuildPending = true;
  }

  /** Whether a rebuild waits for `commitRebuild()`. @internal */
  get rebuildPending(): boolean {
    return this.#rebuildPending;
  }

  /**
   * Replaces the file's content with the rebuilt entries (one truncate, one write; not a sync).
   *
   * `emptyFirst` (an index the next open will trust, below the recovery point): when the file
   * held entries, the truncation is made durable before the write. Otherwise a crash between the
   * write and its fsync could bring back the old size with some pages old and some rebuilt: a
   * mixture the structural checks may pass, whose last entry need not be the segment's largest
   * timestamp. After the fsync a crash leaves the file either empty or whole, and the loader
   * refuses an empty time index beside a non-empty offset index (`planLoadClean`).
   *
   * On a full disk (`PAGELOG_NO_SPACE`, often filled by the log itself) the file is left empty
   * (a truncation needs no block) and the rebuild stays in memory, pending: an empty index is a
   * correct one (lookups walk from the segment's start), so the log still opens, reads, and can
   * free space through retention. Every `sync()` tries the write again.
   *
   * @internal
   */
  async commitRebuild({ emptyFirst = false }: { emptyFirst?: boolean } = {}): Promise<void> {
    if (!this.#rebuildPending) return;
    this.#unsynced = true;
    await this.file.truncate(0);
    if (emptyFirst && this.#sizeBeforeRebuild > 0) {
      await this.file.sync();
      this.#sizeBeforeRebuild = 0;
    }
    const used = this.#entries * this.entrySize;
    try {
      if (used > 0) await this.file.write(0, this.bytes.subarray(0, used));
    } catch (err) {
      if (!(err instanceof PagelogError && err.code === ErrorCode.NO_SPACE)) throw err;
      // A write cut short may have left part of it: never a prefix of the entries, which a
      // clean open would trust (a short time index hides the segment's largest timestamp).
      await this.file.truncate(0);
      this.#writeDeferred = true;
      return;
    }
    this.#rebuildPending = false;
    this.#writeDeferred = false;
  }

  /** Whether a rebuild found no room and waits in memory for the next `sync()`. */
  get writeDeferred(): boolean {
    return this.#writeDeferred;
  }

  /**
   * Index of the last entry whose key is `<= target` (or `< target` when `strict`), or -1.
   * Keys are non-decreasing, so this is a binary search: O(log n) on a sparse index.
   * @internal
   */
  protected floorSlot(target: number, key: (slot: number) => number, strict = false): number {
    let lo = 0;
    let hi = this.#entries - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = key(mid);
      if (strict ? k < target : k <= target) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /**
   * fsync the index file if it was written since the last sync (`force` syncs regardless, for
   * recovery, which cannot know what an earlier process left in the page cache).
   */
  async sync({ force = false }: { force?: boolean } = {}): Promise<void> {
    if (this.#writeDeferred) await this.commitRebuild(); // stays deferred while the disk is full
    if (!this.#unsynced && !force) return;
    await this.file.sync();
    this.#unsynced = false;
  }

  /** Closes the file's handle. Not a sync. */
  close(): Promise<void> {
    return this.file.close();
  }
}
