/**
 * The Storage contract, sync and syncDir: what a test with the power on can check of them (that
 * they resolve, and where they reject).
 */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { bytes, createFile, readAll, type Section } from "./suite.js";

export function durabilitySection({ describe, test }: Section): void {
  describe("sync", () => {
    test("sync resolves, after writes, after truncate and on an empty file", async (s) => {
      const f = await s.open("f", { create: true });
      await f.sync();
      await f.write(0, bytes("abc"));
      await f.sync();
      await f.truncate(1);
      await f.sync();
      assertEqual(await readAll(f), "a", "readAll(f)");
      await f.close();
    });

    test("syncDir: root (as '' and '.') and a subdirectory resolve", async (s) => {
      await s.mkdir("d");
      await createFile(s, "d/f", "x");
      await s.syncDir("");
      await s.syncDir(".");
      await s.syncDir("d");
    });

    test("syncDir: a missing directory is NOT_FOUND", async (s) => {
      await assertRejects(() => s.syncDir("missing"), ErrorCode.NOT_FOUND, 'syncDir("missing")');
    });
  });
}
