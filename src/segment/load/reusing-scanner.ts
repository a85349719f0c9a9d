/*
 * The walks that keep nothing of what they read (recovery's, the follower's): a `BatchScanner`
 * that reads into buffers it reuses (`readInto`) instead of fresh ones, and may write what it
 * validated back over itself. Part of the segment's load (segment-load.ts, segment-follow.ts),
 * so a plain read, whose batches outlive their step, never loads it.
 */
import { readInto } from "../../storage/read-into.js";
import type { StorageFile } from "../../storage/storage.js";
import { BatchScanner, type ScanOptions } from "../batch-scanner.js";

/**
 * A walk whose batches' `bytes` are valid only until the next step, strictly (not for
 * `buffered()`), since their memory is read into again.
 */
export class ReusingScanner extends BatchScanner {
  /**
   * Write every valid batch whose last offset is at or past this back to the file, unchanged, a
   * chunk at a time as the walk leaves it (an unclean open's rewrite of what lies above the
   * recovery point, so that its fsync really writes it: recovery.md). The bytes written are the
   * ones just read and validated, so the file's content never changes: a walk whose open then
   * rejects still leaves every byte as it was. Call `finishWriteBack()` after the walk.
   */
  readonly #writeBackFrom: number | undefined;
  /** The memory behind the buffer, and buffers free to read into. */
  #backing: Uint8Array | undefined;
  readonly #free: Uint8Array[] = [];
  /** The buffered range of valid batches still to write back. */
  #writeStart: number | undefined;
  #writeEnd = 0;
  /** The write-back of the chunk before this one; its buffer is free once it is done. */
  #writing: Promise<void> | undefined;

  constructor(
    file: StorageFile,
    fileSize: number,
    startPosition: number,
    options: ScanOptions,
    writeBackFrom?: number,
  ) {
    super(file, fileSize, startPosition, options);
    this.#writeBackFrom = writeBackFrom;
  }

  override async next(): ReturnType<BatchScanner["next"]> {
    const batch = await super.next();
    if (batch !== null && this.#writeBackFrom !== undefined && batch.header.lastOffset >= this.#writeBackFrom) {
      this.#writeStart ??= batch.position;
      this.#writeEnd = this.position;
    }
    return batch;
  }

  protected override async refill(
    position: number,
    length: number,
    ahead: Promise<Uint8Array> | undefined,
  ): Promise<Uint8Array> {
    // One write-back in flight at a time: it bounds the buffers to three and surfaces its error.
    await this.#writing;
    const written = this.#startWriteBack();
    const retired = this.#backing;
    const buffer = await super.refill(position, length, ahead);
    // The batches handed out from the old chunk are past their step: its memory can be reused.
    // A chunk being written back is free only once its write is done (below).
    if (retired !== undefined && written === undefined) this.#free.push(retired);
    // (read()'s buffers are whole ArrayBuffers: the chunk is a view of one from its start.)
    this.#backing = new Uint8Array(buffer.buffer);
    if (written !== undefined) {
      this.#writing = written.then(() => void (retired !== undefined && this.#free.push(retired)));
      this.#writing.catch(() => undefined); // awaited by the next refill or finishWriteBack()
    }
    return buffer;
  }

  /** `length` bytes at `position`, read into one of the walk's free buffers (or a new one). */
  protected override async read(position: number, length: number): Promise<Uint8Array> {
    const index = this.#free.findIndex((b) => b.length >= length);
    const target = index >= 0 ? this.#free.splice(index, 1)[0]! : new Uint8Array(length);
    const n = await readInto(this.file, position, target.subarray(0, length));
    return target.subarray(0, n);
  }

  /** Starts writing back the buffered valid batches not yet written (`writeBackFrom`). */
  #startWriteBack(): Promise<void> | undefined {
    const start = this.#writeStart;
    if (start === undefined) return undefined;
    this.#writeStart = undefined;
    return this.file.write(start, this.buffered(start, this.#writeEnd)!);
  }

  /** After the walk (`writeBackFrom`): writes back the last chunk's batches, and waits for every write. */
  async finishWriteBack(): Promise<void> {
    await this.#writing;
    this.#writing = undefined;
    await this.#startWriteBack();
  }
}
