/**
 * `LogDir.open(x, { readOnly: true })`: no lock, nothing created, written, deleted or renamed,
 * files opened read-only, the valid prefix of a directory another process is writing (a torn
 * tail is the end for now, never cut), and every write refused with PAGELOG_READ_ONLY.
 */
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { encodeBatch } from "../../../../src/format/api.js";
import { CLEAN_SHUTDOWN_FILE } from "../../../../src/log/log-dir.js";
import { LogDir } from "../../../../src/node.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { RecordingStorage } from "../../../support/recording-storage.js";
import { snapshotStorage } from "../../../support/storage-snapshot.js";
import {
  NAME,
  appendBatches,
  expectCode,
  expectedAt,
  fileSize,
  makeTempDir,
  plain,
  readAll,
  recordAt,
  segPath,
  writeFile,
} from "../helpers.js";

/** A writer's directory on `sim`: `batches` flushed batches, then `unflushed` more. */
async function writer(sim: SimStorage, batches: number, unflushed = 0, segmentBytes?: number) {
  const dir = await LogDir.open(sim, {
    log: segmentBytes === undefined ? {} : { segmentBytes, indexIntervalBytes: 64 },
  });
  const log = await dir.log(NAME);
  const model = await appendBatches(log, batches, 2);
  await log.flush();
  await dir.checkpoint();
  model.push(...(await appendBatches(log, unflushed, 2)));
  return { dir, log, model };
}

describe("read-only open", () => {
  it("opens a directory a writer holds (no PAGELOG_LOCKED) and reads every record it wrote", async () => {
    const sim = new SimStorage({ seed: 3 });
    const w = await writer(sim, 5, 3);
    const dir = await LogDir.open(sim, { readOnly: true });
    expect(dir.readOnly).toBe(true);
    const log = await dir.log(NAME);
    expect(log.endOffset).toBe(16);
    expect(log.recoveryPoint).toBe(10); // the checkpoint, not the end
    expect(await readAll(log)).toEqual(w.model);
    expect((await log.read(7)).map(plain)[0]).toEqual(expectedAt(7));
    await dir.close();
    // A second writer is still refused: the reader took nothing, the writer still holds the lock.
    await expectCode(() => LogDir.open(sim), ErrorCode.LOCKED);
    await w.dir.close();
  });

  it("on a read-only mount: only read calls, every open readOnly, nothing created (no marker, no lock file)", async () => {
    const sim = new SimStorage({ seed: 4 });
    const w = await writer(sim, 40, 2, 600); // several segments
    await w.dir.close(); // clean: the marker is there
    const before = await snapshotStorage(sim);
    const mount = new RecordingStorage(sim);
    const dir = await LogDir.open(mount, { readOnly: true });
    expect(dir.clean).toBe(true);
    const log = await dir.log(NAME);
    expect(log.segmentCount).toBeGreaterThan(3);
    expect(await readAll(log)).toEqual(w.model);
    expect(await log.offsetForTimestamp(1_000_000 + 50 * 10)).toBe(50);
    await log.refresh();
    await expectCode(() => dir.log("missing-0"), ErrorCode.NOT_FOUND);
    expect(await dir.logs()).toEqual([NAME]);
    await dir.close();
    expect(mount.writes).toEqual([]);
    expect(mount.calls.some((c) => c.kind === "open")).toBe(true);
    expect(await snapshotStorage(sim)).toEqual(before);
    expect(await sim.stat(CLEAN_SHUTDOWN_FILE)).not.toBeNull();
  });

  it("after an unclean shutdown: a torn tail is the end for now, and nothing is cut or repaired", async () => {
    const sim = new SimStorage({ seed: 5 });
    const w = await writer(sim, 4, 0);
    const active = segPath(0, ".log");
    const size = await fileSize(sim, active);
    // Half of a batch the writer is still writing.
    const next = encodeBatch([recordAt(8), recordAt(9)], { baseOffset: 8 });
    await writeFile(sim, active, size, next.subarray(0, 30));
    // A stale temp file a crash could leave: a read-only open must not remove it.
    await writeFile(sim, `${NAME}/00000000000000000000.log.tmp`, 0, new Uint8Array([1, 2, 3]), { create: true });
    const before = await snapshotStorage(sim);
    const mount = new RecordingStorage(sim);
    const dir = await LogDir.open(mount, { readOnly: true });
    expect(dir.clean).toBe(false);
    const log = await dir.log(NAME);
    expect(log.endOffset).toBe(8);
    expect(await readAll(log)).toEqual(w.model);
    expect(log.recovery.bytesTruncated).toBe(0);
    await dir.close();
    expect(mount.writes).toEqual([]);
    expect(await snapshotStorage(sim)).toEqual(before);
    await w.dir.close().catch(() => undefined);
  });

  it("damage below the checkpointed recovery point is PAGELOG_CORRUPT, not a shorter log; nothing changes", async () => {
    const sim = new SimStorage({ seed: 9 });
    const w = await writer(sim, 6);
    await w.dir.close(); // clean: the recovery point is the end, 12
    const path = segPath(0, ".log");
    const size = await fileSize(sim, path);
    await writeFile(sim, path, Math.floor(size / 2), new Uint8Array([0xff, 0x00, 0xff]));
    const before = await snapshotStorage(sim);
    const dir = await LogDir.open(sim, { readOnly: true });
    expect((await expectCode(() => dir.log(NAME), ErrorCode.CORRUPT)).message).toContain("recovery point 12");
    await dir.close();
    expect(await snapshotStorage(sim)).toEqual(before);
  });

  it("every write is PAGELOG_READ_ONLY naming the mode; close() writes nothing", async () => {
    const sim = new SimStorage({ seed: 6 });
    const w = await writer(sim, 3);
    await w.dir.close();
    const before = await snapshotStorage(sim);
    const dir = await LogDir.open(sim, { readOnly: true });
    const log = await dir.log(NAME);
    const writes: Array<[string, () => Promise<unknown>]> = [
      ["append", () => log.append([recordAt(6)])],
      ["flush", () => log.flush()],
      ["truncateTo", () => log.truncateTo(1)],
      ["deleteRecordsBefore", () => log.deleteRecordsBefore(1)],
      ["applyRetention", () => log.applyRetention()],
    ];
    for (const [op, call] of writes) {
      const err = await expectCode(call, ErrorCode.READ_ONLY);
      expect(err.message).toContain(`log ${NAME} was opened read-only`);
      expect(err.message).toContain(op);
    }
    expect((await expectCode(() => dir.checkpoint(), ErrorCode.READ_ONLY)).message).toContain("read-only");
    expect(log.endOffset).toBe(6);
    await dir.close();
    expect(await snapshotStorage(sim)).toEqual(before);
  });

  it("without checkpoints: recovery point 0, start at the first segment's base, every segment walked", async () => {
    const sim = new SimStorage({ seed: 7 });
    const w = await writer(sim, 30, 0, 500);
    await w.dir.close();
    await sim.remove("recovery-point-offset-checkpoint");
    await sim.remove("log-start-offset-checkpoint");
    await sim.remove(`${NAME}/pagelog-durable-offset`); // the published durable offset, too
    const dir = await LogDir.open(sim, { readOnly: true });
    const log = await dir.log(NAME);
    expect(log.recoveryPoint).toBe(0);
    expect(log.startOffset).toBe(0);
    expect(log.recovery.segmentsScanned).toBe(log.segmentCount);
    expect(await readAll(log)).toEqual(w.model);
    await dir.close();
  });

  it("an empty partition directory (no segment yet) reads as an empty log", async () => {
    const sim = new SimStorage({ seed: 8 });
    await sim.mkdir(NAME);
    const dir = await LogDir.open(sim, { readOnly: true });
    const log = await dir.log(NAME);
    expect([log.startOffset, log.endOffset]).toEqual([0, 0]);
    expect(await readAll(log)).toEqual([]);
    await dir.close();
    expect(await sim.list(NAME)).toEqual([]);
  });

  it("FsStorage: a missing directory is PAGELOG_NOT_FOUND and is not created; bad options are TypeErrors", async () => {
    const root = await makeTempDir();
    const missing = nodePath.join(root, "a", "b");
    await expectCode(() => LogDir.open(missing, { readOnly: true }), ErrorCode.NOT_FOUND);
    expect(await fs.readdir(root)).toEqual([]);
    await expect(LogDir.open(root, { readOnly: "yes" as unknown as boolean })).rejects.toThrow(TypeError);
    await expect(LogDir.open(root, { readOnly: true, pollMs: 0 })).rejects.toThrow(/pollMs/);
  });

  it("FsStorage: reads a live writer's real directory and leaves every byte as it was", async () => {
    const root = await makeTempDir();
    const w = await LogDir.open(root);
    const log = await w.log(NAME);
    const model = await appendBatches(log, 20, 3);
    await log.flush();
    const before = await snapshotStorage(w.storage);
    const names = await fs.readdir(root);
    const dir = await LogDir.open(root, { readOnly: true });
    const ro = await dir.log(NAME);
    expect(await readAll(ro)).toEqual(model);
    await dir.close();
    expect(await fs.readdir(root)).toEqual(names);
    expect(await snapshotStorage(w.storage)).toEqual(before);
    await w.close();
  });
});
