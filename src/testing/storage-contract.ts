/**
 * The Storage conformance suite: every promise in `storage/storage.ts` that can be observed
 * without a power cut, as vitest tests. `FsStorage` and `SimStorage` both run it; a third-party
 * backend proves itself the same way:
 *
 * ```ts
 * import { storageContract } from "pagelog/testing";
 * storageContract("MyStorage", async () => ({ storage: await MyStorage.open(), cleanup: … }));
 * ```
 *
 * Each test gets a fresh, empty storage from `factory`; the suite closes it afterwards and then
 * calls `cleanup`. What happens at a power cut is not tested here (a real disk cannot be made to
 * lose power on cue); the crash properties test that against `SimStorage`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../errors.js";
import type { Storage, StorageFile, StorageLock } from "../storage/storage.js";

export interface StorageContractInstance {
  /** A fresh storage whose root is empty. */
  storage: Storage;
  /** Runs after the suite has closed `storage` (remove a temp directory, …). */
  cleanup?: () => Promise<void>;
}

/** Makes one fresh, empty storage per test (see {@link storageContract}). */
export type StorageFactory = () => Promise<StorageContractInstance>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a string, so expectations read as text. */
function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A file's bytes as text; NULs show as `\0`, so a gap of zeros is visible in a failure. */
function text(data: Uint8Array): string {
  return decoder.decode(data);
}

/**
 * Asserts that `action` rejects with a `PagelogError` carrying `code`. A synchronous throw fails
 * the assertion too: every Storage method returns a promise, and a caller's `.catch()` would miss it.
 */
async function expectCode(action: () => Promise<unknown>, code: ErrorCode): Promise<void> {
  let promise: Promise<unknown>;
  try {
    promise = action();
  } catch (err) {
    throw new Error(`expected a rejection with ${code}, but the call threw synchronously: ${String(err)}`);
  }
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  if (error === undefined) throw new Error(`expected a rejection with ${code}, but the call resolved`);
  if (!(error instanceof PagelogError && error.code === code)) {
    const got = error instanceof PagelogError ? error.code : String(error);
    throw new Error(`expected a PagelogError with code ${code}, got ${got}`, { cause: error });
  }
}

/** Same as {@link expectCode} for programmer mistakes: a rejection with the given error class. */
async function expectRejects(action: () => Promise<unknown>, type: new (...args: never[]) => Error): Promise<void> {
  let error: unknown;
  try {
    await action();
  } catch (err) {
    error = err;
  }
  if (!(error instanceof type)) throw new Error(`expected a ${type.name}, got ${String(error)}`);
}

async function readAll(file: StorageFile): Promise<string> {
  return text(await file.read(0, await file.size()));
}

/** Every invalid path form `normalizePath` rejects, with what makes it invalid. */
const INVALID_PATHS: readonly (readonly [string, string])[] = [
  ["../x", "parent segment"],
  ["/abs", "absolute"],
  ["a/../b", "inner parent segment"],
  ["a\0b", "NUL"],
  ["a\\b", "backslash"],
  ["a//b", "empty segment"],
  ["./a", "dot segment"],
  ["a/./b", "inner dot segment"],
  ["..", "bare parent"],
];

/**
 * Registers a vitest `describe` block named `Storage contract: ${name}` that checks an
 * implementation against the Storage contract. `factory` is called once per test.
 */
export function storageContract(name: string, factory: StorageFactory): void {
  describe(`Storage contract: ${name}`, () => {
    let instance: StorageContractInstance | undefined;
    let s: Storage;

    beforeEach(async () => {
      instance = await factory();
      s = instance.storage;
    });

    afterEach(async () => {
      const current = instance;
      instance = undefined;
      if (current === undefined) return;
      try {
        await current.storage.close();
      } finally {
        await current.cleanup?.();
      }
    });

    async function createFile(path: string, content: string): Promise<void> {
      const f = await s.open(path, { create: true });
      await f.write(0, bytes(content));
      await f.close();
    }

    async function contentOf(path: string): Promise<string> {
      const f = await s.open(path);
      try {
        return await readAll(f);
      } finally {
        await f.close();
      }
    }

    describe("open", () => {
      it("open: a missing file without create is NOT_FOUND", async () => {
        await expectCode(() => s.open("missing"), ErrorCode.NOT_FOUND);
        expect(await s.stat("missing")).toBeNull();
      });

      it("open: create in a missing directory is NOT_FOUND", async () => {
        await expectCode(() => s.open("nodir/f", { create: true }), ErrorCode.NOT_FOUND);
      });

      it("open: create makes an empty file that stat and list see", async () => {
        const f = await s.open("f", { create: true });
        expect(f.path).toBe("f");
        expect(await f.size()).toBe(0);
        expect(await s.stat("f")).toEqual({ kind: "file", size: 0 });
        expect(await s.list("")).toEqual(["f"]);
        await f.close();
      });

      it("open: create on an existing file keeps its bytes", async () => {
        await createFile("f", "hello");
        const f = await s.open("f", { create: true });
        expect(await readAll(f)).toBe("hello");
        await f.close();
      });

      it("open: a file in a subdirectory reports its normalized path", async () => {
        await s.mkdir("d");
        const f = await s.open("d/f", { create: true });
        expect(f.path).toBe("d/f");
        await f.close();
        expect(await s.list("d")).toEqual(["f"]);
      });

      it("open: a directory is IO, with or without create", async () => {
        await s.mkdir("d");
        await expectCode(() => s.open("d"), ErrorCode.IO);
        await expectCode(() => s.open("d", { create: true }), ErrorCode.IO);
      });

      it("open: bytes written survive closing and reopening the handle", async () => {
        await createFile("f", "kept");
        expect(await contentOf("f")).toBe("kept");
      });
    });

    describe("read-only open", () => {
      it("open readOnly: reads work; write and truncate are IO and change nothing", async () => {
        await createFile("ro", "kept");
        const f = await s.open("ro", { readOnly: true });
        expect(text(await f.read(0, 10))).toBe("kept");
        await expectCode(() => f.write(0, bytes("x")), ErrorCode.IO);
        await expectCode(() => f.truncate(0), ErrorCode.IO);
        await f.close();
        expect(await contentOf("ro")).toBe("kept");
      });

      it("open readOnly: a missing file is NOT_FOUND; readOnly with create is a TypeError", async () => {
        await expectCode(() => s.open("missing", { readOnly: true }), ErrorCode.NOT_FOUND);
        await expect(s.open("x", { readOnly: true, create: true })).rejects.toThrow(TypeError);
      });
    });

    describe("read and write", () => {
      it("write then read at positions", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("hello world"));
        await f.write(6, bytes("WORLD"));
        expect(text(await f.read(0, 11))).toBe("hello WORLD");
        expect(text(await f.read(6, 3))).toBe("WOR");
        expect(text(await f.read(10, 1))).toBe("D");
        await f.close();
      });

      it("write past the end fills the gap with zeros", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("ab"));
        await f.write(5, bytes("cd"));
        expect(await f.size()).toBe(7);
        expect(text(await f.read(0, 7))).toBe("ab\0\0\0cd");
        await f.close();
      });

      it("write into an empty file at a position zero-fills from 0", async () => {
        const f = await s.open("f", { create: true });
        await f.write(3, bytes("x"));
        expect(text(await f.read(0, 10))).toBe("\0\0\0x");
        await f.close();
      });

      it("read is short only at the end of the file", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("0123456789"));
        expect(text(await f.read(4, 100))).toBe("456789");
        expect(text(await f.read(9, 2))).toBe("9");
        await f.close();
      });

      it("read at or past the end is empty", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abc"));
        expect((await f.read(3, 10)).length).toBe(0);
        expect((await f.read(1000, 10)).length).toBe(0);
        expect((await f.read(0, 0)).length).toBe(0);
        await f.close();
      });

      it("a write spanning several pages reads back exactly", async () => {
        const data = new Uint8Array(3 * 4096 + 123);
        for (let i = 0; i < data.length; i++) data[i] = (i * 31 + 7) & 0xff;
        const f = await s.open("f", { create: true });
        await f.write(4000, data);
        expect(await f.size()).toBe(4000 + data.length);
        expect(await f.read(4000, data.length)).toEqual(data);
        expect(await f.read(0, 4000)).toEqual(new Uint8Array(4000));
        expect(await f.read(4096, 100)).toEqual(data.subarray(96, 196));
        await f.close();
      });

      it("overwriting inside the file keeps its size", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abcdef"));
        await f.write(2, bytes("XY"));
        expect(await f.size()).toBe(6);
        expect(await readAll(f)).toBe("abXYef");
        await f.close();
      });

      it("size is the end of the furthest write", async () => {
        const f = await s.open("f", { create: true });
        await f.write(10, bytes("a"));
        await f.write(2, bytes("b"));
        expect(await f.size()).toBe(11);
        await f.close();
      });

      it("a write of 0 bytes resolves and changes nothing, not even the size", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abc"));
        await f.write(1, new Uint8Array(0));
        await f.write(100, new Uint8Array(0));
        expect(await f.size()).toBe(3);
        expect(await readAll(f)).toBe("abc");
        await f.close();
      });

      it("the caller may change the buffer after write resolves", async () => {
        const f = await s.open("f", { create: true });
        const buffer = bytes("original");
        await f.write(0, buffer);
        buffer.fill(0x21);
        expect(await readAll(f)).toBe("original");
        await f.close();
      });

      it("changing a read result does not change the file", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("original"));
        const first = await f.read(0, 8);
        first.fill(0x21);
        expect(text(await f.read(0, 8))).toBe("original");
        await f.close();
      });

      it("a write from a view into a larger buffer writes only the view", async () => {
        const backing = bytes("xxHELLOxx");
        const f = await s.open("f", { create: true });
        await f.write(0, backing.subarray(2, 7));
        expect(await readAll(f)).toBe("HELLO");
        await f.close();
      });

      it("two handles on one file see each other's writes", async () => {
        const a = await s.open("f", { create: true });
        const b = await s.open("f");
        await a.write(0, bytes("from a"));
        expect(text(await b.read(0, 6))).toBe("from a");
        await b.write(0, bytes("FROM"));
        expect(text(await a.read(0, 6))).toBe("FROM a");
        await b.truncate(2);
        expect(await a.size()).toBe(2);
        await a.close();
        expect(text(await b.read(0, 10))).toBe("FR");
        await b.close();
      });

      it("bad positions and lengths are RangeErrors, non-bytes a TypeError", async () => {
        const f = await s.open("f", { create: true });
        await expectRejects(() => f.read(-1, 1), RangeError);
        await expectRejects(() => f.read(0, -1), RangeError);
        await expectRejects(() => f.read(0.5, 1), RangeError);
        await expectRejects(() => f.write(-1, bytes("x")), RangeError);
        await expectRejects(() => f.write(Number.NaN, bytes("x")), RangeError);
        await expectRejects(() => f.truncate(-1), RangeError);
        await expectRejects(() => f.write(0, "text" as unknown as Uint8Array), TypeError);
        await expectRejects(() => f.write(0, [1, 2] as unknown as Uint8Array), TypeError);
        expect(await f.size()).toBe(0);
        await f.close();
      });
    });

    describe("truncate", () => {
      it("truncate: shrinking cuts the file", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abcdef"));
        await f.truncate(3);
        expect(await f.size()).toBe(3);
        expect(text(await f.read(0, 10))).toBe("abc");
        expect(await s.stat("f")).toEqual({ kind: "file", size: 3 });
        await f.close();
      });

      it("truncate: growing zero-extends", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("ab"));
        await f.truncate(5);
        expect(await f.size()).toBe(5);
        expect(text(await f.read(0, 10))).toBe("ab\0\0\0");
        await f.close();
      });

      it("truncate: a write after shrinking leaves zeros in the gap, not the old bytes", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abcdefgh"));
        await f.truncate(2);
        await f.write(6, bytes("XY"));
        expect(text(await f.read(0, 8))).toBe("ab\0\0\0\0XY");
        await f.close();
      });

      it("truncate: shrinking then growing again reads zeros", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abcdefgh"));
        await f.truncate(0);
        await f.truncate(4);
        expect(text(await f.read(0, 8))).toBe("\0\0\0\0");
        await f.close();
      });

      it("truncate: to the current size changes nothing", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abc"));
        await f.truncate(3);
        expect(await readAll(f)).toBe("abc");
        await f.close();
      });
    });

    describe("sync", () => {
      it("sync resolves, after writes, after truncate and on an empty file", async () => {
        const f = await s.open("f", { create: true });
        await f.sync();
        await f.write(0, bytes("abc"));
        await f.sync();
        await f.truncate(1);
        await f.sync();
        expect(await readAll(f)).toBe("a");
        await f.close();
      });

      it("syncDir: root (as '' and '.') and a subdirectory resolve", async () => {
        await s.mkdir("d");
        await createFile("d/f", "x");
        await s.syncDir("");
        await s.syncDir(".");
        await s.syncDir("d");
      });

      it("syncDir: a missing directory is NOT_FOUND", async () => {
        await expectCode(() => s.syncDir("missing"), ErrorCode.NOT_FOUND);
      });
    });

    describe("list", () => {
      it("list: names sorted by UTF-16 code unit, directories included", async () => {
        // No two names differ only in case: case-insensitive file systems (macOS) would merge them.
        for (const n of ["c", "a", "B", "_x", "10", "9", "~z"]) await createFile(n, "");
        await s.mkdir("dir");
        expect(await s.list("")).toEqual(["10", "9", "B", "_x", "a", "c", "dir", "~z"]);
        expect(await s.list(".")).toEqual(await s.list(""));
      });

      it("list: a subdirectory gives names, not paths", async () => {
        await s.mkdir("d");
        await createFile("d/2", "");
        await createFile("d/1", "");
        await s.mkdir("d/sub");
        expect(await s.list("d")).toEqual(["1", "2", "sub"]);
        expect(await s.list("d/sub")).toEqual([]);
      });

      it("list: an empty root is empty", async () => {
        expect(await s.list("")).toEqual([]);
      });

      it("list: a missing directory is NOT_FOUND", async () => {
        await expectCode(() => s.list("missing"), ErrorCode.NOT_FOUND);
      });
    });

    describe("mkdir", () => {
      it("mkdir: creates a directory, and again is a no-op", async () => {
        await s.mkdir("d");
        await createFile("d/f", "x");
        await s.mkdir("d");
        expect(await s.stat("d")).toEqual({ kind: "dir", size: 0 });
        expect(await s.list("d")).toEqual(["f"]);
      });

      it("mkdir: nested one level at a time", async () => {
        await s.mkdir("a");
        await s.mkdir("a/b");
        expect(await s.list("a")).toEqual(["b"]);
      });

      it("mkdir: under a missing parent is NOT_FOUND", async () => {
        await expectCode(() => s.mkdir("missing/d"), ErrorCode.NOT_FOUND);
        expect(await s.stat("missing")).toBeNull();
      });

      it("mkdir: where a file is is IO, and the file is kept", async () => {
        await createFile("f", "keep");
        await expectCode(() => s.mkdir("f"), ErrorCode.IO);
        expect(await contentOf("f")).toBe("keep");
      });
    });

    describe("remove", () => {
      it("remove: a file", async () => {
        await createFile("f", "x");
        await s.remove("f");
        expect(await s.stat("f")).toBeNull();
        expect(await s.list("")).toEqual([]);
        await expectCode(() => s.open("f"), ErrorCode.NOT_FOUND);
      });

      it("remove: an empty directory", async () => {
        await s.mkdir("d");
        await s.remove("d");
        expect(await s.stat("d")).toBeNull();
      });

      it("remove: a non-empty directory is IO and removes nothing", async () => {
        await s.mkdir("d");
        await createFile("d/f", "x");
        await expectCode(() => s.remove("d"), ErrorCode.IO);
        expect(await s.list("d")).toEqual(["f"]);
      });

      it("remove: a missing entry is NOT_FOUND", async () => {
        await expectCode(() => s.remove("missing"), ErrorCode.NOT_FOUND);
        await expectCode(() => s.remove("missing/f"), ErrorCode.NOT_FOUND);
      });

      it("remove: an open handle keeps working on the removed file", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("before"));
        await s.remove("f");
        await f.write(6, bytes(" after"));
        expect(await readAll(f)).toBe("before after");
        await f.truncate(3);
        expect(await f.size()).toBe(3);
        await f.sync();
        expect(await s.stat("f")).toBeNull();
        // A new file under the same name is a different file.
        const g = await s.open("f", { create: true });
        expect(await g.size()).toBe(0);
        await g.write(0, bytes("new"));
        expect(await readAll(f)).toBe("bef");
        await f.close();
        await g.close();
        expect(await contentOf("f")).toBe("new");
      });
    });

    describe("rename", () => {
      it("rename: moves a file within its directory", async () => {
        await createFile("a", "data");
        await s.rename("a", "b");
        expect(await s.stat("a")).toBeNull();
        expect(await contentOf("b")).toBe("data");
        expect(await s.list("")).toEqual(["b"]);
      });

      it("rename: replaces an existing file", async () => {
        await s.mkdir("d");
        await createFile("d/x.tmp", "new");
        await createFile("d/x", "old");
        await s.rename("d/x.tmp", "d/x");
        expect(await contentOf("d/x")).toBe("new");
        expect(await s.list("d")).toEqual(["x"]);
      });

      it("rename: a handle open on the replaced target still reads the old file", async () => {
        await createFile("new", "new");
        await createFile("old", "old");
        const h = await s.open("old");
        await s.rename("new", "old");
        expect(await readAll(h)).toBe("old");
        await h.close();
        expect(await contentOf("old")).toBe("new");
      });

      it("rename: a handle open on the source follows the file", async () => {
        const f = await s.open("a", { create: true });
        await s.rename("a", "b");
        await f.write(0, bytes("via handle"));
        await f.close();
        expect(await contentOf("b")).toBe("via handle");
      });

      it("rename: a directory with its contents", async () => {
        await s.mkdir("d");
        await createFile("d/f", "inside");
        await s.rename("d", "e");
        expect(await s.stat("d")).toBeNull();
        expect(await contentOf("e/f")).toBe("inside");
      });

      it("rename: across directories is INVALID_PATH and changes nothing", async () => {
        await s.mkdir("d");
        await createFile("a", "x");
        await expectCode(() => s.rename("a", "d/a"), ErrorCode.INVALID_PATH);
        await expectCode(() => s.rename("d/a", "a"), ErrorCode.INVALID_PATH);
        expect(await s.list("")).toEqual(["a", "d"]);
        expect(await s.list("d")).toEqual([]);
      });

      it("rename: a directory onto a file is IO and changes nothing", async () => {
        await s.mkdir("d");
        await createFile("a", "kept");
        await expectCode(() => s.rename("d", "a"), ErrorCode.IO);
        expect(await s.list("")).toEqual(["a", "d"]);
        expect(await contentOf("a")).toBe("kept");
      });

      it("rename: a missing source is NOT_FOUND", async () => {
        await createFile("b", "kept");
        await expectCode(() => s.rename("missing", "b"), ErrorCode.NOT_FOUND);
        expect(await contentOf("b")).toBe("kept");
      });
    });

    describe("stat", () => {
      it("stat: a file's cached size, a directory, the root, nothing", async () => {
        await createFile("f", "12345");
        await s.mkdir("d");
        expect(await s.stat("f")).toEqual({ kind: "file", size: 5 });
        expect(await s.stat("d")).toEqual({ kind: "dir", size: 0 });
        expect(await s.stat("")).toEqual({ kind: "dir", size: 0 });
        expect(await s.stat(".")).toEqual({ kind: "dir", size: 0 });
        expect(await s.stat("missing")).toBeNull();
        expect(await s.stat("missing/f")).toBeNull();
      });

      it("stat: sees unsynced writes through an open handle", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("abc"));
        expect(await s.stat("f")).toEqual({ kind: "file", size: 3 });
        await f.close();
      });
    });

    describe("paths", () => {
      for (const [path, why] of INVALID_PATHS) {
        it(`paths: ${JSON.stringify(path)} (${why}) is INVALID_PATH on every method`, async () => {
          await createFile("x", "x");
          await s.mkdir("a");
          await expectCode(() => s.open(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.open(path, { create: true }), ErrorCode.INVALID_PATH);
          await expectCode(() => s.stat(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.list(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.mkdir(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.remove(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.rename(path, "y"), ErrorCode.INVALID_PATH);
          await expectCode(() => s.rename("x", path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.syncDir(path), ErrorCode.INVALID_PATH);
          await expectCode(() => s.lock(path), ErrorCode.INVALID_PATH);
          expect(await s.list("")).toEqual(["a", "x"]);
          expect(await s.list("a")).toEqual([]);
        });
      }

      it("paths: the root name is INVALID_PATH where a file or new directory is meant", async () => {
        for (const root of ["", "."]) {
          await expectCode(() => s.open(root), ErrorCode.INVALID_PATH);
          await expectCode(() => s.open(root, { create: true }), ErrorCode.INVALID_PATH);
          await expectCode(() => s.mkdir(root), ErrorCode.INVALID_PATH);
          await expectCode(() => s.remove(root), ErrorCode.INVALID_PATH);
          await expectCode(() => s.rename(root, "x"), ErrorCode.INVALID_PATH);
          await expectCode(() => s.lock(root), ErrorCode.INVALID_PATH);
        }
      });

      it("paths: a trailing slash names the same entry", async () => {
        await s.mkdir("d/");
        await createFile("d/f", "x");
        expect(await s.list("d/")).toEqual(["f"]);
        expect(await s.stat("d/")).toEqual({ kind: "dir", size: 0 });
      });

      it("paths: a non-string path is a TypeError", async () => {
        await expectRejects(() => s.open(42 as unknown as string), TypeError);
        await expectRejects(() => s.list(undefined as unknown as string), TypeError);
      });
    });

    describe("lock", () => {
      it("lock: a second lock on the same path is LOCKED", async () => {
        const lock = await s.lock("LOCK");
        expect(lock.path).toBe("LOCK");
        await expectCode(() => s.lock("LOCK"), ErrorCode.LOCKED);
        await lock.release();
      });

      it("lock: after release the lock can be taken again", async () => {
        const first = await s.lock("LOCK");
        await first.release();
        await first.release(); // idempotent
        const second = await s.lock("LOCK");
        await expectCode(() => s.lock("LOCK"), ErrorCode.LOCKED);
        await second.release();
      });

      it("lock: different paths are independent", async () => {
        await s.mkdir("d");
        const a = await s.lock("a.lock");
        const b = await s.lock("d/a.lock");
        await a.release();
        await b.release();
      });

      it("lock: two lock calls racing: exactly one wins", async () => {
        const results = await Promise.allSettled([s.lock("LOCK"), s.lock("LOCK")]);
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter(
          (r) => r.status === "rejected" && r.reason instanceof PagelogError && r.reason.code === ErrorCode.LOCKED,
        );
        expect([won.length, lost.length]).toEqual([1, 1]);
        for (const r of won) await (r as PromiseFulfilledResult<StorageLock>).value.release();
      });

      it("lock: in a missing directory is NOT_FOUND", async () => {
        await expectCode(() => s.lock("missing/LOCK"), ErrorCode.NOT_FOUND);
      });
    });

    describe("close", () => {
      it("close: every storage method is CLOSED afterwards", async () => {
        await createFile("f", "x");
        await s.mkdir("d");
        await s.close();
        await s.close(); // idempotent
        await expectCode(() => s.open("f"), ErrorCode.CLOSED);
        await expectCode(() => s.open("g", { create: true }), ErrorCode.CLOSED);
        await expectCode(() => s.stat("f"), ErrorCode.CLOSED);
        await expectCode(() => s.list(""), ErrorCode.CLOSED);
        await expectCode(() => s.mkdir("e"), ErrorCode.CLOSED);
        await expectCode(() => s.remove("f"), ErrorCode.CLOSED);
        await expectCode(() => s.rename("f", "g"), ErrorCode.CLOSED);
        await expectCode(() => s.syncDir(""), ErrorCode.CLOSED);
        await expectCode(() => s.lock("LOCK"), ErrorCode.CLOSED);
      });

      it("close: handles of a closed storage are CLOSED, and closing them again resolves", async () => {
        const f = await s.open("f", { create: true });
        await f.write(0, bytes("x"));
        await s.close();
        await expectCode(() => f.read(0, 1), ErrorCode.CLOSED);
        await expectCode(() => f.write(0, bytes("y")), ErrorCode.CLOSED);
        await expectCode(() => f.size(), ErrorCode.CLOSED);
        await expectCode(() => f.truncate(0), ErrorCode.CLOSED);
        await expectCode(() => f.sync(), ErrorCode.CLOSED);
        await f.close();
      });

      it("close: a closed handle is CLOSED; close is idempotent; other handles keep working", async () => {
        const f = await s.open("f", { create: true });
        const g = await s.open("f");
        await f.close();
        await f.close();
        await expectCode(() => f.read(0, 1), ErrorCode.CLOSED);
        await expectCode(() => f.write(0, bytes("y")), ErrorCode.CLOSED);
        await expectCode(() => f.write(0, new Uint8Array(0)), ErrorCode.CLOSED);
        await expectCode(() => f.size(), ErrorCode.CLOSED);
        await expectCode(() => f.truncate(0), ErrorCode.CLOSED);
        await expectCode(() => f.sync(), ErrorCode.CLOSED);
        await g.write(0, bytes("still"));
        expect(await readAll(g)).toBe("still");
        await g.close();
      });

      it("close: a lock released by close can be released again", async () => {
        const lock = await s.lock("LOCK");
        await s.close();
        await lock.release();
      });
    });
  });
}
