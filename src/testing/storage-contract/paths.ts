/**
 * The Storage contract, paths: every invalid form is INVALID_PATH on every method, the root only
 * where a directory is meant.
 */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertFails, assertRejects } from "./assert.js";
import { createFile, type Section } from "./suite.js";

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

export function pathsSection({ describe, test }: Section): void {
  describe("paths", () => {
    for (const [path, why] of INVALID_PATHS) {
      const p = JSON.stringify(path);
      test(`paths: ${p} (${why}) is INVALID_PATH on every method`, async (s) => {
        await createFile(s, "x", "x");
        await s.mkdir("a");
        await assertRejects(() => s.open(path), ErrorCode.INVALID_PATH, `open(${p})`);
        const create = `open(${p}, { create: true })`;
        await assertRejects(() => s.open(path, { create: true }), ErrorCode.INVALID_PATH, create);
        await assertRejects(() => s.stat(path), ErrorCode.INVALID_PATH, `stat(${p})`);
        await assertRejects(() => s.list(path), ErrorCode.INVALID_PATH, `list(${p})`);
        await assertRejects(() => s.mkdir(path), ErrorCode.INVALID_PATH, `mkdir(${p})`);
        await assertRejects(() => s.remove(path), ErrorCode.INVALID_PATH, `remove(${p})`);
        await assertRejects(() => s.rename(path, "y"), ErrorCode.INVALID_PATH, `rename(${p}, "y")`);
        await assertRejects(() => s.rename("x", path), ErrorCode.INVALID_PATH, `rename("x", ${p})`);
        await assertRejects(() => s.syncDir(path), ErrorCode.INVALID_PATH, `syncDir(${p})`);
        await assertRejects(() => s.lock(path), ErrorCode.INVALID_PATH, `lock(${p})`);
        assertEqual(await s.list(""), ["a", "x"], 'list("")');
        assertEqual(await s.list("a"), [], 'list("a")');
      });
    }

    test("paths: the root name is INVALID_PATH where a file or new directory is meant", async (s) => {
      for (const root of ["", "."]) {
        const p = JSON.stringify(root);
        await assertRejects(() => s.open(root), ErrorCode.INVALID_PATH, `open(${p})`);
        const create = `open(${p}, { create: true })`;
        await assertRejects(() => s.open(root, { create: true }), ErrorCode.INVALID_PATH, create);
        await assertRejects(() => s.mkdir(root), ErrorCode.INVALID_PATH, `mkdir(${p})`);
        await assertRejects(() => s.remove(root), ErrorCode.INVALID_PATH, `remove(${p})`);
        await assertRejects(() => s.rename(root, "x"), ErrorCode.INVALID_PATH, `rename(${p}, "x")`);
        await assertRejects(() => s.lock(root), ErrorCode.INVALID_PATH, `lock(${p})`);
      }
    });

    test("paths: a trailing slash names the same entry", async (s) => {
      await s.mkdir("d/");
      await createFile(s, "d/f", "x");
      assertEqual(await s.list("d/"), ["f"], 'list("d/")');
      assertEqual(await s.stat("d/"), { kind: "dir", size: 0 }, 'stat("d/")');
    });

    test("paths: a non-string path is a TypeError", async (s) => {
      await assertFails(() => s.open(42 as unknown as string), TypeError, "open(42)");
      await assertFails(() => s.list(undefined as unknown as string), TypeError, "list(undefined)");
    });
  });
}
