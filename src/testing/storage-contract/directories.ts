/** The Storage contract, list, mkdir, remove and stat: the directory tree. */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { bytes, contentOf, createFile, readAll, type Section } from "./suite.js";

export function directoriesSection(section: Section): void {
  listSection(section);
  mkdirSection(section);
  removeSection(section);
  statSection(section);
}

function listSection({ describe, test }: Section): void {
  describe("list", () => {
    test("list: names sorted by UTF-16 code unit, directories included", async (s) => {
      // No two names differ only in case: case-insensitive file systems (macOS) would merge them.
      for (const n of ["c", "a", "B", "_x", "10", "9", "~z"]) await createFile(s, n, "");
      await s.mkdir("dir");
      assertEqual(await s.list(""), ["10", "9", "B", "_x", "a", "c", "dir", "~z"], 'list("")');
      assertEqual(await s.list("."), await s.list(""), 'list(".")');
    });

    test("list: a subdirectory gives names, not paths", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/2", "");
      await createFile(s, "d/1", "");
      await s.mkdir("d/sub");
      assertEqual(await s.list("d"), ["1", "2", "sub"], 'list("d")');
      assertEqual(await s.list("d/sub"), [], 'list("d/sub")');
    });

    test("list: an empty root is empty", async (s) => {
      assertEqual(await s.list(""), [], 'list("")');
    });

    test("list: a missing directory is NOT_FOUND", async (s) => {
      await assertRejects(() => s.list("missing"), ErrorCode.NOT_FOUND, 'list("missing")');
    });
  });
}

function mkdirSection({ describe, test }: Section): void {
  describe("mkdir", () => {
    test("mkdir: creates a directory, and again is a no-op", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/f", "x");
      await s.mkdir("d");
      assertEqual(await s.stat("d"), { kind: "dir", size: 0 }, 'stat("d")');
      assertEqual(await s.list("d"), ["f"], 'list("d")');
    });

    test("mkdir: nested one level at a time", async (s) => {
      await s.mkdir("a");
      await s.mkdir("a/b");
      assertEqual(await s.list("a"), ["b"], 'list("a")');
    });

    test("mkdir: under a missing parent is NOT_FOUND", async (s) => {
      await assertRejects(() => s.mkdir("missing/d"), ErrorCode.NOT_FOUND, 'mkdir("missing/d")');
      assertEqual(await s.stat("missing"), null, 'stat("missing")');
    });

    test("mkdir: where a file is is IO, and the file is kept", async (s) => {
      await createFile(s, "f", "keep");
      await assertRejects(() => s.mkdir("f"), ErrorCode.IO, 'mkdir("f")');
      assertEqual(await contentOf(s, "f"), "keep", 'contentOf(s, "f")');
    });
  });
}

function removeSection({ describe, test }: Section): void {
  describe("remove", () => {
    test("remove: a file", async (s) => {
      await createFile(s, "f", "x");
      await s.remove("f");
      assertEqual(await s.stat("f"), null, 'stat("f")');
      assertEqual(await s.list(""), [], 'list("")');
      await assertRejects(() => s.open("f"), ErrorCode.NOT_FOUND, 'open("f")');
    });

    test("remove: an empty directory", async (s) => {
      await s.mkdir("d");
      await s.remove("d");
      assertEqual(await s.stat("d"), null, 'stat("d")');
    });

    test("remove: a non-empty directory is IO and removes nothing", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/f", "x");
      await assertRejects(() => s.remove("d"), ErrorCode.IO, 'remove("d")');
      assertEqual(await s.list("d"), ["f"], 'list("d")');
    });

    test("remove: a missing entry is NOT_FOUND", async (s) => {
      await assertRejects(() => s.remove("missing"), ErrorCode.NOT_FOUND, 'remove("missing")');
      await assertRejects(() => s.remove("missing/f"), ErrorCode.NOT_FOUND, 'remove("missing/f")');
    });

    test("remove: an open handle keeps working on the removed file", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("before"));
      await s.remove("f");
      await f.write(6, bytes(" after"));
      assertEqual(await readAll(f), "before after", "readAll(f)");
      await f.truncate(3);
      assertEqual(await f.size(), 3, "f.size()");
      await f.sync();
      assertEqual(await s.stat("f"), null, 'stat("f")');
      // A new file under the same name is a different file.
      const g = await s.open("f", { create: true });
      assertEqual(await g.size(), 0, "g.size()");
      await g.write(0, bytes("new"));
      assertEqual(await readAll(f), "bef", "readAll(f)");
      await f.close();
      await g.close();
      assertEqual(await contentOf(s, "f"), "new", 'contentOf(s, "f")');
    });
  });
}

function statSection({ describe, test }: Section): void {
  describe("stat", () => {
    test("stat: a file's cached size, a directory, the root, nothing", async (s) => {
      await createFile(s, "f", "12345");
      await s.mkdir("d");
      assertEqual(await s.stat("f"), { kind: "file", size: 5 }, 'stat("f")');
      assertEqual(await s.stat("d"), { kind: "dir", size: 0 }, 'stat("d")');
      assertEqual(await s.stat(""), { kind: "dir", size: 0 }, 'stat("")');
      assertEqual(await s.stat("."), { kind: "dir", size: 0 }, 'stat(".")');
      assertEqual(await s.stat("missing"), null, 'stat("missing")');
      assertEqual(await s.stat("missing/f"), null, 'stat("missing/f")');
    });

    test("stat: sees unsynced writes through an open handle", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("abc"));
      assertEqual(await s.stat("f"), { kind: "file", size: 3 }, 'stat("f")');
      await f.close();
    });
  });
}
