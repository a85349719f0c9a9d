/*
 * FsFile's synchronous read path: reads go through `readSync` while the read gate allows, through
 * the handle's thread-pool read once one was slow or when they are large, and give exactly what
 * the thread-pool path gives (the same bytes, short reads at end of file, the same loop over
 * partial reads, the same PagelogError codes and messages). Fake handles with an injected clock
 * for the gate, and real descriptors (FdHandle) for readSync's own behaviour: no real timing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { FsFile, type FileHandleLike, type SyncRead } from "../../../src/storage/fs-file.js";
import { FdHandle } from "../../../src/storage/fs-fd-handle.js";
import { DEFAULT_SYNC_READ_LIMITS, SyncGate } from "../../../src/storage/sync-gate.js";
import { fakeClockGate } from "../../support/fake-clock-gate.js";

/** A file in memory, read by both paths; at most `perCall` bytes per call, as pread may. */
class TwoPathHandle implements FileHandleLike {
  asyncReads: number[] = [];
  syncReads: number[] = [];
  /** Thrown by every read of either path. */
  failWith: Error | undefined;
  /** Milliseconds each sync read takes on the injected clock. */
  syncMs = 0;
  readonly clock = { t: 0 };

  constructor(
    readonly data: Uint8Array,
    readonly perCall = Infinity,
  ) {}

  #get(buffer: Uint8Array, offset: number, length: number, position: number): number {
    if (this.failWith !== undefined) throw this.failWith;
    const n = Math.max(0, Math.min(length, this.perCall, this.data.length - position));
    buffer.set(this.data.subarray(position, position + n), offset);
    return n;
  }

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    this.asyncReads.push(length);
    await Promise.resolve(); // a real handle reads on another thread: the bytes land later
    return { bytesRead: this.#get(buffer, offset, length, position) };
  }

  readonly sync: SyncRead = {
    gate: fakeClockGate(() => this.clock.t),
    read: (buffer, offset, length, position) => {
      this.syncReads.push(length);
      this.clock.t += this.syncMs;
      return this.#get(buffer, offset, length, position);
    },
  };

  async write(): Promise<{ bytesWritten: number }> {
    return { bytesWritten: 0 };
  }
  async datasync(): Promise<void> {}
  async truncate(): Promise<void> {}
  async stat(): Promise<{ size: number }> {
    return { size: this.data.length };
  }
  async close(): Promise<void> {}
}

const counting = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 1) & 0xff);

function osError(code: string, syscall = "read"): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, ${syscall} '/secret/absolute/path'`), { code, syscall });
}

async function failure(action: Promise<unknown>): Promise<PagelogError> {
  const err: unknown = await action.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PagelogError);
  return err as PagelogError;
}

describe("FsFile: synchronous reads (fake handle, injected clock)", () => {
  it("a small read goes through readSync, not the thread pool", async () => {
    const handle = new TwoPathHandle(counting(40));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    expect([...(await file.read(3, 10))]).toEqual([...counting(40).subarray(3, 13)]);
    expect(handle.syncReads).toEqual([10]);
    expect(handle.asyncReads).toEqual([]);
  });

  it("the bytes are in before the promise is even awaited (no thread-pool hop)", () => {
    const handle = new TwoPathHandle(counting(40));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    const target = new Uint8Array(8);
    void file.readInto(0, target);
    expect([...target]).toEqual([...counting(8)]);
  });

  it("a read over maxBytes goes synchronously in parts of at most maxBytes", async () => {
    const handle = new TwoPathHandle(counting(200));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    expect([...(await file.read(0, 200))]).toEqual([...counting(200)]);
    expect(handle.syncReads).toEqual([64, 64, 64, 8]);
    expect(handle.asyncReads).toEqual([]);
  });

  it("a slow part shuts the gate: the rest of the read goes through the thread pool in one call", async () => {
    const handle = new TwoPathHandle(counting(200));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    handle.syncMs = 6; // a cold device: the first part took longer than slowMs
    expect([...(await file.read(0, 200))]).toEqual([...counting(200)]);
    expect(handle.syncReads).toEqual([64]);
    expect(handle.asyncReads).toEqual([136]);
  });

  it("after a slow sync read, reads go through the thread pool until the cooldown ends", async () => {
    const handle = new TwoPathHandle(counting(100));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    handle.syncMs = 6; // slower than slowMs
    await file.read(0, 8);
    handle.syncMs = 0;
    expect([...(await file.read(8, 8))]).toEqual([...counting(16).subarray(8)]);
    await file.readInto(16, new Uint8Array(8));
    expect(handle.syncReads).toEqual([8]);
    expect(handle.asyncReads).toEqual([8, 8]);
    handle.clock.t += 100;
    await file.read(24, 8);
    expect(handle.syncReads).toEqual([8, 8]);
  });

  it("the read gate's defaults: 32 KiB a call, slow past 1 ms + its bytes at 50 MB/s or a 5 ms stat", () => {
    const clock = { t: 0 };
    const gate = new SyncGate({ ...DEFAULT_SYNC_READ_LIMITS, turnBudgetMs: Infinity, now: () => clock.t });
    expect(gate.callBytes).toBe(32 * 1024);
    expect(gate.start(32 * 1024)).toBe(0);
    expect(gate.start(32 * 1024 + 1)).toBeUndefined();
    const call = (bytes: number, ms: number): void => {
      const startedAt = gate.start(bytes)!;
      clock.t += ms;
      gate.ran(startedAt, bytes);
    };
    call(0, 5); // a stat: 5 ms is still fast
    call(32 * 1024, 1.6); // 1 ms + 32 KiB at 50 MB/s = 1.66 ms
    expect(gate.shut).toBe(false);
    call(32 * 1024, 1.7);
    expect(gate.shut).toBe(true);
    clock.t += 100;
    expect(gate.shut).toBe(false);
    call(0, 5.5); // a slow stat right after reopening: 200 ms
    clock.t += 199;
    expect(gate.shut).toBe(true);
    clock.t += 1;
    expect(gate.shut).toBe(false);
  });

  it("partial sync reads carry on until end of file, as the thread-pool path does", async () => {
    const outcome = async (sync: boolean) => {
      const handle = new TwoPathHandle(counting(23), 3);
      const file = new FsFile(handle, "f.log", undefined, undefined, sync ? handle.sync : undefined);
      const target = new Uint8Array(30).fill(0xee);
      const n = await file.readInto(5, target.subarray(4));
      return { handle, n, target, read: await file.read(2, 40) };
    };
    const viaPool = await outcome(false);
    const viaSync = await outcome(true);
    expect(viaSync.handle.asyncReads).toEqual([]);
    expect(viaSync.handle.syncReads.slice(0, 3)).toEqual([26, 23, 20]);
    expect(viaSync.n).toBe(18);
    expect(viaSync.n).toBe(viaPool.n);
    expect([...viaSync.target]).toEqual([...viaPool.target]);
    expect([...viaSync.read]).toEqual([...counting(23).subarray(2)]);
    expect([...viaSync.read]).toEqual([...viaPool.read]);
  });

  it.each([
    ["EIO", ErrorCode.IO],
    ["EBADF", ErrorCode.IO],
    ["EISDIR", ErrorCode.IO],
    ["ENOENT", ErrorCode.NOT_FOUND],
  ])("%s from a sync read fails as %s, with the thread-pool path's message and cause", async (osCode, code) => {
    const outcome = async (sync: boolean) => {
      const handle = new TwoPathHandle(counting(10));
      handle.failWith = osError(osCode);
      const file = new FsFile(handle, "p-0/f.log", undefined, undefined, sync ? handle.sync : undefined);
      return {
        handle,
        err: await failure(file.read(0, 4)),
        errInto: await failure(file.readInto(0, new Uint8Array(4))),
      };
    };
    const viaPool = await outcome(false);
    const viaSync = await outcome(true);
    expect(viaSync.handle.asyncReads).toEqual([]);
    expect(viaSync.handle.syncReads).toEqual([4, 4]);
    for (const key of ["err", "errInto"] as const) {
      expect(viaSync[key].code).toBe(code);
      expect(viaSync[key].code).toBe(viaPool[key].code);
      expect(viaSync[key].message).toBe(viaPool[key].message);
      expect(viaSync[key].path).toBe("p-0/f.log");
      expect(viaSync[key].cause).toBe(viaSync.handle.failWith);
    }
  });

  it("a sync read that throws still rejects the promise (never throws from read())", () => {
    const handle = new TwoPathHandle(counting(10));
    handle.failWith = osError("EIO");
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    let result: Promise<Uint8Array> | undefined;
    expect(() => (result = file.read(0, 4))).not.toThrow();
    return expect(result).rejects.toMatchObject({ code: ErrorCode.IO });
  });

  it("a closed file reads nothing on either path", async () => {
    const handle = new TwoPathHandle(counting(10));
    const file = new FsFile(handle, "f.log", undefined, undefined, handle.sync);
    await file.close();
    expect((await failure(file.read(0, 4))).code).toBe(ErrorCode.CLOSED);
    expect(handle.syncReads).toEqual([]);
  });
});

describe("FsFile: synchronous reads on a real descriptor equal the thread-pool reads", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pagelog-sync-read-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An FsFile on a real descriptor of `path`, reading synchronously or only through the pool. */
  function open(path: string, sync: boolean): { file: FsFile; fd: number } {
    const fd = fs.openSync(path, "r");
    const gate = new SyncGate({ ...DEFAULT_SYNC_READ_LIMITS, slowMs: Infinity });
    const syncRead: SyncRead = { gate, read: (b, o, l, p) => fs.readSync(fd, b, o, l, p) };
    return {
      file: new FsFile(new FdHandle(fd, gate), "d/f.log", undefined, undefined, sync ? syncRead : undefined),
      fd,
    };
  }

  it("the same bytes: inside, across and past end of file, empty files, into a target at an offset", async () => {
    const contents = counting(5000);
    fs.writeFileSync(nodePath.join(dir, "f"), contents);
    fs.writeFileSync(nodePath.join(dir, "empty"), new Uint8Array(0));
    const results = async (sync: boolean) => {
      const { file } = open(nodePath.join(dir, "f"), sync);
      const { file: empty } = open(nodePath.join(dir, "empty"), sync);
      const target = new Uint8Array(6000).fill(0xab);
      const out = {
        inside: [...(await file.read(100, 300))],
        across: [...(await file.read(4990, 100))],
        past: [...(await file.read(9000, 10))],
        emptyRead: [...(await empty.read(0, 10))],
        into: await file.readInto(4000, target.subarray(1500, 3500)),
        intoEmpty: await empty.readInto(0, target.subarray(0, 10)),
        target: [...target],
        size: await file.size(),
      };
      await file.close();
      await empty.close();
      return out;
    };
    const viaSync = await results(true);
    const viaPool = await results(false);
    expect(viaSync).toEqual(viaPool);
    expect(viaSync.inside).toEqual([...contents.subarray(100, 400)]);
    expect(viaSync.across).toEqual([...contents.subarray(4990)]);
    expect(viaSync.past).toEqual([]);
    expect(viaSync.into).toBe(1000);
    expect(viaSync.target.slice(1500, 2500)).toEqual([...contents.subarray(4000)]);
    expect(viaSync.target[2500]).toBe(0xab);
    expect(viaSync.size).toBe(5000);
  });

  it("a directory (EISDIR) fails with the same code and message on both paths", async () => {
    const errors = async (sync: boolean) => {
      const { file } = open(dir, sync);
      const err = await failure(file.read(0, 10));
      await file.close();
      return err;
    };
    const viaSync = await errors(true);
    const viaPool = await errors(false);
    expect(viaSync.code).toBe(ErrorCode.IO);
    expect((viaSync.cause as NodeJS.ErrnoException).code).toBe("EISDIR");
    expect(viaSync.code).toBe(viaPool.code);
    expect(viaSync.message).toBe(viaPool.message);
  });

  it("a descriptor closed underneath (EBADF) fails with the same code and message on both paths", async () => {
    fs.writeFileSync(nodePath.join(dir, "f"), counting(10));
    const errors = async (sync: boolean) => {
      const { file, fd } = open(nodePath.join(dir, "f"), sync);
      fs.closeSync(fd);
      return failure(file.readInto(0, new Uint8Array(4)));
    };
    const viaSync = await errors(true);
    const viaPool = await errors(false);
    expect((viaSync.cause as NodeJS.ErrnoException).code).toBe("EBADF");
    expect(viaSync.code).toBe(ErrorCode.IO);
    expect(viaSync.code).toBe(viaPool.code);
    expect(viaSync.message).toBe(viaPool.message);
  });
});

describe("FdHandle", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pagelog-fd-handle-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("close() waits for the thread-pool reads in flight, then refuses new calls with EBADF", async () => {
    fs.writeFileSync(nodePath.join(dir, "f"), counting(64));
    const handle = new FdHandle(fs.openSync(nodePath.join(dir, "f"), "r"));
    const targets = [new Uint8Array(64), new Uint8Array(64)];
    const reads = targets.map((t) => handle.read(t, 0, 64, 0));
    const closed = handle.close();
    expect((await Promise.all(reads)).map((r) => r.bytesRead)).toEqual([64, 64]);
    for (const t of targets) expect([...t]).toEqual([...counting(64)]);
    await closed;
    await expect(handle.read(new Uint8Array(4), 0, 4, 0)).rejects.toMatchObject({ code: "EBADF" });
    await expect(handle.stat()).rejects.toMatchObject({ code: "EBADF" });
    expect(() => fs.fstatSync(handle.fd)).toThrow(); // the descriptor really is closed
    expect(handle.close()).toBe(closed);
  });

  it("stat is fstat, synchronous while the gate allows and through the pool when it is shut", async () => {
    fs.writeFileSync(nodePath.join(dir, "f"), counting(33));
    const clock = { t: 0 };
    const gate = new SyncGate({ ...DEFAULT_SYNC_READ_LIMITS, turnBudgetMs: Infinity, now: () => clock.t });
    const handle = new FdHandle(fs.openSync(nodePath.join(dir, "f"), "r"), gate);
    expect((await handle.stat()).size).toBe(33);
    gate.ran(-1000); // a slow call: shut
    expect(gate.shut).toBe(true);
    expect((await handle.stat()).size).toBe(33);
    await handle.close();
  });
});
