/** The Storage contract, close: the storage and its handles after `close()`, and idempotent closes. */
import { ErrorCode } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { bytes, createFile, readAll, type Section } from "./suite.js";

export function closeSection({ describe, test }: Section): void {
  describe("close", () => {
    test("close: every storage method is CLOSED afterwards", async (s) => {
      await createFile(s, "f", "x");
      await s.mkdir("d");
      await s.close();
      await s.close(); // idempotent
      await assertRejects(() => s.open("f"), ErrorCode.CLOSED, 'open("f")');
      await assertRejects(() => s.open("g", { create: true }), ErrorCode.CLOSED, 'open("g", { create: true })');
      await assertRejects(() => s.stat("f"), ErrorCode.CLOSED, 'stat("f")');
      await assertRejects(() => s.list(""), ErrorCode.CLOSED, 'list("")');
      await assertRejects(() => s.mkdir("e"), ErrorCode.CLOSED, 'mkdir("e")');
      await assertRejects(() => s.remove("f"), ErrorCode.CLOSED, 'remove("f")');
      await assertRejects(() => s.rename("f", "g"), ErrorCode.CLOSED, 'rename("f", "g")');
      await assertRejects(() => s.syncDir(""), ErrorCode.CLOSED, 'syncDir("")');
      await assertRejects(() => s.lock("LOCK"), ErrorCode.CLOSED, 'lock("LOCK")');
    });

    test("close: handles of a closed storage are CLOSED, and closing them again resolves", async (s) => {
      const f = await s.open("f", { create: true });
      await f.write(0, bytes("x"));
      await s.close();
      await assertRejects(() => f.read(0, 1), ErrorCode.CLOSED, "f.read(0, 1)");
      await assertRejects(() => f.write(0, bytes("y")), ErrorCode.CLOSED, 'f.write(0, bytes("y"))');
      await assertRejects(() => f.size(), ErrorCode.CLOSED, "f.size()");
      await assertRejects(() => f.truncate(0), ErrorCode.CLOSED, "f.truncate(0)");
      await assertRejects(() => f.sync(), ErrorCode.CLOSED, "f.sync()");
      await f.close();
    });

    test("close: a closed handle is CLOSED; close is idempotent; other handles keep working", async (s) => {
      const f = await s.open("f", { create: true });
      const g = await s.open("f");
      await f.close();
      await f.close();
      await assertRejects(() => f.read(0, 1), ErrorCode.CLOSED, "f.read(0, 1)");
      await assertRejects(() => f.write(0, bytes("y")), ErrorCode.CLOSED, 'f.write(0, bytes("y"))');
      await assertRejects(() => f.write(0, new Uint8Array(0)), ErrorCode.CLOSED, "f.write(0, new Uint8Array(0))");
      await assertRejects(() => f.size(), ErrorCode.CLOSED, "f.size()");
      await assertRejects(() => f.truncate(0), ErrorCode.CLOSED, "f.truncate(0)");
      await assertRejects(() => f.sync(), ErrorCode.CLOSED, "f.sync()");
      await g.write(0, bytes("still"));
      assertEqual(await readAll(g), "still", "readAll(g)");
      await g.close();
    });

    test("close: a lock released by close can be released again", async (s) => {
      const lock = await s.lock("LOCK");
      await s.close();
      await lock.release();
    });
  });
}
