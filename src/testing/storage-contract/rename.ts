/** The Storage contract, rename: within a directory only, replacing a file, and what open handles see. */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { bytes, contentOf, createFile, readAll, type Section } from "./suite.js";

export function renameSection({ describe, test }: Section): void {
  describe("rename", () => {
    test("rename: moves a file within its directory", async (s) => {
      await createFile(s, "a", "data");
      await s.rename("a", "b");
      assertEqual(await s.stat("a"), null, 'stat("a")');
      assertEqual(await contentOf(s, "b"), "data", 'contentOf(s, "b")');
      assertEqual(await s.list(""), ["b"], 'list("")');
    });

    test("rename: replaces an existing file", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/x.tmp", "new");
      await createFile(s, "d/x", "old");
      await s.rename("d/x.tmp", "d/x");
      assertEqual(await contentOf(s, "d/x"), "new", 'contentOf(s, "d/x")');
      assertEqual(await s.list("d"), ["x"], 'list("d")');
    });

    test("rename: a handle open on the replaced target still reads the old file", async (s) => {
      await createFile(s, "new", "new");
      await createFile(s, "old", "old");
      const h = await s.open("old");
      await s.rename("new", "old");
      assertEqual(await readAll(h), "old", "readAll(h)");
      await h.close();
      assertEqual(await contentOf(s, "old"), "new", 'contentOf(s, "old")');
    });

    test("rename: a handle open on the source follows the file", async (s) => {
      const f = await s.open("a", { create: true });
      await s.rename("a", "b");
      await f.write(0, bytes("via handle"));
      await f.close();
      assertEqual(await contentOf(s, "b"), "via handle", 'contentOf(s, "b")');
    });

    test("rename: a directory with its contents", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/f", "inside");
      await s.rename("d", "e");
      assertEqual(await s.stat("d"), null, 'stat("d")');
      assertEqual(await contentOf(s, "e/f"), "inside", 'contentOf(s, "e/f")');
    });

    test("rename: across directories is INVALID_PATH and changes nothing", async (s) => {
      await s.mkdir("d");
      await createFile(s, "a", "x");
      await assertRejects(() => s.rename("a", "d/a"), ErrorCode.INVALID_PATH, 'rename("a", "d/a")');
      await assertRejects(() => s.rename("d/a", "a"), ErrorCode.INVALID_PATH, 'rename("d/a", "a")');
      assertEqual(await s.list(""), ["a", "d"], 'list("")');
      assertEqual(await s.list("d"), [], 'list("d")');
    });

    test("rename: a directory onto a file is IO and changes nothing", async (s) => {
      await s.mkdir("d");
      await createFile(s, "a", "kept");
      await assertRejects(() => s.rename("d", "a"), ErrorCode.IO, 'rename("d", "a")');
      assertEqual(await s.list(""), ["a", "d"], 'list("")');
      assertEqual(await contentOf(s, "a"), "kept", 'contentOf(s, "a")');
    });

    test("rename: a missing source is NOT_FOUND", async (s) => {
      await createFile(s, "b", "kept");
      await assertRejects(() => s.rename("missing", "b"), ErrorCode.NOT_FOUND, 'rename("missing", "b")');
      assertEqual(await contentOf(s, "b"), "kept", 'contentOf(s, "b")');
    });
  });
}
