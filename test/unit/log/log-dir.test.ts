/**
 * The log directory: the lock, the clean-shutdown marker, the offset checkpoints and the
 * lifecycle (LogManagerTest's scenarios that apply), on SimStorage and on real directories.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/errors.js";
import {
  CLEAN_SHUTDOWN_CONTENT,
  CLEAN_SHUTDOWN_FILE,
  LOCK_FILE,
  LOG_START_CHECKPOINT,
  LogDir,
  RECOVERY_POINT_CHECKPOINT,
} from "../../../src/log/log-dir.js";
import { SimStorage, keepNothing } from "../../../src/storage/sim-storage.js";
import {
  NAME,
  appendBatches,
  expectCode,
  freshLog,
  makeTempDir,
  openSim,
  readAll,
  readText,
  recordAt,
  writeFile,
} from "./helpers.js";

const MARKER = '{"version":0,"brokerEpoch":-1}';

describe("checkpoints", () => {
  it("checkpoint: round trip: the files are exactly Kafka's text format, sorted by partition", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    const orders0 = await dir.log("orders-0");
    const orders1 = await dir.log("orders-1");
    await dir.log("my.topic-3");
    await appendBatches(orders0, 5);
    await orders0.flush();
    await orders0.deleteRecordsBefore(2);
    await appendBatches(orders1, 3); // not flushed: its recovery point stays 0
    await dir.checkpoint();
    expect(await readText(sim, RECOVERY_POINT_CHECKPOINT)).toBe("0\n3\nmy.topic 3 0\norders 0 5\norders 1 0\n");
    expect(await readText(sim, LOG_START_CHECKPOINT)).toBe("0\n3\nmy.topic 3 0\norders 0 2\norders 1 0\n");
    await dir.close();
    expect(await readText(sim, RECOVERY_POINT_CHECKPOINT)).toBe("0\n3\nmy.topic 3 0\norders 0 5\norders 1 3\n");
    // Read back: the start offset survives a reopen, clean or not.
    const dir2 = await openSim(sim);
    expect((await dir2.log("orders-0")).startOffset).toBe(2);
    const crashed = await openSim(sim.crash(keepNothing));
    const again = await crashed.log("orders-0");
    expect(again.startOffset).toBe(2);
    expect((await readAll(again)).map((r) => r.offset)).toEqual([2, 3, 4]);
  });

  it("checkpoint: written via .tmp, fsynced, renamed, directory fsynced: durable when it resolves", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 4);
    await log.flush();
    await dir.checkpoint();
    const rebooted = sim.crash(keepNothing);
    expect(await readText(rebooted, RECOVERY_POINT_CHECKPOINT)).toBe("0\n1\norders 0 4\n");
    expect(await rebooted.stat(`${RECOVERY_POINT_CHECKPOINT}.tmp`)).toBeNull();
  });

  it("checkpoint: entries of logs not opened this session are kept", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    await appendBatches(await dir.log("a-0"), 3);
    await appendBatches(await dir.log("b-0"), 7);
    await dir.close();
    const dir2 = await openSim(sim);
    await appendBatches(await dir2.log("a-0"), 1);
    await dir2.close();
    expect(await readText(sim, RECOVERY_POINT_CHECKPOINT)).toBe("0\n2\na 0 4\nb 0 7\n");
  });

  it("checkpoint: a malformed log-start-offset checkpoint counts as absent", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 10);
    await log.deleteRecordsBefore(5);
    await dir.close();
    await writeFile(sim, LOG_START_CHECKPOINT, 0, new TextEncoder().encode("0\n1\norders 0 five\n"), { truncate: 0 });
    const after = await (await openSim(sim)).log(NAME, { segmentBytes: 300 });
    // Absent: the log starts at its first segment (whole segments below 5 were deleted already).
    expect(after.startOffset).toBe(after.segmentBaseOffsets[0]);
    expect(await readAll(after)).toEqual(model.slice(after.startOffset));
  });
});

describe("clean-shutdown marker", () => {
  it('marker: written at close, durably, content exactly {"version":0,"brokerEpoch":-1} with no newline', async () => {
    expect(CLEAN_SHUTDOWN_CONTENT).toBe(MARKER);
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 3);
    await dir.close();
    expect(await readText(sim, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
    const rebooted = sim.crash(keepNothing);
    expect(await readText(rebooted, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
    expect(await rebooted.stat(`${CLEAN_SHUTDOWN_FILE}.tmp`)).toBeNull();
    const dir2 = await openSim(rebooted);
    expect(dir2.clean).toBe(true);
    expect((await dir2.log(NAME)).recovery.clean).toBe(true);
  });

  it("marker: written last at close, after every segment and checkpoint is durable", async () => {
    const sim = new SimStorage({ traceLimit: 100_000 });
    const dir = await openSim(sim);
    const log = await dir.log(NAME, { segmentBytes: 300 });
    await appendBatches(log, 10);
    const from = sim.opCount;
    await dir.close();
    const ops = sim.trace.filter((e) => e.seq > from);
    const markerAt = ops.findIndex((e) => e.op === "rename" && e.detail === CLEAN_SHUTDOWN_FILE);
    expect(markerAt).toBeGreaterThan(0);
    const before = ops.slice(0, markerAt);
    const after = ops.slice(markerAt + 1);
    expect(before.some((e) => e.op === "sync" && e.path.startsWith(`${NAME}/`))).toBe(true);
    expect(before.some((e) => e.op === "rename" && e.detail === RECOVERY_POINT_CHECKPOINT)).toBe(true);
    expect(before.some((e) => e.op === "rename" && e.detail === LOG_START_CHECKPOINT)).toBe(true);
    // After the marker's rename: only the directory sync that makes it durable, and the release of the lock.
    expect(after.map((e) => e.op).filter((op) => op !== "release")).toEqual(["syncDir"]);
  });

  it("marker: removed durably first at open: a crash right after opening is seen as a crash", async () => {
    const sim = new SimStorage({ traceLimit: 100_000 });
    const dir = await openSim(sim);
    await appendBatches(await dir.log(NAME), 3);
    await dir.close();
    const from = sim.opCount;
    const dir2 = await openSim(sim);
    expect(dir2.clean).toBe(true);
    const ops = sim.trace.filter((e) => e.seq > from);
    const removeAt = ops.findIndex((e) => e.op === "remove" && e.path === CLEAN_SHUTDOWN_FILE);
    const syncAt = ops.findIndex((e, i) => i > removeAt && e.op === "syncDir" && e.path === "");
    const firstWrite = ops.findIndex(
      (e) =>
        ["write", "truncate", "rename", "mkdir", "sync"].includes(e.op) || (e.op === "open" && e.detail === "create"),
    );
    expect(removeAt).toBeGreaterThanOrEqual(0);
    expect(syncAt).toBeGreaterThan(removeAt);
    if (firstWrite !== -1) expect(firstWrite).toBeGreaterThan(syncAt);
    // Open + crash (keeping nothing unsynced): the marker must not be back.
    const rebooted = sim.crash(keepNothing);
    expect(await rebooted.stat(CLEAN_SHUTDOWN_FILE)).toBeNull();
    const dir3 = await openSim(rebooted);
    expect(dir3.clean).toBe(false);
    expect((await dir3.log(NAME)).recovery.clean).toBe(false);
  });

  it("marker: a crash at any operation of close() still recovers: every flushed record, a prefix of the rest", async () => {
    const scenario = async (seed: number) => {
      const sim = new SimStorage({ seed });
      const dir = await openSim(sim);
      const log = await dir.log(NAME, { segmentBytes: 300 });
      const model = await appendBatches(log, 8);
      await log.flush();
      model.push(...(await appendBatches(log, 4)));
      return { sim, dir, model };
    };
    const probe = await scenario(1);
    const start = probe.sim.opCount;
    await probe.dir.close();
    const closeOps = probe.sim.opCount - start;
    expect(closeOps).toBeGreaterThan(5);
    for (let k = 0; k <= closeOps; k++) {
      const { sim, dir, model } = await scenario(k + 1);
      sim.scheduleCrash({ afterOps: k });
      await dir.close().catch(() => undefined);
      const rebooted = sim.crash();
      const reopened = await openSim(rebooted);
      const log = await reopened.log(NAME, { segmentBytes: 300 });
      const got = await readAll(log);
      expect(got.length, `crash at close op ${k}`).toBeGreaterThanOrEqual(8);
      expect(got, `crash at close op ${k}`).toEqual(model.slice(0, got.length));
      // A marker that survived means close finished: then nothing may be missing.
      if (reopened.clean) expect(got, `clean after close op ${k}`).toEqual(model);
      await reopened.close();
    }
  });

  it("marker: after an unclean shutdown, a session that opens only some logs writes no marker", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    const a = await dir.log("a-0");
    const b = await dir.log("b-0");
    await appendBatches(a, 3);
    await appendBatches(b, 5);
    await a.flush();
    await b.flush();
    const rebooted = sim.crash(keepNothing);
    const partial = await openSim(rebooted);
    expect(partial.clean).toBe(false);
    await partial.log("a-0");
    await partial.close();
    expect(await rebooted.stat(CLEAN_SHUTDOWN_FILE)).toBeNull();
    // The next open still recovers b-0 (and a-0).
    const next = await openSim(rebooted);
    expect(next.clean).toBe(false);
    const b2 = await next.log("b-0");
    expect(b2.recovery.clean).toBe(false);
    expect(b2.recovery.segmentsScanned).toBeGreaterThan(0);
    expect((await readAll(b2)).length).toBe(5);
    // Once every log was opened (and recovered), the close is clean again.
    await next.log("a-0");
    await next.close();
    expect(await readText(rebooted, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
  });

  it("marker: after a clean shutdown, a session that opens only some logs still closes cleanly", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    await appendBatches(await dir.log("a-0"), 2);
    await appendBatches(await dir.log("b-0"), 2);
    await dir.close();
    const dir2 = await openSim(sim);
    await dir2.log("a-0");
    await dir2.close();
    expect(await readText(sim, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
    expect((await (await openSim(sim)).log("b-0")).recovery.clean).toBe(true);
  });
});

describe("lock", () => {
  it("lock: a second LogDir.open of the same storage is PAGELOG_LOCKED until the first closes", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    await expectCode(() => openSim(sim), ErrorCode.LOCKED);
    await dir.close();
    const dir2 = await openSim(sim);
    await dir2.close();
  });

  it("lock: a close that could not remove its lock file rejects, and the next open of the storage works", async () => {
    const sim = new SimStorage();
    const dir = await openSim(sim);
    await (await dir.log(NAME)).append([{ value: "x" }]);
    sim.injectFault({ op: "release", code: "ENOSPC" });
    await expectCode(() => dir.close(), ErrorCode.NO_SPACE);
    const again = await openSim(sim);
    expect(again.clean).toBe(true);
    expect(await readAll(await again.log(NAME))).toHaveLength(1);
    await again.close();
  });
});

describe("lifecycle", () => {
  it("closed: after close every operation rejects with PAGELOG_CLOSED, and close is idempotent", async () => {
    const { dir, log } = await freshLog();
    await appendBatches(log, 3);
    await dir.close();
    expect(log.status).toBe("closed");
    const ops: Array<[string, () => unknown]> = [
      ["append", () => log.append([recordAt(3)])],
      ["flush", () => log.flush()],
      ["read", () => log.read(0)],
      ["readBatches", () => log.readBatches(0)],
      ["truncateTo", () => log.truncateTo(1)],
      ["deleteRecordsBefore", () => log.deleteRecordsBefore(1)],
      ["applyRetention", () => log.applyRetention()],
      ["offsetForTimestamp", () => log.offsetForTimestamp(0)],
      ["records", () => log.records({ from: 0 }).next()],
      ["dir.log", () => dir.log(NAME)],
      ["dir.log (new)", () => dir.log("other-0")],
      ["dir.logs", () => dir.logs()],
      ["dir.checkpoint", () => dir.checkpoint()],
    ];
    for (const [name, op] of ops) {
      const err: unknown = await (async () => op())().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as { code?: string } | undefined)?.code, name).toBe(ErrorCode.CLOSED);
    }
    await dir.close();
    await log.close();
  });

  it("closed: Symbol.asyncDispose closes a log and a directory", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 2);
    await log[Symbol.asyncDispose]();
    expect(log.status).toBe("closed");
    await expectCode(() => log.append([recordAt(2)]), ErrorCode.CLOSED);
    await dir[Symbol.asyncDispose]();
    expect(await readText(sim, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
    const after = await (await openSim(sim)).log(NAME);
    expect(after.recovery.clean).toBe(true);
    expect(after.endOffset).toBe(2);
  });

  it("reopen: dir.log() after log.close() opens the log again, with its records", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 300 });
    const model = await appendBatches(log, 10);
    await log.deleteRecordsBefore(3);
    await log.close();
    const [again, same] = await Promise.all([
      dir.log(NAME, { segmentBytes: 300 }),
      dir.log(NAME, { segmentBytes: 300 }),
    ]);
    expect(again).not.toBe(log);
    expect(same).toBe(again);
    expect(again.status).toBe("open");
    expect(again.startOffset).toBe(3);
    expect(await readAll(again)).toEqual(model.slice(3));
    expect((await again.append([recordAt(10)])).baseOffset).toBe(10);
    await dir.close();
    expect(await readText(sim, CLEAN_SHUTDOWN_FILE)).toBe(MARKER);
    expect((await (await openSim(sim)).log(NAME)).endOffset).toBe(11);
  });

  it("reopen: dir.log() of a log that failed and was closed is PAGELOG_FAILED (only a restart can tell what survived)", async () => {
    const { sim, dir, log } = await freshLog();
    await appendBatches(log, 2);
    sim.injectFault({ op: "sync", code: "EIO" });
    await expectCode(() => log.flush(), ErrorCode.IO);
    await log.close().catch(() => undefined);
    await expectCode(() => dir.log(NAME), ErrorCode.FAILED);
  });

  it("getters: start, end, recovery point, size, segment count, status", async () => {
    const { log } = await freshLog({ segmentBytes: 300 });
    expect([log.startOffset, log.endOffset, log.recoveryPoint, log.size, log.segmentCount, log.status]).toEqual([
      0,
      0,
      0,
      0,
      1,
      "open",
    ]);
    await appendBatches(log, 8);
    expect(log.endOffset).toBe(8);
    // Nothing flushed: only the rolls' background flushes move it, never past the active segment.
    const activeBase = log.segmentBaseOffsets.at(-1)!;
    expect(log.recoveryPoint).toBeLessThanOrEqual(activeBase);
    expect(log.size).toBeGreaterThan(0);
    expect(log.segmentCount).toBeGreaterThan(1);
    expect(await log.waitFor(activeBase - 1, { durable: true })).toBe(activeBase);
    await log.flush();
    expect(log.recoveryPoint).toBe(8);
  });

  it("flushMessages: 1 makes each append durable when it resolves", async () => {
    const { sim, log } = await freshLog({ flushMessages: 1 });
    const model = await appendBatches(log, 5);
    expect(log.recoveryPoint).toBe(5);
    expect(await readAll(await (await openSim(sim.crash(keepNothing))).log(NAME))).toEqual(model);
  });

  it("flushMs: with an injected clock, an append after flushMs flushes everything before it", async () => {
    let t = 0;
    const { sim, log } = await freshLog({ flushMs: 100, clock: { now: () => t } });
    const model = await appendBatches(log, 3);
    expect(log.recoveryPoint).toBe(0);
    t = 100;
    model.push(...(await appendBatches(log, 1)));
    expect(log.recoveryPoint).toBe(4);
    expect(await readAll(await (await openSim(sim.crash(keepNothing))).log(NAME))).toEqual(model);
  });
});

describe("on FsStorage", () => {
  const cleanups: string[] = [];
  afterEach(async () => {
    for (const d of cleanups.splice(0)) await fs.rm(d, { recursive: true, force: true });
  });
  async function tempDir(): Promise<string> {
    const d = await makeTempDir();
    cleanups.push(d);
    return d;
  }

  /** A node process that runs until killed. */
  async function liveChild(): Promise<{ pid: number; stop: () => Promise<void> }> {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await once(child, "spawn");
    return {
      pid: child.pid!,
      stop: async () => {
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      },
    };
  }

  /** The pid of a node process that already exited. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(child, "exit");
    return child.pid!;
  }

  it("lock (FsStorage): a second open in this process is PAGELOG_LOCKED; the lock file names this process", async () => {
    const root = await tempDir();
    const dir = await LogDir.open(root);
    await expectCode(() => LogDir.open(root), ErrorCode.LOCKED);
    const content = await fs.readFile(nodePath.join(root, LOCK_FILE), "utf8");
    expect(content.split("\n")[0]).toBe(String(process.pid));
    await dir.close();
    await (await LogDir.open(root)).close();
  });

  it("lock (FsStorage): a lock held by another live process is PAGELOG_LOCKED; once it dies the lock is taken over", async () => {
    const root = await tempDir();
    await (await LogDir.open(root)).close();
    const child = await liveChild();
    try {
      await fs.writeFile(nodePath.join(root, LOCK_FILE), `${child.pid}\n`);
      const err = await expectCode(() => LogDir.open(root), ErrorCode.LOCKED);
      expect(err.message).toContain(String(child.pid));
    } finally {
      await child.stop();
    }
    const dir = await LogDir.open(root);
    expect(dir.clean).toBe(true); // the failed opens did not touch the marker
    await dir.close();
  });

  it("lock (FsStorage): a lock left by a dead process does not block", async () => {
    const root = await tempDir();
    const dir = await LogDir.open(root);
    await appendBatches(await dir.log(NAME), 3);
    await dir.close();
    await fs.writeFile(nodePath.join(root, LOCK_FILE), `${await deadPid()}\n`);
    const dir2 = await LogDir.open(root);
    expect((await readAll(await dir2.log(NAME))).length).toBe(3);
    await dir2.close();
    // Neither does an empty or garbage lock file (a crash between its create and its write).
    await fs.writeFile(nodePath.join(root, LOCK_FILE), "");
    await (await LogDir.open(root)).close();
  });

  it("marker and checkpoints (FsStorage): exact bytes on disk after close; the marker is gone while open", async () => {
    const root = await tempDir();
    const dir = await LogDir.open(root);
    const log = await dir.log("orders-0");
    await appendBatches(log, 4);
    await log.deleteRecordsBefore(1);
    await dir.close();
    expect(await fs.readFile(nodePath.join(root, CLEAN_SHUTDOWN_FILE), "utf8")).toBe(MARKER);
    expect(await fs.readFile(nodePath.join(root, RECOVERY_POINT_CHECKPOINT), "utf8")).toBe("0\n1\norders 0 4\n");
    expect(await fs.readFile(nodePath.join(root, LOG_START_CHECKPOINT), "utf8")).toBe("0\n1\norders 0 1\n");
    expect(await fs.readdir(root)).not.toContain(`${RECOVERY_POINT_CHECKPOINT}.tmp`);
    const dir2 = await LogDir.open(root);
    expect(dir2.clean).toBe(true);
    await expect(fs.stat(nodePath.join(root, CLEAN_SHUTDOWN_FILE))).rejects.toMatchObject({ code: "ENOENT" });
    const log2 = await dir2.log("orders-0");
    expect([log2.startOffset, log2.endOffset]).toEqual([1, 4]);
    await dir2.close();
  });
});
