/**
 * Hostile things at the names pagelog owns in a log directory's root: a `.lock` that is a
 * symbolic link (dangling or not), a directory, a FIFO or a huge file; a root path with NUL; and
 * `*.tmp` entries pagelog did not write, which an open must leave alone.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import { LOCK_FILE, LogDir, RECOVERY_POINT_CHECKPOINT } from "../../../src/log/log-dir.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import { expectCode, writeFile } from "../log/helpers.js";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-lock-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("the lock file", () => {
  it("a dangling .lock symlink with no holder does not lock the directory for good: it is replaced", async () => {
    await fs.symlink(nodePath.join(root, "gone", "nowhere"), nodePath.join(root, LOCK_FILE));
    const dir = await LogDir.open(root);
    expect((await fs.lstat(nodePath.join(root, LOCK_FILE))).isFile()).toBe(true);
    await dir.close();
    await expect(fs.lstat(nodePath.join(root, LOCK_FILE))).rejects.toThrow(/ENOENT/);
  });

  it("a .lock symlink to a file naming a live process is no lock either; the link goes, its target stays", async () => {
    const target = nodePath.join(root, "elsewhere");
    await fs.writeFile(target, "1\n"); // pid 1 is alive
    await fs.symlink(target, nodePath.join(root, LOCK_FILE));
    const dir = await LogDir.open(root);
    await dir.close();
    expect(await fs.readFile(target, "utf8")).toBe("1\n");
  });

  it("a real lock file is still a lock; a directory or FIFO at .lock is a clear PAGELOG_IO, never a hang", async () => {
    const first = await LogDir.open(root);
    const other = await FsStorage.open(root);
    await expectCode(() => other.lock(LOCK_FILE), ErrorCode.LOCKED);
    await first.close();
    await other.close();

    await fs.mkdir(nodePath.join(root, LOCK_FILE));
    const err = await expectCode(() => LogDir.open(root), ErrorCode.IO);
    expect(err.message).toMatch(/directory, not a lock file/);
    await fs.rmdir(nodePath.join(root, LOCK_FILE));

    execFileSync("mkfifo", [nodePath.join(root, LOCK_FILE)]);
    const fifo = await expectCode(() => LogDir.open(root), ErrorCode.IO);
    expect(fifo.message).toMatch(/not a regular file/);
  });

  it("a huge stale .lock file is read only as far as a lock file goes, and taken over", async () => {
    const lock = nodePath.join(root, LOCK_FILE);
    await fs.writeFile(lock, "");
    await fs.truncate(lock, 3 * 2 ** 30); // sparse 3 GiB: readFile would refuse it (> 2 GiB)
    const dir = await LogDir.open(root);
    expect((await fs.stat(lock)).size).toBeLessThan(100);
    await dir.close();
  });
});

describe("paths", () => {
  it("a root path containing NUL is PAGELOG_INVALID_PATH, not Node's wording under PAGELOG_IO", async () => {
    const err = await expectCode(() => LogDir.open(`${root}/a\0b`), ErrorCode.INVALID_PATH);
    expect(err.message).toMatch(/NUL/);
    await expectCode(() => FsStorage.open("a\0b"), ErrorCode.INVALID_PATH);
    expect(await fs.readdir(root)).toEqual([]);
  });
});

describe("leftover temp files", () => {
  it("open removes only pagelog's own temp files, and only files: a backup.tmp directory or a user's x.tmp stays", async () => {
    await fs.mkdir(nodePath.join(root, "backup.tmp"));
    await fs.writeFile(nodePath.join(root, "backup.tmp", "keep"), "data");
    await fs.writeFile(nodePath.join(root, "notes.tmp"), "mine");
    await fs.writeFile(nodePath.join(root, `${RECOVERY_POINT_CHECKPOINT}.tmp`), "0\n1\nhalf");
    await fs.writeFile(nodePath.join(root, "log-start-offset-checkpoint.tmp"), "");
    await fs.writeFile(nodePath.join(root, ".kafka_cleanshutdown.tmp"), "{");
    for (let i = 0; i < 2; i++) {
      const dir = await LogDir.open(root);
      await (await dir.log("orders-0")).append([{ value: "v" }]);
      await dir.close();
    }
    const names = await fs.readdir(root);
    expect(names.filter((n) => n.endsWith(".tmp")).sort()).toEqual(["backup.tmp", "notes.tmp"]);
    expect(await fs.readFile(nodePath.join(root, "backup.tmp", "keep"), "utf8")).toBe("data");
  });

  it("on SimStorage too: a directory named like pagelog's temp file is left alone", async () => {
    const sim = new SimStorage({ seed: 1 });
    await sim.mkdir("backup.tmp");
    await writeFile(sim, "backup.tmp/x", 0, new Uint8Array([1]), { create: true });
    await writeFile(sim, "other.tmp", 0, new Uint8Array([1]), { create: true });
    const dir = await LogDir.open(sim);
    await dir.close();
    expect((await sim.list("")).filter((n) => n.endsWith(".tmp"))).toEqual(["backup.tmp", "other.tmp"]);
  });
});
