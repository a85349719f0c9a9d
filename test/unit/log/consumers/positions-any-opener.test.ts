/**
 * Consumer positions from any opener of a directory (issue 33, item 3): a consumer in a process
 * that opened the directory read-only commits durably and reads its own positions; what other
 * openers commit is read by `consumer.refresh()`; two openers committing the same consumer are
 * kept apart by its lock (`PAGELOG_LOCKED` naming the holder), so no commit is lost to another's;
 * a read-only mount is `PAGELOG_READ_ONLY`; the directory-wide file of earlier versions still reads.
 * Two LogDirs on one SimStorage disk stand for two processes (the storage's lock sees both).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { CONSUMER_OFFSET_CHECKPOINT, consumerFile } from "../../../../src/log/checkpoints/consumer-files.js";
import { keepNothing, SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { expectCode, readText, writeFile } from "../helpers.js";

/** `inner` as a read-only mount shows it: reads work, every change fails with the OS's EROFS. */
function readOnlyMount(inner: Storage): Storage {
  const refuse = (op: string, path: string) =>
    Promise.reject(
      new PagelogError(`${op} ${path} failed: EROFS`, ErrorCode.IO, {
        path,
        cause: Object.assign(new Error("EROFS"), { code: "EROFS" }),
      }),
    );
  return {
    open: (path, options) => (options?.readOnly === true ? inner.open(path, options) : refuse("open", path)),
    stat: (path) => inner.stat(path),
    list: (dir) => inner.list(dir),
    mkdir: (dir) => refuse("mkdir", dir),
    remove: (path) => refuse("remove", path),
    rename: (from) => refuse("rename", from),
    syncDir: (dir) => inner.syncDir(dir),
    lock: (path) => refuse("lock", path),
    close: () => inner.close(),
  };
}

describe("consumer positions from any opener", () => {
  it("a read-only opener commits durably, a power cut keeps it, and the writer reads it after refresh()", async () => {
    const next = rng(testSeed());
    let sim = new SimStorage({ seed: 21 });
    const writer = await LogDir.open(sim);
    const seenByWriter = writer.consumer("sidecar"); // made before the commit: refresh() brings it up to date
    const reader = await LogDir.open(sim, { readOnly: true });
    const sidecar = reader.consumer("sidecar");
    const offsets = Array.from({ length: 1 + next(5) }, () => next(1_000_000));
    for (const [p, offset] of offsets.entries()) await sidecar.commit(`orders-${p}`, offset);
    for (const [p, offset] of offsets.entries()) expect(sidecar.committed(`orders-${p}`)).toBe(offset);
    expect(seenByWriter.committed("orders-0")).toBeUndefined();
    await seenByWriter.refresh();
    for (const [p, offset] of offsets.entries()) expect(seenByWriter.committed(`orders-${p}`)).toBe(offset);
    sim = sim.crash(keepNothing); // only what was fsynced survives
    const again = await LogDir.open(sim, { readOnly: true });
    for (const [p, offset] of offsets.entries())
      expect(again.consumer("sidecar").committed(`orders-${p}`)).toBe(offset);
    await again.close();
  });

  it("two openers commit the same consumer: the second is PAGELOG_LOCKED naming the holder, and no commit is lost", async () => {
    const next = rng(testSeed());
    const sim = new SimStorage({ seed: 22 });
    const first = await LogDir.open(sim, { readOnly: true });
    const second = await LogDir.open(sim, { readOnly: true }); // opened before any commit: its view is empty
    const a = next(1000);
    await first.consumer("billing").commit("orders-0", a);
    const err = await expectCode(() => second.consumer("billing").commit("orders-1", 1), ErrorCode.LOCKED);
    expect(err.message).toContain("consumers/billing/lock");
    expect(second.consumer("billing").committed("orders-1")).toBeUndefined();
    await second.consumer("other").commit("orders-0", 3); // other consumers are not held up
    await first.close(); // gives billing's lock up
    // The second opener takes the lock and reads the file again under it: orders-0 stays.
    const b = next(1000);
    await second.consumer("billing").commit("orders-1", b);
    expect(second.consumer("billing").committed("orders-0")).toBe(a);
    expect(await readText(sim, consumerFile("billing"))).toBe(`0\n2\nbilling orders 0 ${a}\nbilling orders 1 ${b}\n`);
    await second.close();
  });

  it("two LogDirs of one process on a real directory: the second is PAGELOG_LOCKED", async () => {
    const root = mkdtempSync(join(tmpdir(), "pagelog-positions-lock-"));
    try {
      const writer = await LogDir.open(root);
      const reader = await LogDir.open(root, { readOnly: true });
      await reader.consumer("billing").commit("orders-0", 5);
      await expectCode(() => writer.consumer("billing").commit("orders-0", 6), ErrorCode.LOCKED);
      await reader.close();
      await writer.consumer("billing").commit("orders-0", 6);
      expect(writer.consumer("billing").committed("orders-0")).toBe(6);
      await writer.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("a read-only mount: reads work, a commit is PAGELOG_READ_ONLY naming where to keep positions", async () => {
    const sim = new SimStorage({ seed: 23 });
    const writer = await LogDir.open(sim);
    await writer.consumer("billing").commit("orders-0", 4);
    await writer.close();
    const dir = await LogDir.open(readOnlyMount(sim), { readOnly: true });
    expect(dir.consumer("billing").committed("orders-0")).toBe(4);
    const err = await expectCode(() => dir.consumer("billing").commit("orders-0", 5), ErrorCode.READ_ONLY);
    expect(err.message).toMatch(/writable log directory/);
    expect(dir.consumer("billing").committed("orders-0")).toBe(4);
    // Not a failure of the positions: a later commit tries again (the mount may be writable by then).
    await expectCode(() => dir.consumer("billing").commit("orders-0", 6), ErrorCode.READ_ONLY);
    await dir.close();
  });

  it("the directory-wide consumer-offset-checkpoint of earlier versions: read, and carried over by the first commit", async () => {
    const sim = new SimStorage({ seed: 24 });
    const old = "0\n3\naudit orders 0 7\nbilling orders 0 40\nbilling orders 1 2\n";
    await writeFile(sim, CONSUMER_OFFSET_CHECKPOINT, 0, new TextEncoder().encode(old), { create: true, sync: true });
    await sim.syncDir("");
    const dir = await LogDir.open(sim);
    expect(dir.consumer("billing").committed("orders-1")).toBe(2);
    await dir.consumer("billing").commit("orders-0", 41);
    expect(dir.consumer("billing").committed("orders-1")).toBe(2);
    await dir.close();
    const again = await LogDir.open(sim, { readOnly: true });
    expect(again.consumer("billing").committed("orders-0")).toBe(41); // its own file now
    expect(again.consumer("billing").committed("orders-1")).toBe(2);
    expect(again.consumer("audit").committed("orders-0")).toBe(7); // still the old file's
    await again.close();
    expect(await readText(sim, CONSUMER_OFFSET_CHECKPOINT)).toBe(old); // never rewritten
  });

  it("a damaged file of one consumer: dir.consumer() of that one is PAGELOG_CORRUPT naming it, the others work", async () => {
    const sim = new SimStorage({ seed: 25 });
    const dir = await LogDir.open(sim);
    await dir.consumer("billing").commit("orders-0", 1);
    await dir.consumer("audit").commit("orders-0", 2);
    await dir.close();
    for (const bytes of ["0\n1\naudit orders 0 9\n", "0\n2\nbilling orders 0 1\n", "garbage"]) {
      await writeFile(sim, consumerFile("billing"), 0, new TextEncoder().encode(bytes), { truncate: 0, sync: true });
      const again = await LogDir.open(sim, { readOnly: true });
      const err = await expectCode(() => again.consumer("billing"), ErrorCode.CORRUPT);
      expect(err.path).toBe(consumerFile("billing"));
      expect(again.consumer("audit").committed("orders-0")).toBe(2);
      await again.close();
    }
  });
});
