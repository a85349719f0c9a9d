/*
 * What a read-only log remembers of the batches it walked in one segment, to notice when the
 * writer changed bytes it had already read (a truncateTo, whose re-appended records may even fill
 * the file past its old size again): a mark per recent batch (position, size, last offset,
 * stored CRC), thinned out further back (every other one of the older half, each time the
 * list doubles), so the memory stays bounded whatever the segment's size. A batch is unchanged
 * while its header still reads back the same: a truncation cuts whole batches, so once one mark
 * fails every later one does, and a binary search finds the first that fails in a few reads.
 */
import { readBatchHeader } from "../../format/index.js";
import { BATCH_HEADER_SIZE } from "../../format/batch-layout.js";
import type { WalkedBatch } from "../../segment/segment.js";
import type { StorageFile } from "../../storage/storage.js";

/** Marks kept exactly (one per batch) at the tail before the older ones are thinned. */
const EXACT_MARKS = 1024;

export class TailMarks {
  readonly #baseOffset: number;
  #marks: WalkedBatch[] = [];

  constructor(baseOffset: number) {
    this.#baseOffset = baseOffset;
  }

  add(batch: WalkedBatch): void {
    this.#marks.push(batch);
    if (this.#marks.length < 2 * EXACT_MARKS) return;
    const older = this.#marks.slice(0, EXACT_MARKS).filter((_, i) => i % 2 === 1);
    this.#marks = [...older, ...this.#marks.slice(EXACT_MARKS)];
  }

  /** Where the marked batches end: the bytes the reader validated. */
  get end(): number {
    const last = this.#marks[this.#marks.length - 1];
    return last === undefined ? 0 : last.position + last.sizeInBytes;
  }

  /**
   * The lowest offset from which `file` (now `fileSize` bytes) may no longer hold what was
   * walked, or undefined if every mark still holds. Conservative: between two marks it is the
   * offset after the last one that holds.
   */
  async firstChanged(file: StorageFile, fileSize: number): Promise<number | undefined> {
    const marks = this.#marks;
    if (marks.length === 0 || (await holds(file, fileSize, marks[marks.length - 1]!))) return undefined;
    // The last mark fails: find the first that does (marks before it all hold).
    let lo = 0;
    let hi = marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (await holds(file, fileSize, marks[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? this.#baseOffset : marks[lo - 1]!.lastOffset + 1;
  }
}

async function holds(file: StorageFile, fileSize: number, mark: WalkedBatch): Promise<boolean> {
  if (mark.position + mark.sizeInBytes > fileSize) return false;
  const bytes = await file.read(mark.position, BATCH_HEADER_SIZE);
  if (bytes.length < BATCH_HEADER_SIZE) return false;
  try {
    const header = readBatchHeader(bytes);
    return header.crc === mark.crc && header.lastOffset === mark.lastOffset && header.sizeInBytes === mark.sizeInBytes;
  } catch {
    return false;
  }
}
