/*
 * The batches this process last wrote to the active segment, kept in memory for a follower of
 * the end in the same process. Read back from the file, every append cost a follower about what
 * it cost the writer (a queued pread, a CRC check of every batch, a fresh read buffer): a
 * follower ran at 0.45 of the writer alone. Handed the writer's own bytes, it only decodes them.
 *
 * What it holds is exactly what the file holds at those offsets:
 * - a batch joins only once its write to the file resolved (never bytes still being written,
 *   nor a write that failed);
 * - a truncation empties it before it cuts anything (log-truncate.ts); a batch that does not
 *   follow the last one starts it again;
 * - it answers only while the log is open, and only when it reaches the end offset: any write
 *   it did not see (a group written in pooled memory, see below) leaves it short of the end, and
 *   it answers nothing until it starts again. It spans a roll (offsets go on, bytes are bytes);
 *   in a compacted log the reader asks it only about the active segment, which the cleaner
 *   never rewrites (read/follow-tail.ts);
 * - its batches are in memory the writer never reuses (`WriteMemory.take(true)`): a group whose
 *   memory goes back to the pool is never kept;
 * - each batch is handed out once: the records yielded view its bytes, as a read's view its own
 *   buffer, so a caller that changes them in place changes nothing another reader gets (a second
 *   follower, or a batch asked for again, reads the file).
 * Records it hands out are then checked as a read's are (records-body.ts `settle`): a cut
 * after the hand-off drops what was read ahead. Kept only while a follower wants it: one that
 * waited at the end within the last `TAIL_BYTES` written; a writer nobody follows keeps nothing.
 */
import type { BatchHeader } from "../../format/index.js";

/** What the tail holds at most, and how long after a follower last waited a writer keeps it. */
export const TAIL_BYTES = 4 << 20;

/** One batch as written: its offsets and its bytes (exactly the batch, nothing after it). */
interface TailBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly bytes: Uint8Array;
  /** Handed to a follower already: its records may have been changed in place since. */
  handed: boolean;
}

/** The written tail of one writable log (see the file header). */
export class WrittenTail {
  #batches: TailBatch[] = [];
  /** The first batch still held: older ones are dropped by moving it, not by `shift()`. */
  #head = 0;
  #bytes = 0;
  /** Bytes the log wrote since it opened, and that count when a follower last waited at the end. */
  #written = 0;
  #wantedAt = Number.NEGATIVE_INFINITY;

  /** A follower waits at the end: keep what the next writes write. */
  want(): void {
    this.#wantedAt = this.#written;
  }

  /** Whether a group starting now should write into memory the tail may keep. */
  get wanted(): boolean {
    return this.#written - this.#wantedAt <= TAIL_BYTES;
  }

  /**
   * Batches just written, in order, at the end of the log. `kept`: in memory no one reuses;
   * else the tail no longer reaches the end, and empties.
   */
  written(batches: ReadonlyArray<{ bytes: Uint8Array; header: BatchHeader }>, kept: boolean): void {
    for (const b of batches) this.#written += b.bytes.length;
    if (!kept || !this.wanted) {
      this.clear();
      return;
    }
    const last = this.#batches[this.#batches.length - 1];
    if (last !== undefined && last.lastOffset + 1 !== batches[0]?.header.baseOffset) this.clear();
    for (const b of batches) {
      const { baseOffset, lastOffset } = b.header;
      this.#batches.push({ baseOffset, lastOffset, bytes: b.bytes, handed: false });
      this.#bytes += b.bytes.length;
    }
    while (this.#bytes > TAIL_BYTES && this.#head < this.#batches.length - 1) {
      this.#bytes -= this.#batches[this.#head]!.bytes.length;
      this.#batches[this.#head++] = undefined as unknown as TailBatch; // its bytes are garbage now
    }
    if (this.#head > 1024 && this.#head * 2 > this.#batches.length) {
      this.#batches = this.#batches.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Forgets every batch: a truncation is about to cut, or a write went unseen. */
  clear(): void {
    if (this.#batches.length === 0) return;
    this.#batches = [];
    this.#head = 0;
    this.#bytes = 0;
  }

  /**
   * The batches from the one holding `offset` on, up to about `maxBytes` (at least one), if the
   * tail holds `offset` and reaches `end`, the log's end offset, and none of them was handed out
   * before; else undefined: read the file. They count as handed out from now on.
   */
  batchesFrom(offset: number, end: number, maxBytes: number): Uint8Array[] | undefined {
    const batches = this.#batches;
    const last = batches[batches.length - 1];
    if (last === undefined || last.lastOffset + 1 !== end) return undefined;
    let lo = this.#head;
    if (offset < batches[lo]!.baseOffset || offset >= end) return undefined;
    // The first batch whose last offset is at or past `offset`.
    let hi = batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (batches[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    if (batches[lo]!.handed) return undefined;
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (let i = lo; i < batches.length && !batches[i]!.handed; i++) {
      const batch = batches[i]!;
      if (out.length > 0 && bytes + batch.bytes.length > maxBytes) break;
      batch.handed = true;
      out.push(batch.bytes);
      bytes += batch.bytes.length;
    }
    return out;
  }
}
