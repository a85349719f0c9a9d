/**
 * Reading a checkpoint file: absent and malformed are told apart (readCheckpointFile), a file
 * larger than any checkpoint of the partitions present is malformed without being read, and
 * opening the directory treats malformed as absent (recovery from offset 0).
 */
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_BASE_BYTES,
  CHECKPOINT_BYTES_PER_PARTITION,
  maxCheckpointBytes,
} from "../../../../src/log/checkpoints/checkpoint-files.js";
import { readCheckpointFile } from "../../../../src/log/checkpoints/checkpoint-read.js";
import { LogDir, RECOVERY_POINT_CHECKPOINT } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../../../src/storage/storage.js";

async function withFile(storage: Storage, path: string, content: Uint8Array | string | number): Promise<void> {
  const file = await storage.open(path, { create: true });
  if (typeof content === "number") await file.truncate(content);
  else await file.write(0, typeof content === "string" ? new TextEncoder().encode(content) : content);
  await file.close();
}

/** A storage whose opened files record every read's length. */
function recordingReads(storage: SimStorage): { storage: Storage; reads: number[] } {
  const reads: number[] = [];
  const wrapped = Object.create(storage) as Storage;
  wrapped.open = async (path, options) => {
    const file = await storage.open(path, options);
    return Object.assign(Object.create(file) as StorageFile, {
      path: file.path,
      read: (position: number, length: number) => {
        reads.push(length);
        return file.read(position, length);
      },
      size: () => file.size(),
      close: () => file.close(),
    });
  };
  wrapped.stat = (path) => storage.stat(path);
  wrapped.list = (dir) => storage.list(dir);
  return { storage: wrapped, reads };
}

describe("readCheckpointFile", () => {
  it("absent, ok and each kind of malformed are told apart", async () => {
    const storage = new SimStorage();
    expect(await readCheckpointFile(storage, RECOVERY_POINT_CHECKPOINT)).toEqual({ state: "absent" });
    await withFile(storage, RECOVERY_POINT_CHECKPOINT, "0\n2\norders 0 12\nmy.topic 3 7\n");
    expect(await readCheckpointFile(storage, RECOVERY_POINT_CHECKPOINT)).toEqual({
      state: "ok",
      entries: new Map([
        ["orders-0", 12],
        ["my.topic-3", 7],
      ]),
    });
    for (const [content, reason] of [
      ["0\n2\norders 0 12\n", /format/],
      ["1\n0\n", /format/],
      [new Uint8Array([0x30, 0x0a, 0xff, 0x0a]), /UTF-8/],
    ] as const) {
      const s = new SimStorage();
      await withFile(s, RECOVERY_POINT_CHECKPOINT, content);
      const read = await readCheckpointFile(s, RECOVERY_POINT_CHECKPOINT);
      expect(read.state).toBe("malformed");
      expect(read.state === "malformed" && read.reason).toMatch(reason);
    }
    const dirNamed = new SimStorage();
    await dirNamed.mkdir(RECOVERY_POINT_CHECKPOINT);
    expect(await readCheckpointFile(dirNamed, RECOVERY_POINT_CHECKPOINT)).toEqual({
      state: "malformed",
      reason: "not a file",
    });
  });

  it("a file larger than the bound is malformed without a single read; the bound grows with the partition directories", async () => {
    expect(maxCheckpointBytes(0)).toBe(CHECKPOINT_BASE_BYTES);
    expect(maxCheckpointBytes(10)).toBe(CHECKPOINT_BASE_BYTES + 10 * CHECKPOINT_BYTES_PER_PARTITION);
    for (const size of [CHECKPOINT_BASE_BYTES + 1, 3 * 2 ** 30, 2 ** 32 + 1, 10 * 2 ** 30]) {
      const sim = new SimStorage();
      await withFile(sim, RECOVERY_POINT_CHECKPOINT, size);
      const { storage, reads } = recordingReads(sim);
      const read = await readCheckpointFile(storage, RECOVERY_POINT_CHECKPOINT);
      expect(read).toEqual({
        state: "malformed",
        reason: `${size} bytes, more than the ${CHECKPOINT_BASE_BYTES} a checkpoint of 0 partitions can need`,
      });
      expect(reads).toEqual([]);
    }
  });

  it("the largest checkpoint pagelog writes for the partitions present is read", async () => {
    const storage = new SimStorage();
    // The longest partition directory names (255 characters: a 244-character topic, a 10-digit
    // partition) and the longest offsets: the longest lines pagelog can write.
    const names = Array.from({ length: 5000 }, (_, i) => `${"t".repeat(244)}-${2_000_000_000 + i}`);
    for (const name of names) await storage.mkdir(name);
    const text = `0\n${names.length}\n${names.map((n) => `${n.slice(0, 244)} ${n.slice(245)} ${Number.MAX_SAFE_INTEGER}\n`).join("")}`;
    expect(text.length).toBeGreaterThan(CHECKPOINT_BASE_BYTES);
    await withFile(storage, RECOVERY_POINT_CHECKPOINT, text);
    const read = await readCheckpointFile(storage, RECOVERY_POINT_CHECKPOINT);
    expect(read.state).toBe("ok");
    expect(read.state === "ok" && read.entries.size).toBe(names.length);
  });

  it("LogDir.open with a 3 GiB checkpoint (sparse, in the simulator) opens and recovers from 0", async () => {
    const storage = new SimStorage();
    const dir = await LogDir.open(storage);
    const log = await dir.log("orders-0");
    for (let i = 0; i < 5; i++) await log.append([{ value: `v${i}` }]);
    await log.flush();
    await dir.checkpoint();
    const crashed = storage.crash();
    await withFile(crashed, RECOVERY_POINT_CHECKPOINT, 3 * 2 ** 30);
    const again = await LogDir.open(crashed);
    const reopened = await again.log("orders-0");
    expect(reopened.endOffset).toBe(5);
    await again.close();
  });
});
