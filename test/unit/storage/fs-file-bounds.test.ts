/**
 * FsFile never hands node:fs a length or position it cannot take (Node 20 aborts the whole process
 * on a read length that is not an int32: `Assertion failed: args[3]->IsInt32()`), and never
 * allocates more than the file holds, whatever length a caller (or a damaged length field) asks for.
 * A fake handle stands in for a file of gigabytes: it records every call and touches no memory.
 */
import { describe, expect, it } from "vitest";
import {
  FsFile,
  type FileHandleLike,
  MAX_IO_CHUNK_BYTES,
  MAX_READ_BYTES,
  SMALL_READ_BYTES,
} from "../../../src/storage/fs-file.js";

const GiB = 2 ** 30;
const INT32_MAX = 2 ** 31 - 1;

/** A file of `size` bytes (never materialised): reads report bytes read without writing them. */
class HugeHandle implements FileHandleLike {
  reads: Array<{ offset: number; length: number; position: number; bufferLength: number }> = [];
  writes: Array<{ offset: number; length: number; position: number }> = [];
  stats = 0;
  constructor(readonly size: number) {}
  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    this.reads.push({ offset, length, position, bufferLength: buffer.length });
    return { bytesRead: Math.max(0, Math.min(length, this.size - position)) };
  }
  async write(
    _buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesWritten: number }> {
    this.writes.push({ offset, length, position });
    return { bytesWritten: length };
  }
  async datasync(): Promise<void> {}
  async truncate(): Promise<void> {}
  async stat(): Promise<{ size: number }> {
    this.stats++;
    return { size: this.size };
  }
  async close(): Promise<void> {}
}

function expectFsSafe(handle: HugeHandle): void {
  for (const call of [...handle.reads, ...handle.writes]) {
    expect(call.length).toBeLessThanOrEqual(MAX_IO_CHUNK_BYTES);
    expect(call.length).toBeLessThanOrEqual(INT32_MAX);
    expect(Number.isSafeInteger(call.position)).toBe(true);
  }
}

describe("FsFile: lengths node:fs accepts, allocations the file bounds", () => {
  it("a 3 GiB read of a 3 GiB file is served in 1 GiB calls, each an int32 length", async () => {
    const handle = new HugeHandle(3 * GiB);
    const bytes = await new FsFile(handle, "p-0/00000000000000000000.index").read(0, 3 * GiB);
    expect(bytes.length).toBe(3 * GiB);
    expect(handle.reads.map((r) => [r.offset, r.length, r.position])).toEqual([
      [0, GiB, 0],
      [GiB, GiB, GiB],
      [2 * GiB, GiB, 2 * GiB],
    ]);
    expectFsSafe(handle);
  });

  it("a read of more than the file holds allocates only what the file holds from the position", async () => {
    for (const [size, position, length] of [
      [100, 0, 3 * GiB],
      [100, 50, 2 ** 32 + 1],
      [3 * GiB + 7, 3 * GiB, 10 * GiB],
      [1000, 10, Number.MAX_SAFE_INTEGER],
    ] as const) {
      const handle = new HugeHandle(size);
      const bytes = await new FsFile(handle, "f").read(position, length);
      expect(bytes.length, `${size} ${position} ${length}`).toBe(size - position);
      expect(bytes.buffer.byteLength, "allocation").toBe(size - position);
      expect(handle.reads.every((r) => r.bufferLength === size - position)).toBe(true);
      expectFsSafe(handle);
    }
  });

  it("a read at or past the end returns nothing and calls nothing but stat", async () => {
    for (const position of [100, 101, 2 ** 31, 2 ** 32 + 1, 10 * GiB, Number.MAX_SAFE_INTEGER]) {
      const handle = new HugeHandle(100);
      expect((await new FsFile(handle, "f").read(position, 3 * GiB)).length).toBe(0);
      expect((await new FsFile(handle, "f").read(position, 16)).length).toBe(0);
      expectFsSafe(handle);
    }
  });

  it("small reads skip the stat; larger ones ask the size first", async () => {
    const handle = new HugeHandle(1 << 20);
    await new FsFile(handle, "f").read(0, SMALL_READ_BYTES);
    expect(handle.stats).toBe(0);
    await new FsFile(handle, "f").read(0, SMALL_READ_BYTES + 1);
    expect(handle.stats).toBe(1);
  });

  it("a read larger than the largest buffer is a RangeError before anything is allocated or read", async () => {
    const handle = new HugeHandle(10 * GiB);
    await expect(new FsFile(handle, "p-0/a.timeindex").read(0, 10 * GiB)).rejects.toThrow(RangeError);
    await expect(new FsFile(handle, "p-0/a.timeindex").read(0, MAX_READ_BYTES + 1)).rejects.toThrow(
      /larger than the largest buffer/,
    );
    expect(handle.reads).toEqual([]);
  });

  it("positions and lengths that are not safe non-negative integers are RangeErrors, never passed on", async () => {
    const handle = new HugeHandle(100);
    const file = new FsFile(handle, "f");
    for (const [position, length] of [
      [2 ** 53, 1],
      [2 ** 64, 1],
      [1.5, 1],
      [-1, 1],
      [Number.NaN, 1],
      [0, 2 ** 53],
      [0, 0.5],
      [0, -1],
      [0, Number.POSITIVE_INFINITY],
    ]) {
      await expect(file.read(position!, length!), `${position} ${length}`).rejects.toThrow(RangeError);
    }
    await expect(file.write(2 ** 53, new Uint8Array(1))).rejects.toThrow(RangeError);
    await expect(file.write(Number.MAX_SAFE_INTEGER, new Uint8Array(2))).rejects.toThrow(RangeError);
    await expect(file.truncate(2 ** 53)).rejects.toThrow(RangeError);
    expect(handle.reads).toEqual([]);
    expect(handle.writes).toEqual([]);
  });

  it("a write longer than 1 GiB goes in 1 GiB calls", async () => {
    const handle = new HugeHandle(0);
    await new FsFile(handle, "f").write(5, new Uint8Array(GiB + 10));
    expect(handle.writes).toEqual([
      { offset: 0, length: GiB, position: 5 },
      { offset: GiB, length: 10, position: GiB + 5 },
    ]);
  });
});
