/**
 * An unclean open reads the tail above the recovery point once: the walk that checks it also
 * writes it back (the fsyncgate defence, recovery.md), from the bytes it just validated, instead
 * of a second read after the commit. What it writes back is the file's own content, exactly the
 * batches holding offsets from the recovery point on, and the indexes it rebuilds are the ones
 * the appends wrote.
 */
import { describe, expect, it } from "vitest";
import { readBatchHeader } from "../../../../src/format/index.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { keepEverything } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, freshLog, readAll, readFile, recordAt } from "../helpers.js";

interface Traffic {
  readBytes: number;
  writes: { path: string; position: number; bytes: Uint8Array }[];
}

/** A storage that records the bytes read from and written to `.log` files. */
function tracing(inner: Storage): { storage: Storage; traffic: Traffic } {
  const traffic: Traffic = { readBytes: 0, writes: [] };
  const storage = new HookedStorage(inner, async (op, run) => {
    const out = await run();
    if (op.kind === "read" && op.path.endsWith(".log"))
      traffic.readBytes += typeof out === "number" ? out : (out as Uint8Array).length;
    return out;
  });
  // Writes: wrap each opened file's write to see where and what.
  const open = storage.open.bind(storage);
  storage.open = async (path, options) => {
    const file = await open(path, options);
    if (!path.endsWith(".log")) return file;
    const write = file.write.bind(file);
    file.write = (position, bytes) => {
      traffic.writes.push({ path, position, bytes: bytes.slice() });
      return write(position, bytes);
    };
    return file;
  };
  return { storage, traffic };
}

/** A crashed log (every write kept, nothing flushed past `flushAfter` batches) of random batches. */
async function crashedLog(seed: number, batches: number, flushAfter: number | undefined) {
  const next = rng(seed);
  const { sim, dir, log } = await freshLog({ segmentBytes: 64 * 1024, indexIntervalBytes: 700 }, seed);
  // The recovery point the next open starts from: the checkpointed one (the rolls' background
  // flushes move the log's own, but the checkpoint follows only at its interval).
  let recoveryPoint = 0;
  for (let b = 0; b < batches; b++) {
    const count = 1 + next(5);
    const base = log.endOffset;
    await log.append(Array.from({ length: count }, (_, i) => recordAt(base + i, undefined, next(900))));
    if (b + 1 === flushAfter) {
      await log.flush();
      await dir.checkpoint(); // the recovery point the next open starts from
      recoveryPoint = log.recoveryPoint;
    }
  }
  return { crashed: sim.crash(keepEverything), recoveryPoint };
}

async function logFiles(storage: Storage): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const name of await storage.list(NAME)) out.set(name, await readFile(storage, `${NAME}/${name}`));
  return out;
}

describe("an unclean open walks the tail once", () => {
  it("reads each .log byte once, leaves the .log bytes and rebuilds the indexes a rebuild from the logs makes", async () => {
    for (const seed of [1, 2, 3]) {
      const { crashed } = await crashedLog(seed, 120, undefined);
      const before = await logFiles(crashed);
      const logBytes = [...before].filter(([n]) => n.endsWith(".log")).reduce((n, [, b]) => n + b.length, 0);
      const { storage, traffic } = tracing(crashed);
      const dir = await LogDir.open(storage);
      const log = await dir.log(NAME);
      expect(log.recovery.clean).toBe(false);
      expect(log.recovery.bytesScanned).toBe(logBytes);
      // Once, not twice (a walk, then a rewrite that read it all again).
      expect(traffic.readBytes).toBeLessThanOrEqual(logBytes);
      await dir.close();
      const after = await logFiles(crashed);
      // The .log files as they were; the indexes as a rebuild from the logs alone makes them.
      for (const [name, bytes] of before) if (name.endsWith(".log")) expect(after.get(name), name).toEqual(bytes);
      for (const name of after.keys()) if (/index$/.test(name)) await crashed.remove(`${NAME}/${name}`);
      const again = await LogDir.open(crashed);
      await readAll(await again.log(NAME)); // every segment's first use rebuilds its indexes
      await again.close();
      const rebuilt = await logFiles(crashed);
      for (const [name, bytes] of after) if (/index$/.test(name)) expect(rebuilt.get(name), name).toEqual(bytes);
    }
  });

  it("writes back exactly the batches holding offsets from the recovery point on, unchanged", async () => {
    for (const [seed, flushAfter] of [
      [4, 30],
      [5, 1],
      [6, 119],
    ] as const) {
      const { crashed, recoveryPoint } = await crashedLog(seed, 120, flushAfter);
      const before = await logFiles(crashed);
      const { storage, traffic } = tracing(crashed);
      const dir = await LogDir.open(storage);
      const log = await dir.log(NAME);
      expect(log.recovery.clean).toBe(false);
      // Per segment, where its first batch holding an offset at or past the recovery point starts.
      const expected = new Map<string, number>();
      for (const [name, bytes] of before) {
        if (!name.endsWith(".log")) continue;
        for (let at = 0; at < bytes.length;) {
          const header = readBatchHeader(bytes, at);
          if (header.lastOffset >= recoveryPoint) {
            expected.set(`${NAME}/${name}`, at);
            break;
          }
          at += header.sizeInBytes;
        }
      }
      const written = new Map<string, { from: number; to: number }>();
      for (const w of traffic.writes) {
        // The content is the file's own: the bytes at that position before the open.
        const name = w.path.slice(NAME.length + 1);
        expect(w.bytes).toEqual(before.get(name)!.subarray(w.position, w.position + w.bytes.length));
        const range = written.get(w.path);
        expect(range === undefined || range.to === w.position, "contiguous").toBe(true);
        written.set(w.path, { from: range?.from ?? w.position, to: w.position + w.bytes.length });
      }
      for (const [path, from] of expected) {
        expect(written.get(path), path).toEqual({ from, to: before.get(path.slice(NAME.length + 1))!.length });
      }
      expect([...written.keys()].sort()).toEqual([...expected.keys()].sort());
      await dir.close();
    }
  });
});
