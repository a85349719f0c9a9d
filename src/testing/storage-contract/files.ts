/** The Storage contract, open and truncate: creating, opening (also read-only) and resizing files. */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { bytes, contentOf, createFile, readAll, text, type Section } from "./suite.js";

export function filesSection(section: Section): void {
  openSection(section);
  readOnlySection(section);
  truncateSection(section);
}

function openSection({ describe, test }: Section): void {
  describe("open", () => {
    test("open: a missing file without create is NOT_FOUND", async (s) => {
      await assertRejects(() => s.open("missing"), ErrorCode.NOT_FOUND, 'open("missing")');
      assertEqual(await s.stat("missing"), null, 'stat("missing")');
    });

    test("open: create in a missing directory is NOT_FOUND", async (s) => {
      const what = 'open("nodir/f", { create: true })';
      await assertRejects(() => s.open("nodir/f", { create: true }), ErrorCode.NOT_FOUND, what);
    });

    test("open: create makes an empty file that stat and list see", async (s) => {
      const f = await s.open("f", { create: true });
      assertEqual(f.path, "f", "f.path");
      assertEqual(await f.size(), 0, "f.size()");
      assertEqual(await s.stat("f"), { kind: "file", size: 0 }, 'stat("f")');
      assertEqual(await s.list(""), ["f"], 'list("")');
      await f.close();
    });

    test("open: create on an existing file keeps its bytes", async (s) => {
      await createFile(s, "f", "hello");
      const f = await s.open("f", { create: true });
      assertEqual(await readAll(f), "hello", "readAll(f)");
      await f.close();
    });

    test("open: a file in a subdirectory reports its normalized path", async (s) => {
      await s.mkdir("d");
      const f = await s.open("d/f", { create: true });
      assertEqual(f.path, "d/f", "f.path");
      await f.close();
      assertEqual(await s.list("d"), ["f"], 'list("d")');
    });

    test("open: a directory is IO, with or without create", async (s) => {
      await s.mkdir("d");
      await assertRejects(() => s.open("d"), ErrorCode.IO, 'open("d")');
      await assertRejects(() => s.open("d", { create: true }), ErrorCode.IO, 'open("d", { create: true })');
    });

    test("open: bytes written survive closing and reopening the handle", async (s) => {
      await createFile(s, "f", "kept");
      assertEqual(await contentOf(s, "f"), "kept", 'contentOf(s, "f")');
    });
  });
}

function readOnlySection({ describe, test }: Section): void {
  describe("read-only open", () => {
    test("open readOnly: reads work; write and truncate are IO and change nothing", async (s) => {
      await createFile(s, "ro", "kept");
      const f = await s.open("ro", { readOnly: true });
      assertEqual(text(await f.read(0, 10)), "kept", "text(f.read(0, 10))");
      await assertRejects(() => f.write(0, bytes("x")), ErrorCode.IO, 'f.write(0, bytes("x"))');
      await assertRejects(() => f.truncate(0), ErrorCode.IO, "f.truncate(0)");
      await f.close();
      assertEqual(await contentOf(s, "ro"), "kept", 'contentOf(s, "ro")');
    });

    test("open readOnly: a missing file is NOT_FOUND; readOnly with create is a TypeError", async (s) => {
      const missing = 'open("missing", { readOnly: true })';
      await assertRejects(() => s.open("missing", { readOnly: true }), ErrorCode.NOT_FOUND, missing);
      const both = 'open("x", { readOnly: true, create: true })';
      await assertRejects(() => s.open("x", { readOnly: true, create: true }), TypeError, both);
    });
  });
}

function truncateSection({ describe, test }: Section): void {
  describe("truncate", () => {
    test("truncate: shrinking cuts the file", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("abcdef"));
      await f.truncate(3);
      assertEqual(await f.size(), 3, "f.size()");
      assertEqual(text(await f.read(0, 10)), "abc", "text(f.read(0, 10))");
      assertEqual(await s.stat("f"), { kind: "file", size: 3 }, 'stat("f")');
      await f.close();
    });

    test("truncate: growing zero-extends", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("ab"));
      await f.truncate(5);
      assertEqual(await f.size(), 5, "f.size()");
      assertEqual(text(await f.read(0, 10)), "ab\0\0\0", "text(f.read(0, 10))");
      await f.close();
    });

    test("truncate: a write after shrinking leaves zeros in the gap, not the old bytes", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("abcdefgh"));
      await f.truncate(2);
      await f.write(6, bytes("XY"));
      assertEqual(text(await f.read(0, 8)), "ab\0\0\0\0XY", "text(f.read(0, 8))");
      await f.close();
    });

    test("truncate: shrinking then growing again reads zeros", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("abcdefgh"));
      await f.truncate(0);
      await f.truncate(4);
      assertEqual(text(await f.read(0, 8)), "\0\0\0\0", "text(f.read(0, 8))");
      await f.close();
    });

    test("truncate: to the current size changes nothing", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("abc"));
      await f.truncate(3);
      assertEqual(await readAll(f), "abc", "readAll(f)");
      await f.close();
    });
  });
}
