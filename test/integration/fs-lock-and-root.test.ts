/**
 * Real directories: a lock whose holder thread was terminated clears; a directory moved under an
 * open LogDir is noticed (PAGELOG_MOVED) and the directory now at its path is left untouched.
 */
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { LOCK_FILE, LogDir } from "../../src/log/log-dir.js";
import { makeTempDir } from "../unit/log/helpers.js";
import { privateBuild } from "../support/private-build.js";
import { snapshotStorage } from "../support/storage-snapshot.js";
import { FsStorage } from "../../src/storage/fs-storage.js";

let buildDir: string;
beforeAll(() => {
  buildDir = privateBuild();
});

async function expectCode(action: () => Promise<unknown>, code: string): Promise<void> {
  const err = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((err as { code?: string } | undefined)?.code, String(err)).toBe(code);
}

describe("locks that clear", () => {
  it("a worker thread terminated while it holds a LogDir does not lock the directory for the process's life", async () => {
    const root = await makeTempDir();
    const entry = pathToFileURL(nodePath.join(buildDir, "node.js")).href;
    const worker = new Worker(
      `import { parentPort } from "node:worker_threads";
       const { LogDir } = await import(${JSON.stringify(entry)});
       globalThis.dir = await LogDir.open(${JSON.stringify(root)});
       parentPort.postMessage("open");
       setInterval(() => {}, 1000);`,
      { eval: true, type: "module" } as never,
    );
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    // While the thread lives, its lock holds here too.
    await expectCode(() => LogDir.open(root), ErrorCode.LOCKED);
    await worker.terminate();
    const dir = await LogDir.open(root);
    await dir.close();
  });

  it("a close that could not delete its lock file rejects, and the next open in this process works", async () => {
    const root = await makeTempDir();
    const dir = await LogDir.open(root);
    await (await dir.log("a-0")).append([{ value: "x" }]);
    // Put a non-empty directory where the lock file was: the release cannot delete "its" file.
    await fs.rm(nodePath.join(root, LOCK_FILE));
    await fs.mkdir(nodePath.join(root, LOCK_FILE, "inside"), { recursive: true });
    await expectCode(() => dir.close(), ErrorCode.MOVED);
    await fs.rm(nodePath.join(root, LOCK_FILE), { recursive: true });
    const again = await LogDir.open(root);
    await again.close();
  });
});

describe("a directory moved under an open LogDir", () => {
  it("is noticed: A's close fails PAGELOG_MOVED and B's directory at the old path is left as B made it", async () => {
    const parent = await makeTempDir();
    const d = nodePath.join(parent, "d");
    const a = await LogDir.open(d);
    const aLog = await a.log("t-0");
    await aLog.append([{ value: "a0" }]);
    await aLog.flush();
    await fs.rename(d, nodePath.join(parent, "d.moved"));

    const b = await LogDir.open(d);
    const bLog = await b.log("t-0");
    await bLog.append([{ value: "b0" }, { value: "b1" }]);
    await bLog.flush();
    await b.checkpoint();
    const inspect = await FsStorage.open(d);
    const before = await snapshotStorage(inspect);

    // A goes on: whatever needs a path fails PAGELOG_MOVED; nothing lands in d.
    await aLog.append([{ value: "a1" }]).catch(() => undefined);
    await aLog.flush().catch(() => undefined);
    await expectCode(() => a.close(), ErrorCode.MOVED);
    expect(await snapshotStorage(inspect)).toEqual(before);
    await inspect.close();

    await b.close();
    const reopened = await LogDir.open(d);
    const records = [];
    for await (const r of (await reopened.log("t-0")).records()) records.push(new TextDecoder().decode(r.value!));
    expect(records).toEqual(["b0", "b1"]);
    await reopened.close();
    // A's own records are in the directory it moved to.
    const moved = await LogDir.open(nodePath.join(parent, "d.moved"));
    const first = await (await moved.log("t-0")).read(0);
    expect(new TextDecoder().decode(first[0]!.value!)).toBe("a0");
    await moved.close();
  });

  it("a storage whose root was deleted fails PAGELOG_MOVED rather than recreate anything", async () => {
    const parent = await makeTempDir();
    const root = nodePath.join(parent, "r");
    const storage = await FsStorage.open(root);
    await fs.rm(root, { recursive: true });
    await fs.mkdir(root);
    await expectCode(() => storage.open("x", { create: true }), ErrorCode.MOVED);
    await expectCode(() => storage.list(""), ErrorCode.MOVED);
    expect(await fs.readdir(root)).toEqual([]);
    await storage.close();
  });
});
