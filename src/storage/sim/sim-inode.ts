/**
 * One simulated file: what the page cache holds, what the disk holds, and what a power cut may
 * leave. Directory entries live in SimDir; an inode does not know its names.
 *
 * Pages are allocated lazily (a missing page reads as zeros), as holepunch's
 * random-access-memory does, so sparse and large files cost only what was written.
 *
 * Invariants:
 * - cached bytes at or past `cachedSize` are zero;
 * - a page that is not dirty holds the same bytes in cache and on disk, except after a failed
 *   sync (fsyncgate: the kernel marked the pages clean without writing them) — by design.
 */
import type { ByteRange, CrashChooser, PageFate } from "./crash-chooser.js";

export type { ByteRange } from "./crash-chooser.js";

type Page = Uint8Array | undefined;

export class SimInode {
  readonly pageSize: number;
  readonly sectorSize: number;

  /** What reads see: the page cache (over the disk). */
  #cached: Page[] = [];
  #cachedSize = 0;
  /** What the platters hold, including pages written back past the durable size. */
  #disk: Page[] = [];
  #durableSize = 0;
  /** Pages whose cached bytes may differ from the disk's. */
  #dirty = new Set<number>();
  /**
   * Pages released by a truncation since the last sync and not written back since: if the
   * truncation's metadata commits, their old disk blocks are gone and they read as zeros.
   */
  #freed = new Set<number>();
  /** The size changed since the last sync (the inode itself is dirty). */
  #sizeDirty = false;
  /** Ranges that came out of the last power cut torn, for the demo's map. */
  #torn: ByteRange[] = [];

  constructor(pageSize: number, sectorSize: number) {
    this.pageSize = pageSize;
    this.sectorSize = sectorSize;
  }

  get size(): number {
    return this.#cachedSize;
  }

  get durableSize(): number {
    return this.#durableSize;
  }

  get sizeDirty(): boolean {
    return this.#sizeDirty;
  }

  /** Dirty page numbers, ascending. */
  dirtyPages(): number[] {
    return [...this.#dirty].sort((a, b) => a - b);
  }

  get tornRanges(): readonly ByteRange[] {
    return this.#torn;
  }

  /** Bytes of the pages this inode holds, in the cache and on the disk (for memory checks). */
  get retainedBytes(): number {
    let pages = 0;
    for (const page of this.#cached) if (page !== undefined) pages++;
    for (const page of this.#disk) if (page !== undefined) pages++;
    return pages * this.pageSize;
  }

  read(position: number, length: number): Uint8Array {
    const end = Math.min(this.#cachedSize, position + length);
    if (end <= position) return new Uint8Array(0);
    const out = new Uint8Array(end - position);
    copyOut(this.#cached, this.pageSize, position, out);
    return out;
  }

  /** The bytes the disk holds for [0, size) (for tests and the demo). */
  readDurable(): Uint8Array {
    const out = new Uint8Array(this.#durableSize);
    copyOut(this.#disk, this.pageSize, 0, out);
    return out;
  }

  write(position: number, bytes: Uint8Array): void {
    if (bytes.length === 0) return; // pwrite of nothing never extends a file
    const ps = this.pageSize;
    let done = 0;
    while (done < bytes.length) {
      const at = position + done;
      const index = Math.floor(at / ps);
      const offset = at - index * ps;
      const n = Math.min(ps - offset, bytes.length - done);
      const page = (this.#cached[index] ??= new Uint8Array(ps));
      page.set(bytes.subarray(done, done + n), offset);
      this.#dirty.add(index);
      this.#clearTorn(index * ps, (index + 1) * ps);
      done += n;
    }
    if (position + bytes.length > this.#cachedSize) {
      this.#cachedSize = position + bytes.length;
      this.#sizeDirty = true;
    }
  }

  truncate(length: number): void {
    if (length === this.#cachedSize) return;
    const ps = this.pageSize;
    if (length < this.#cachedSize) {
      const partial = Math.floor(length / ps);
      const firstWhole = Math.ceil(length / ps);
      // The kernel zeroes the tail of the page that holds the new end and dirties it.
      const page = this.#cached[partial];
      if (length % ps !== 0 && page !== undefined) {
        page.fill(0, length - partial * ps);
        this.#dirty.add(partial);
      }
      // Whole pages past the end leave the cache unwritten; their disk blocks are released.
      const last = Math.max(this.#cached.length, this.#disk.length);
      for (let p = firstWhole; p < last; p++) {
        this.#cached[p] = undefined;
        this.#dirty.delete(p);
        this.#freed.add(p);
      }
      this.#cached.length = Math.min(this.#cached.length, firstWhole);
      this.#clearTorn(length, Infinity);
    }
    this.#cachedSize = length;
    this.#sizeDirty = true;
  }

  /** fsync: every dirty page and the size reach the disk. */
  sync(): void {
    for (const p of this.#dirty) this.#disk[p] = copyPage(this.#cached[p]);
    for (const p of this.#freed) this.#disk[p] = copyPage(this.#cached[p]);
    this.#disk.length = Math.ceil(this.#cachedSize / this.pageSize);
    this.#durableSize = this.#cachedSize;
    this.#dirty.clear();
    this.#freed.clear();
    this.#sizeDirty = false;
  }

  /**
   * A failed fsync, as Linux does it: the dirty pages are marked clean without reaching the
   * disk, so a retried fsync has nothing to write and "succeeds" while the data is gone.
   */
  failSync(): void {
    this.#dirty.clear();
  }

  /** The OS writes one dirty page back on its own (no size change). */
  writeBack(page: number): void {
    if (!this.#dirty.has(page)) return;
    this.#disk[page] = copyPage(this.#cached[page]);
    this.#dirty.delete(page);
    this.#freed.delete(page);
  }

  /**
   * The inode a reboot finds after a power cut now: durable state plus the chooser's fate for
   * each dirty page and for the size. `path` only names the file to the chooser.
   */
  crash(path: string, chooser: CrashChooser): SimInode {
    const ps = this.pageSize;
    const committed = this.#sizeDirty ? chooser.sizeCommitted(path, this.#durableSize, this.#cachedSize) : true;
    const size = committed ? this.#cachedSize : this.#durableSize;
    const pageCount = Math.ceil(size / ps);
    const after = new SimInode(ps, this.sectorSize);
    after.#cachedSize = after.#durableSize = size;

    for (let p = 0; p < pageCount; p++) {
      // What the disk held for this page before the cut decided the dirty pages' fates.
      const base = committed && this.#freed.has(p) ? undefined : this.#disk[p];
      const fate: PageFate = this.#dirty.has(p) ? chooser.pageFate(path, p, ps / this.sectorSize) : "lost";
      let page: Page;
      if (fate === "written") page = copyPage(this.#cached[p]);
      else if (fate === "lost") page = copyPage(base);
      else {
        page = this.#tear(base, this.#cached[p], fate.torn);
        after.#torn.push({ start: p * ps, end: Math.min(size, (p + 1) * ps) });
      }
      // The bytes past the end of the last page are not part of the file: keep the invariant.
      if (page !== undefined && (p + 1) * ps > size) page.fill(0, size - p * ps);
      after.#disk[p] = page;
      after.#cached[p] = copyPage(page);
    }
    return after;
  }

  #tear(base: Page, cached: Page, sectors: readonly boolean[]): Uint8Array {
    const out = new Uint8Array(this.pageSize);
    if (base !== undefined) out.set(base);
    if (cached === undefined) cached = new Uint8Array(this.pageSize);
    sectors.forEach((written, i) => {
      if (written) out.set(cached.subarray(i * this.sectorSize, (i + 1) * this.sectorSize), i * this.sectorSize);
    });
    return out;
  }

  #clearTorn(start: number, end: number): void {
    if (this.#torn.length === 0) return;
    const kept: ByteRange[] = [];
    for (const r of this.#torn) {
      if (r.end <= start || r.start >= end) kept.push(r);
      else {
        if (r.start < start) kept.push({ start: r.start, end: start });
        if (r.end > end) kept.push({ start: end, end: r.end });
      }
    }
    this.#torn = kept;
  }
}

function copyPage(page: Page): Page {
  return page === undefined ? undefined : page.slice();
}

/** Copies from a paged store starting at `position` into `out` (missing pages are zeros). */
function copyOut(pages: Page[], pageSize: number, position: number, out: Uint8Array): void {
  let done = 0;
  while (done < out.length) {
    const at = position + done;
    const index = Math.floor(at / pageSize);
    const offset = at - index * pageSize;
    const n = Math.min(pageSize - offset, out.length - done);
    const page = pages[index];
    if (page !== undefined) out.set(page.subarray(offset, offset + n), done);
    done += n;
  }
}
