/**
 * The directory lock between threads of one process: a LogDir open in a worker thread locks the
 * directory against the main thread and every other worker (and the other way round), two threads
 * taking the lock at the same instant never both win, a lock whose thread ended (terminated, exited, or
 * closed cleanly) is free again, and read-only opens work beside a writer. Also on a system
 * without a boot id (macOS, a container hiding /proc/sys): the threads are told apart by the
 * descriptors of the process, not by the boot id.
 */
import * as nodePath from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { LogDir } from "../../src/log/log-dir.js";
import { FsStorage } from "../../src/storage/fs-storage.js";
import { makeTempDir } from "../unit/log/helpers.js";
import { privateBuild } from "../support/private-build.js";

let buildDir: string;
beforeAll(() => {
  buildDir = privateBuild();
});

/** Makes `readFileSync` of the boot id fail in the thread that runs it, as where there is none. */
const NO_BOOT_ID = `
  const { createRequire, syncBuiltinESMExports } = await import("node:module");
  const fsCjs = createRequire(import.meta.url)("node:fs");
  const readFileSync = fsCjs.readFileSync;
  fsCjs.readFileSync = (path, ...rest) => {
    if (String(path).includes("boot_id")) throw Object.assign(new Error("ENOENT: no boot id"), { code: "ENOENT" });
    return readFileSync(path, ...rest);
  };
  syncBuiltinESMExports();`;

/**
 * A worker thread that runs the commands it is sent against one directory, with the built
 * package (not the test's copy): open, append-and-flush, close, exit; or, on an FsStorage of the
 * directory, lock ".lock" (blocking on `start` first, to begin with the main thread) and release.
 * Each answer is "ok" or the error's code.
 */
class Thread {
  readonly worker: Worker;
  readonly #answers: string[] = [];
  readonly #waiting: Array<(answer: string) => void> = [];

  constructor(root: string, options: { bootId?: boolean; start?: Int32Array } = {}) {
    const entry = pathToFileURL(nodePath.join(buildDir, "node.js")).href;
    this.worker = new Worker(
      `import { parentPort, workerData } from "node:worker_threads";
       ${options.bootId === false ? NO_BOOT_ID : ""}
       const { FsStorage, LogDir } = await import(${JSON.stringify(entry)});
       let dir;
       let storage;
       let lock;
       const run = async (cmd) => {
         if (cmd.kind === "lock") {
           storage ??= await FsStorage.open(${JSON.stringify(root)});
           Atomics.wait(workerData.start, 0, 0);
           lock = await storage.lock(".lock");
         } else if (cmd.kind === "release") {
           await lock.release();
         } else
         if (cmd.kind === "open") {
           dir = await LogDir.open(${JSON.stringify(root)}, { readOnly: cmd.readOnly === true });
         } else if (cmd.kind === "append") {
           const log = await dir.log("t-0");
           await log.append([{ value: "w" }]);
           await log.flush();
         } else if (cmd.kind === "close") {
           await dir.close();
         } else if (cmd.kind === "exit") {
           process.exit(0);
         }
       };
       parentPort.on("message", (cmd) =>
         run(cmd).then(() => parentPort.postMessage("ok"), (e) => parentPort.postMessage(String(e?.code ?? e))));`,
      { eval: true, type: "module", workerData: { start: options.start } } as never,
    );
    this.worker.on("message", (answer: string) => {
      const waiter = this.#waiting.shift();
      if (waiter === undefined) this.#answers.push(answer);
      else waiter(answer);
    });
  }

  /** Sends a command; resolves with its answer. */
  send(kind: "open" | "append" | "close" | "exit" | "lock" | "release", readOnly = false): Promise<string> {
    const answer = new Promise<string>((resolve) => {
      const ready = this.#answers.shift();
      if (ready === undefined) this.#waiting.push(resolve);
      else resolve(ready);
    });
    this.worker.postMessage({ kind, readOnly });
    return answer;
  }

  exited(): Promise<void> {
    return new Promise((resolve) => this.worker.once("exit", () => resolve()));
  }
}

async function openCode(root: string, readOnly = false): Promise<string> {
  try {
    const dir = await LogDir.open(root, { readOnly });
    await dir.close();
    return "ok";
  } catch (err) {
    return String((err as { code?: string }).code ?? err);
  }
}

describe("the directory lock between threads", () => {
  for (const bootId of [true, false]) {
    const where = bootId ? "" : " (no boot id)";
    it(`a writer in a worker locks out every other thread's writer; readers open beside it${where}`, async () => {
      const root = await makeTempDir();
      const holder = new Thread(root, { bootId });
      const other = new Thread(root, { bootId });
      try {
        expect(await holder.send("open")).toBe("ok");
        expect(await holder.send("append")).toBe("ok");
        if (bootId) expect(await openCode(root)).toBe(ErrorCode.LOCKED); // the main thread
        expect(await other.send("open")).toBe(ErrorCode.LOCKED); // another worker
        expect(await other.send("open", true)).toBe("ok"); // read-only: no lock
        expect(await other.send("close")).toBe("ok");
        if (bootId) expect(await openCode(root, true)).toBe("ok");
        // A clean close frees it; then the other worker holds it against the first.
        expect(await holder.send("close")).toBe("ok");
        expect(await other.send("open")).toBe("ok");
        expect(await holder.send("open")).toBe(ErrorCode.LOCKED);
        // A thread that ends without closing frees it: process.exit() in the worker.
        const gone = other.exited();
        void other.send("exit");
        await gone;
        expect(await holder.send("open")).toBe("ok");
        // And worker.terminate().
        await holder.worker.terminate();
        expect(await openCode(root)).toBe("ok");
      } finally {
        await holder.worker.terminate();
        await other.worker.terminate();
      }
    });
  }

  it("a writer in the main thread locks out a worker's writer, and frees it on close", async () => {
    const root = await makeTempDir();
    const worker = new Thread(root);
    try {
      const dir = await LogDir.open(root);
      expect(await worker.send("open")).toBe(ErrorCode.LOCKED);
      expect(await worker.send("open", true)).toBe("ok");
      expect(await worker.send("close")).toBe("ok");
      await dir.close();
      expect(await worker.send("open")).toBe("ok");
      expect(await worker.send("close")).toBe("ok");
    } finally {
      await worker.worker.terminate();
    }
  });

  it("two threads taking the lock at the same instant: exactly one wins, every time", async () => {
    const root = await makeTempDir();
    const start = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Thread(root, { start });
    const storage = await FsStorage.open(root);
    try {
      for (let round = 0; round < 60; round++) {
        Atomics.store(start, 0, 0);
        // The worker blocks on `start`, then both take the lock; the main thread starts up to
        // half a millisecond later from round to round, to land in every step of the other's.
        const theirs = worker.send("lock");
        await new Promise((resolve) => setTimeout(resolve, 2));
        Atomics.store(start, 0, 1);
        Atomics.notify(start, 0);
        const until = performance.now() + (round % 10) * 0.05;
        while (performance.now() < until);
        const ours = await storage.lock(".lock").then(
          (lock) => lock,
          (err: { code?: string }) => String(err.code),
        );
        const their = await theirs;
        expect([typeof ours === "string" ? ours : "ok", their].sort(), `round ${round}`).toEqual(
          [ErrorCode.LOCKED, "ok"].sort(),
        );
        // The winner's file is still the lock: its release finds it (PAGELOG_MOVED if replaced).
        if (typeof ours !== "string") await ours.release();
        if (their === "ok") expect(await worker.send("release"), `round ${round}`).toBe("ok");
      }
    } finally {
      await storage.close();
      await worker.worker.terminate();
    }
  });
});
