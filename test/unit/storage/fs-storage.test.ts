import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { codeForOsError, fromFsError } from "../../../src/storage/fs-errors.js";
import { FsFile, type FileHandleLike } from "../../../src/storage/fs-file.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { HandlePool } from "../../../src/storage/handle-pool.js";
import type { StorageFile } from "../../../src/storage/storage.js";
import { storageContract } from "../../../src/testing/storage-contract.js";

async function makeTempDir(): Promise<string> {
  return fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-fs-"));
}

storageContract(
  "FsStorage",
  async () => {
    const dir = await makeTempDir();
    return {
      storage: await FsStorage.open(nodePath.join(dir, "root")),
      cleanup: () => fs.rm(dir, { recursive: true, force: true }),
    };
  },
  { describe, it },
);

async function expectCode(action: () => Promise<unknown>, code: ErrorCode): Promise<PagelogError> {
  const err: unknown = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PagelogError);
  expect((err as PagelogError).code).toBe(code);
  return err as PagelogError;
}

/** An in-memory FileHandle that moves at most `perCall` bytes per read or write call. */
class TrickleHandle implements FileHandleLike {
  data = new Uint8Array(0);
  readCalls: [offset: number, length: number, position: number][] = [];
  writeCalls: [offset: number, length: number, position: number][] = [];
  closeCalls = 0;
  failWith: Error | undefined;
  writeReturnsZero = false;

  constructor(readonly perCall: number) {}

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    this.readCalls.push([offset, length, position]);
    if (this.failWith) throw this.failWith;
    const n = Math.max(0, Math.min(length, this.perCall, this.data.length - position));
    buffer.set(this.data.subarray(position, position + n), offset);
    return { bytesRead: n };
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    this.writeCalls.push([offset, length, position]);
    if (this.failWith) throw this.failWith;
    if (this.writeReturnsZero) return { bytesWritten: 0 };
    const n = Math.min(length, this.perCall);
    if (position + n > this.data.length) {
      const grown = new Uint8Array(position + n);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(buffer.subarray(offset, offset + n), position);
    return { bytesWritten: n };
  }

  async datasync(): Promise<void> {}
  async truncate(): Promise<void> {}
  async stat(): Promise<{ size: number }> {
    return { size: this.data.length };
  }
  async close(): Promise<void> {
    this.closeCalls++;
  }
}

function osError(code: string, syscall: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}, ${syscall} '/secret/absolute/path'`), { code, syscall });
}

describe("FsFile I/O loops", () => {
  it("write: a handle that writes 3 bytes per call still gets every byte, in order", async () => {
    const handle = new TrickleHandle(3);
    const file = new FsFile(handle, "f");
    await file.write(5, new TextEncoder().encode("0123456789"));
    expect(handle.writeCalls).toEqual([
      [0, 10, 5],
      [3, 7, 8],
      [6, 4, 11],
      [9, 1, 14],
    ]);
    expect(new TextDecoder().decode(handle.data.subarray(5))).toBe("0123456789");
  });

  it("write: a handle that writes 0 bytes is IO, not an endless loop", async () => {
    const handle = new TrickleHandle(3);
    handle.writeReturnsZero = true;
    await expectCode(() => new FsFile(handle, "f").write(0, new Uint8Array(4)), ErrorCode.IO);
    expect(handle.writeCalls.length).toBe(1);
  });

  it("read: a handle that reads 3 bytes per call still fills the request", async () => {
    const handle = new TrickleHandle(3);
    handle.data = new TextEncoder().encode("abcdefghij");
    const file = new FsFile(handle, "f");
    expect(new TextDecoder().decode(await file.read(0, 10))).toBe("abcdefghij");
    expect(handle.readCalls.length).toBe(4);
  });

  it("read: short only at the end of the file, after the handle says 0", async () => {
    const handle = new TrickleHandle(3);
    handle.data = new TextEncoder().encode("abcdefghij");
    const file = new FsFile(handle, "f");
    expect(new TextDecoder().decode(await file.read(5, 100))).toBe("fghij");
    expect(handle.readCalls.at(-1)).toEqual([5, 95, 10]);
  });

  it("write: ENOSPC from the OS is NO_SPACE with the OS error as cause", async () => {
    const handle = new TrickleHandle(3);
    handle.failWith = osError("ENOSPC", "write", "no space left on device");
    const err = await expectCode(() => new FsFile(handle, "p-0/f.log").write(0, new Uint8Array(4)), ErrorCode.NO_SPACE);
    expect(err.cause).toBe(handle.failWith);
    expect(err.path).toBe("p-0/f.log");
  });

  it("close: closes the handle once however often it is called", async () => {
    const handle = new TrickleHandle(3);
    const file = new FsFile(handle, "f");
    await Promise.all([file.close(), file.close()]);
    await file.close();
    expect(handle.closeCalls).toBe(1);
    await expectCode(() => file.read(0, 1), ErrorCode.CLOSED);
  });
});

describe("fs error mapping", () => {
  it.each([
    ["ENOENT", ErrorCode.NOT_FOUND],
    ["ENOTDIR", ErrorCode.NOT_FOUND],
    ["ENOSPC", ErrorCode.NO_SPACE],
    ["EDQUOT", ErrorCode.NO_SPACE],
    ["EIO", ErrorCode.IO],
    ["EACCES", ErrorCode.IO],
    ["ENOTEMPTY", ErrorCode.IO],
    [undefined, ErrorCode.IO],
  ])("%s maps to %s", (osCode, code) => {
    expect(codeForOsError(osCode)).toBe(code);
  });

  it("the message names the op and the storage path, not the absolute one; cause keeps code and syscall", () => {
    const cause = osError("ENOSPC", "write", "no space left on device");
    const err = fromFsError(cause, "write", "orders-0/00000000000000000000.log");
    expect(err.code).toBe(ErrorCode.NO_SPACE);
    expect(err.message).toBe('write "orders-0/00000000000000000000.log" failed: ENOSPC: no space left on device');
    expect(err.message).not.toContain("/secret");
    expect(err.cause).toBe(cause);
    expect((err.cause as NodeJS.ErrnoException).syscall).toBe("write");
  });

  it("a PagelogError passes through unchanged; a non-error becomes IO", () => {
    const original = new PagelogError("x", ErrorCode.CLOSED);
    expect(fromFsError(original, "read", "f")).toBe(original);
    expect(fromFsError("weird", "read", "f").code).toBe(ErrorCode.IO);
  });
});

describe("FsStorage on a real directory", () => {
  let tmp: string;
  const storages: FsStorage[] = [];
  const children: ChildProcess[] = [];

  async function openStorage(root = nodePath.join(tmp, "root")): Promise<FsStorage> {
    const s = await FsStorage.open(root);
    storages.push(s);
    return s;
  }

  function spawnSleeper(): ChildProcess {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    children.push(child);
    return child;
  }

  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(child, "exit");
    if (child.pid === undefined) throw new Error("no pid");
    return child.pid;
  }

  async function bootId(): Promise<string | undefined> {
    return fs.readFile("/proc/sys/kernel/random/boot_id", "utf8").then(
      (t) => t.trim(),
      () => undefined,
    );
  }

  beforeEach(async () => {
    tmp = await makeTempDir();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    for (const s of storages.splice(0)) await s.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("open: creates a missing root and its parents", async () => {
    const s = await openStorage(nodePath.join(tmp, "a", "b", "root"));
    expect((await fs.stat(nodePath.join(tmp, "a", "b", "root"))).isDirectory()).toBe(true);
    expect(s.root).toBe(await fs.realpath(nodePath.join(tmp, "a", "b", "root")));
  });

  it("open: a root that is a file is IO", async () => {
    await fs.writeFile(nodePath.join(tmp, "file"), "x");
    await expectCode(() => FsStorage.open(nodePath.join(tmp, "file")), ErrorCode.IO);
  });

  it("paths: escape attempts never touch anything outside the root", async () => {
    const secret = nodePath.join(tmp, "secret");
    await fs.writeFile(secret, "untouched");
    const s = await openStorage();
    const f = await s.open("inside", { create: true });
    await f.close();
    const escapes = ["../secret", "a/../../secret", "..", secret, "root/../secret", "..\\secret", "../secret\0"];
    for (const p of escapes) {
      await expectCode(() => s.open(p, { create: true }), ErrorCode.INVALID_PATH);
      await expectCode(() => s.remove(p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.rename(p, "stolen"), ErrorCode.INVALID_PATH);
      await expectCode(() => s.rename("inside", p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.mkdir(p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.lock(p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.list(p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.stat(p), ErrorCode.INVALID_PATH);
      await expectCode(() => s.syncDir(p), ErrorCode.INVALID_PATH);
    }
    expect(await fs.readFile(secret, "utf8")).toBe("untouched");
    expect((await fs.readdir(tmp)).sort()).toEqual(["root", "secret"]);
    expect(await s.list("")).toEqual(["inside"]);
  });

  it("errors: an OS error keeps its code and syscall as cause; the message uses the storage path", async () => {
    const s = await openStorage();
    const err = await expectCode(() => s.open("missing.log"), ErrorCode.NOT_FOUND);
    expect((err.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect((err.cause as NodeJS.ErrnoException).syscall).toBe("open");
    expect(err.path).toBe("missing.log");
    expect(err.message).toContain('open "missing.log"');
    expect(err.message).not.toContain(tmp);
  });

  it("errors: a non-empty directory's remove is IO with ENOTEMPTY (or EEXIST) as cause", async () => {
    const s = await openStorage();
    await s.mkdir("d");
    await (await s.open("d/f", { create: true })).close();
    const err = await expectCode(() => s.remove("d"), ErrorCode.IO);
    expect(["ENOTEMPTY", "EEXIST"]).toContain((err.cause as NodeJS.ErrnoException).code);
  });

  it("lock: the lock file holds this process's pid and is gone after release", async () => {
    const s = await openStorage();
    const lock = await s.lock(".lock");
    const content = await fs.readFile(nodePath.join(s.root, ".lock"), "utf8");
    expect(content.split("\n")[0]).toBe(String(process.pid));
    await lock.release();
    await expect(fs.stat(nodePath.join(s.root, ".lock"))).rejects.toThrow();
  });

  it("lock: a second FsStorage in this process, even through a symlink, is LOCKED", async () => {
    const a = await openStorage();
    await fs.symlink(a.root, nodePath.join(tmp, "alias"));
    const b = await openStorage(nodePath.join(tmp, "alias"));
    const lock = await a.lock(".lock");
    await expectCode(() => b.lock(".lock"), ErrorCode.LOCKED);
    await lock.release();
    await (await b.lock(".lock")).release();
  });

  it("lock: close() of the storage releases its locks", async () => {
    const a = await openStorage();
    await a.lock(".lock");
    await a.close();
    const b = await openStorage();
    await (await b.lock(".lock")).release();
  });

  it("lock: a lock file naming another live process is LOCKED, naming the pid and the file", async () => {
    const child = spawnSleeper();
    const s = await openStorage();
    await fs.writeFile(nodePath.join(s.root, ".lock"), `${child.pid}\n`);
    const err = await expectCode(() => s.lock(".lock"), ErrorCode.LOCKED);
    expect(err.message).toContain(String(child.pid));
    expect(err.message).toContain(nodePath.join(s.root, ".lock"));
    // The live holder's file is left alone.
    expect(await fs.readFile(nodePath.join(s.root, ".lock"), "utf8")).toBe(`${child.pid}\n`);
  });

  it("lock: a stale lock file of a dead process is taken over", async () => {
    const pid = await deadPid();
    const s = await openStorage();
    await fs.writeFile(nodePath.join(s.root, ".lock"), `${pid}\n`);
    const lock = await s.lock(".lock");
    expect((await fs.readFile(nodePath.join(s.root, ".lock"), "utf8")).split("\n")[0]).toBe(String(process.pid));
    await lock.release();
  });

  it.each([
    ["garbage", "not a pid"],
    ["an empty file", ""],
    ["zeros (a power cut before the data was written)", "\0\0\0\0\0\0"],
    ["pid 0 (kill(0) would signal our own group)", "0\n"],
    ["a negative pid", "-1\n"],
    ["a pid past any pid_max", "99999999999\n"],
  ])("lock: a lock file holding %s is taken over", async (_what, content) => {
    const s = await openStorage();
    await fs.writeFile(nodePath.join(s.root, ".lock"), content);
    await (await s.lock(".lock")).release();
  });

  it("lock: a lock file from before a reboot (other boot id) is taken over even if its pid is alive", async (ctx) => {
    if ((await bootId()) === undefined) ctx.skip();
    const child = spawnSleeper();
    const s = await openStorage();
    await fs.writeFile(nodePath.join(s.root, ".lock"), `${child.pid}\n00000000-0000-0000-0000-000000000000\n`);
    await (await s.lock(".lock")).release();
  });

  it("lock: our own pid from this boot is LOCKED while a descriptor of this process holds it; a leftover otherwise", async (ctx) => {
    const id = await bootId();
    if (id === undefined) ctx.skip();
    const s = await openStorage();
    const file = nodePath.join(s.root, ".lock");
    await fs.writeFile(file, `${process.pid}\n${id}\n`);
    const held = await fs.open(file, "r"); // as another thread holding it would
    await expectCode(() => s.lock(".lock"), ErrorCode.LOCKED);
    await held.close();
    // Nobody in this process has it open: a thread that died, or a release that could not delete it.
    await (await s.lock(".lock")).release();
    await fs.writeFile(file, `${process.pid}\n`);
    await (await s.lock(".lock")).release();
  });
});

describe("FsStorage construction", () => {
  it("new FsStorage(root) from JavaScript is a TypeError pointing at FsStorage.open, not a broken storage", () => {
    // The constructor is private in the types; plain JavaScript can still call it.
    const Construct = FsStorage as unknown as new (root: string) => FsStorage;
    expect(() => new Construct(os.tmpdir())).toThrow(TypeError);
    expect(() => new Construct(os.tmpdir())).toThrow(/FsStorage\.open\(root\)/);
  });
});

/**
 * A HandlePool reopens an evicted FsStorage file through `REOPEN`: the new descriptor's inode is
 * compared with the one the handle had, and the root is checked only when they differ (or the
 * open fails). Each case evicts `a` by opening `b` in a pool of one descriptor.
 */
describe("FsStorage under a HandlePool: reopening an evicted file", () => {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  let parent: string;
  let root: string;
  beforeEach(async () => {
    parent = await makeTempDir();
    root = nodePath.join(parent, "root");
  });
  afterEach(() => fs.rm(parent, { recursive: true, force: true }));

  async function evicted(): Promise<{ pool: HandlePool; a: StorageFile }> {
    const pool = new HandlePool(await FsStorage.open(root), { maxOpenFiles: 1 });
    const a = await pool.open("a", { create: true });
    await a.write(0, enc.encode("mine"));
    await a.sync();
    const b = await pool.open("b", { create: true }); // takes a's descriptor
    expect(pool.stats.evictions).toBe(1);
    await b.close();
    return { pool, a };
  }

  it("the same file under its name: reopened with no root check (a hard link in a new root is the same file)", async () => {
    const { pool, a } = await evicted();
    // The root moves away and a directory at its path holds a's inode under a's name: the
    // handle follows its file, as it would had its descriptor never been closed.
    await fs.rename(root, `${root}.moved`);
    await fs.mkdir(root);
    await fs.link(nodePath.join(`${root}.moved`, "a"), nodePath.join(root, "a"));
    expect(dec.decode(await a.read(0, 4))).toBe("mine");
    expect(pool.stats.opens).toBe(3);
    await pool.close().catch(() => undefined); // the root moved: the storage's own close may say so
  });

  it("the root moved and replaced: PAGELOG_MOVED, and the other directory's file is never read", async () => {
    const { pool, a } = await evicted();
    await fs.rename(root, `${root}.moved`);
    await fs.mkdir(root);
    await fs.writeFile(nodePath.join(root, "a"), "other");
    await expectCode(() => a.read(0, 5), ErrorCode.MOVED);
    await pool.close().catch(() => undefined);
  });

  it("the root moved away: PAGELOG_MOVED, not PAGELOG_NOT_FOUND", async () => {
    const { pool, a } = await evicted();
    await fs.rename(root, `${root}.moved`);
    await expectCode(() => a.size(), ErrorCode.MOVED);
    await pool.close().catch(() => undefined);
  });

  it("a file replaced behind the pool's back: the evicted handle reopens what the name leads to, as documented", async () => {
    const { pool, a } = await evicted();
    await fs.writeFile(nodePath.join(root, "a.new"), "newer");
    await fs.rename(nodePath.join(root, "a.new"), nodePath.join(root, "a"));
    expect(dec.decode(await a.read(0, 5))).toBe("newer");
    // Reopened once more, the handle compares with the file it has now: the same, no root check.
    const c = await pool.open("c", { create: true });
    await c.close();
    expect(dec.decode(await a.read(0, 5))).toBe("newer");
    await pool.close();
  });
});
