/** The Storage contract, lock: one holder per path, release, and a race between two callers. */
import { ErrorCode, PagelogError } from "../../errors.js";
import { assertEqual, assertRejects } from "./assert.js";
import { type Section } from "./suite.js";

export function locksSection({ describe, test }: Section): void {
  describe("lock", () => {
    test("lock: a second lock on the same path is LOCKED", async (s) => {
      const lock = await s.lock("LOCK");
      assertEqual(lock.path, "LOCK", "lock.path");
      await assertRejects(() => s.lock("LOCK"), ErrorCode.LOCKED, 'lock("LOCK")');
      await lock.release();
    });

    test("lock: after release the lock can be taken again", async (s) => {
      const first = await s.lock("LOCK");
      await first.release();
      await first.release(); // idempotent
      const second = await s.lock("LOCK");
      await assertRejects(() => s.lock("LOCK"), ErrorCode.LOCKED, 'lock("LOCK")');
      await second.release();
    });

    test("lock: different paths are independent", async (s) => {
      await s.mkdir("d");
      const a = await s.lock("a.lock");
      const b = await s.lock("d/a.lock");
      await a.release();
      await b.release();
    });

    test("lock: two lock calls racing: exactly one wins", async (s) => {
      const results = await Promise.allSettled([s.lock("LOCK"), s.lock("LOCK")]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter(
        (r) => r.status === "rejected" && r.reason instanceof PagelogError && r.reason.code === ErrorCode.LOCKED,
      );
      assertEqual([won.length, lost.length], [1, 1], "[lock calls won, lock calls LOCKED]");
      for (const r of won) await r.value.release();
    });

    test("lock: in a missing directory is NOT_FOUND", async (s) => {
      await assertRejects(() => s.lock("missing/LOCK"), ErrorCode.NOT_FOUND, 'lock("missing/LOCK")');
    });
  });
}
