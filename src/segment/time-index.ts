/**
 * The `.timeindex` file: a sparse map from timestamps to offsets, for "first offset at or after
 * time T" (Kafka's ListOffsets).
 *
 *   entry (12 bytes, big-endian)
 *   +0  int64  timestamp         (the largest timestamp in the segment up to this point)
 *   +8  int32  relative offset   (last offset of the batch that holds that timestamp)
 *
 * Timestamps in the index never decrease: each entry is the running maximum, so every record at
 * or before an entry's offset has a timestamp no later than the entry's.
 */
import { readInt64, writeInt64 } from "../format/batch-header.js";
import type { StorageFile } from "../storage/storage.js";
import { IndexFile } from "./index-file.js";
import { MAX_INT32 } from "./offset-index.js";

export const TIME_INDEX_ENTRY_SIZE = 12;
const TIMESTAMP_AT = 0;
const RELATIVE_OFFSET_AT = 8;
/** Kafka's "no timestamp" (RecordBatch.NO_TIMESTAMP). */
export const NO_TIMESTAMP = -1;

/** One `.timeindex` entry, absolute: a timestamp and the offset of the first record at or after it. */
export interface TimestampOffset {
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** The offset of a batch holding a record with that timestamp. */
  readonly offset: number;
}

/**
 * A segment's `.timeindex` file (Kafka's TimeIndex): 12-byte entries (timestamp, relative offset), one whenever a
 * batch raises the segment's largest timestamp past an index interval, for `offsetForTimestamp`.
 */
export class TimeIndex extends IndexFile {
  /**
   * Opens the time index in `file` for the segment at `baseOffset`, at most `maxIndexBytes` large. Entries are read on
   * first use.
   */
  static async open(file: StorageFile, baseOffset: number, maxIndexBytes: number): Promise<TimeIndex> {
    const index = new TimeIndex(file, baseOffset, maxIndexBytes, await file.size());
    return index; // entries are read on first use (`load()`)
  }

  private constructor(file: StorageFile, baseOffset: number, maxIndexBytes: number, fileSize: number) {
    super(file, baseOffset, TIME_INDEX_ENTRY_SIZE, maxIndexBytes, fileSize);
  }

  /** The entry in `slot` (0-based). */
  entry(slot: number): TimestampOffset {
    const at = slot * TIME_INDEX_ENTRY_SIZE;
    return {
      timestamp: readInt64(this.view, at + TIMESTAMP_AT, "timestamp"),
      offset: this.baseOffset + this.view.getInt32(at + RELATIVE_OFFSET_AT),
    };
  }

  /**
   * Full one entry early, as Kafka's TimeIndex.isFull: the last slot is kept for the entry
   * `seal()` (and recovery) add for the segment's largest timestamp. Without it that entry would
   * take the index past `maxEntries`, and every later clean load would fail the sanity check and
   * rebuild the indexes.
   */
  override get isFull(): boolean {
    return this.entries >= this.maxEntries - 1;
  }

  /** The last entry, or undefined when the index is empty. */
  get lastEntry(): TimestampOffset | undefined {
    return this.entries === 0 ? undefined : this.entry(this.entries - 1);
  }

  /**
   * Adds `(timestamp, offset)` if `timestamp` is later than the last entry's (as Kafka's
   * `maybeAppend`): equal or earlier timestamps add nothing a lookup could use.
   */
  async maybeAppend(timestamp: number, offset: number): Promise<void> {
    await this.load(); // the checks below read the last entry
    const last = this.lastEntry;
    if (last !== undefined && timestamp <= last.timestamp) return;
    if (last !== undefined && offset < last.offset)
      throw new RangeError(`time index offset ${offset} is below the last entry's ${last.offset}`);
    const relative = offset - this.baseOffset;
    if (!(relative >= 0 && relative <= MAX_INT32))
      throw new RangeError(`offset ${offset} is outside this segment's int32 range`);
    const entry = new Uint8Array(TIME_INDEX_ENTRY_SIZE);
    const view = new DataView(entry.buffer);
    writeInt64(view, TIMESTAMP_AT, timestamp);
    view.setInt32(RELATIVE_OFFSET_AT, relative);
    await this.appendEntry(entry);
  }

  /**
   * The last entry whose timestamp is strictly before `target`, or undefined. Every record at or
   * before its offset is earlier than `target`, so the first record at or after `target` lies
   * after it. (Kafka looks up `<= target`, which is exact for indexes whose running maximum only
   * moves on a strictly greater timestamp; the strict bound is exact for any index whose entries
   * are upper bounds, at the cost of at most one more interval of scanning.)
   */
  lookupBefore(target: number): TimestampOffset | undefined {
    const slot = this.floorSlot(target, (s) => this.entry(s).timestamp, true);
    return slot < 0 ? undefined : this.entry(slot);
  }

  /** Removes every entry whose offset is `>= offset`. */
  async truncateTo(offset: number): Promise<void> {
    await this.load();
    let keep = this.entries;
    while (keep > 0 && this.entry(keep - 1).offset >= offset) keep--;
    await this.truncateToEntries(keep);
  }
}
