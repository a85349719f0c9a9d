/*
 * FsFile's synchronous write path: writes go through `writeSync` while the gate allows, through
 * the handle's thread-pool write once one was slow, and fail exactly as the thread-pool path
 * does (the same codes, causes, partial writes and short-write loop). Fake handles and an
 * injected clock: no real timing.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { FsFile, type FileHandleLike, type SyncWrite } from "../../../src/storage/fs-file.js";
import { fakeClockGate } from "../../support/fake-clock-gate.js";

/** A file in memory, written by both paths; at most `perCall` bytes per call, as pwrite may. */
class TwoPathHandle implements FileHandleLike {
  data = new Uint8Array(0);
  asyncWrites: number[] = [];
  syncWrites: number[] = [];
  /** Thrown by the next write of either path once `okBytes` more bytes have gone in. */
  failWith: Error | undefined;
  okBytes = 0;
  /** Milliseconds each sync write takes on the injected clock. */
  syncMs = 0;
  readonly clock = { t: 0 };

  constructor(readonly perCall = Infinity) {}

  #put(buffer: Uint8Array, offset: number, length: number, position: number): number {
    if (this.failWith !== undefined) {
      if (this.okBytes === 0) throw this.failWith;
      length = Math.min(length, this.okBytes);
    }
    const n = Math.min(length, this.perCall);
    if (this.failWith !== undefined) this.okBytes -= n;
    if (position + n > this.data.length) {
      const grown = new Uint8Array(position + n);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(buffer.subarray(offset, offset + n), position);
    return n;
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    this.asyncWrites.push(length);
    await Promise.resolve(); // a real handle writes on another thread: the bytes land later
    return { bytesWritten: this.#put(buffer, offset, length, position) };
  }

  readonly sync: SyncWrite = {
    gate: fakeClockGate(() => this.clock.t),
    write: (buffer, offset, length, position) => {
      this.syncWrites.push(length);
      this.clock.t += this.syncMs;
      return this.#put(buffer, offset, length, position);
    },
  };

  async read(): Promise<{ bytesRead: number }> {
    return { bytesRead: 0 };
  }
  async datasync(): Promise<void> {}
  async truncate(): Promise<void> {}
  async stat(): Promise<{ size: number }> {
    return { size: this.data.length };
  }
  async close(): Promise<void> {}
}

const bytes = (n: number, fill = 7): Uint8Array => new Uint8Array(n).fill(fill);

function osError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, write '/secret/absolute/path'`), { code, syscall: "write" });
}

async function failure(action: Promise<unknown>): Promise<PagelogError> {
  const err: unknown = await action.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PagelogError);
  return err as PagelogError;
}

describe("FsFile: synchronous writes", () => {
  it("a small write goes through writeSync, not the thread pool, and lands where asked", async () => {
    const handle = new TwoPathHandle();
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    await file.write(3, bytes(10, 1));
    expect(handle.syncWrites).toEqual([10]);
    expect(handle.asyncWrites).toEqual([]);
    expect([...handle.data]).toEqual([0, 0, 0, ...Array<number>(10).fill(1)]);
  });

  it("the write is in before the promise is even awaited (no thread-pool hop)", () => {
    const handle = new TwoPathHandle();
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    void file.write(0, bytes(4, 9));
    expect([...handle.data]).toEqual([9, 9, 9, 9]);
  });

  it("a write over maxBytes goes synchronously in parts of at most maxBytes", async () => {
    const handle = new TwoPathHandle();
    await new FsFile(handle, "f.log", undefined, handle.sync).write(0, bytes(150));
    expect(handle.syncWrites).toEqual([64, 64, 22]);
    expect(handle.asyncWrites).toEqual([]);
    expect(handle.data.length).toBe(150);
  });

  it("a slow part shuts the gate: the rest of the write goes through the thread pool in one call", async () => {
    const handle = new TwoPathHandle();
    handle.syncMs = 6; // a device mounted -o sync: the first part took longer than slowMs
    await new FsFile(handle, "f.log", undefined, handle.sync).write(0, bytes(150));
    expect(handle.syncWrites).toEqual([64]);
    expect(handle.asyncWrites).toEqual([86]);
    expect(handle.data.length).toBe(150);
  });

  it("after a slow sync write, writes go through the thread pool until the cooldown ends", async () => {
    const handle = new TwoPathHandle();
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    handle.syncMs = 6; // slower than slowMs
    await file.write(0, bytes(8));
    handle.syncMs = 0;
    await file.write(8, bytes(8));
    await file.write(16, bytes(8));
    expect(handle.syncWrites).toEqual([8]);
    expect(handle.asyncWrites).toEqual([8, 8]);
    handle.clock.t += 100;
    await file.write(24, bytes(8));
    expect(handle.syncWrites).toEqual([8, 8]);
    expect(handle.data.length).toBe(32);
  });

  it("short sync writes carry on until every byte is in, as the thread-pool path does", async () => {
    const handle = new TwoPathHandle(3);
    await new FsFile(handle, "f.log", undefined, handle.sync).write(5, new TextEncoder().encode("0123456789"));
    expect(handle.syncWrites).toEqual([10, 7, 4, 1]);
    expect(new TextDecoder().decode(handle.data.subarray(5))).toBe("0123456789");
  });

  it.each([
    ["ENOSPC", ErrorCode.NO_SPACE],
    ["EDQUOT", ErrorCode.NO_SPACE],
    ["EIO", ErrorCode.IO],
    ["EBADF", ErrorCode.IO],
  ])(
    "%s part-way through fails as %s, with the same bytes in and the same error as the thread-pool path",
    async (osCode, code) => {
      const outcome = async (sync: boolean) => {
        const handle = new TwoPathHandle(4);
        handle.failWith = osError(osCode);
        handle.okBytes = 6; // 4 + 2 bytes go in, then the error
        const file = new FsFile(handle, "p-0/f.log", undefined, sync ? handle.sync : undefined);
        const err = await failure(file.write(0, bytes(10)));
        return { handle, err };
      };
      const viaPool = await outcome(false);
      const viaSync = await outcome(true);
      expect(viaSync.handle.asyncWrites).toEqual([]);
      expect(viaSync.handle.syncWrites.length).toBe(3);
      expect(viaSync.err.code).toBe(code);
      expect(viaSync.err.code).toBe(viaPool.err.code);
      expect(viaSync.err.message).toBe(viaPool.err.message);
      expect(viaSync.err.path).toBe("p-0/f.log");
      expect(viaSync.err.cause).toBe(viaSync.handle.failWith);
      expect([...viaSync.handle.data]).toEqual([...viaPool.handle.data]);
      expect(viaSync.handle.data.length).toBe(6);
    },
  );

  it("a sync write that throws synchronously still rejects the promise (never throws from write())", () => {
    const handle = new TwoPathHandle();
    handle.failWith = osError("EIO");
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    let result: Promise<void> | undefined;
    expect(() => (result = file.write(0, bytes(4)))).not.toThrow();
    return expect(result).rejects.toMatchObject({ code: ErrorCode.IO });
  });

  it("a write of 0 bytes by writeSync is IO, not an endless loop", async () => {
    const handle = new TwoPathHandle(0);
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    expect((await failure(file.write(0, bytes(4)))).code).toBe(ErrorCode.IO);
    expect(handle.syncWrites.length).toBe(1);
  });

  it("a closed file writes nothing on either path", async () => {
    const handle = new TwoPathHandle();
    const file = new FsFile(handle, "f.log", undefined, handle.sync);
    await file.close();
    expect((await failure(file.write(0, bytes(4)))).code).toBe(ErrorCode.CLOSED);
    expect(handle.syncWrites).toEqual([]);
  });
});
