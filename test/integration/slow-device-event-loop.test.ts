/*
 * The event loop on a slow disk: a real Log on a real FsStorage whose file calls are slowed to a
 * device that reads and writes 2 MB/s (a cold disk, or one mounted `-o sync`). The synchronous
 * calls the sync gate makes (`readSync`, `writeSync`) sleep for their bytes at that speed, on
 * the main thread, as the kernel would make them wait; the thread-pool calls (`fs.read`,
 * `fs.write`) take the same time off the main thread. `monitorEventLoopDelay` and a 1 ms interval
 * measure how long the event loop stood still while a scan of 4 MB of cold data and a run of
 * 250 KB appends ran. Without the bound on each synchronous call a 1 MiB read held it for half a
 * second and a 250 KB write for 125 ms.
 *
 * The bound, 100 ms: the gate's first 32 KiB call to the slow device takes 16.4 ms (its later
 * probes one page, 2 ms); the rest is the scan's own work between two turns (CRC and decoding of
 * a 1 MiB chunk) and the scheduling noise of a loaded 2-core machine: the same scan on a fast
 * device (no delays) stalled the loop for 31–53 ms at load 12. The code before the bound stalled it for
 * 600 ms (scan) and 148 ms (appends) on every attempt. The share of the time spent in stalls
 * over 10 ms is bounded too (25%; it was 47% and 59%, and is 5–12% now).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { makeTempDir } from "../unit/log/helpers.js";
import * as fs from "node:fs/promises";

/** 2 MB/s, in bytes per millisecond; 0 while the device is fast (setting up, checking). */
const device = vi.hoisted(() => ({ bytesPerMs: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  /**
   * The device's time for `bytes` on the calling (main) thread: the event loop stands still. The
   * thread sleeps, as one waiting for a device does in the kernel, not spinning: a spinning
   * thread on a busy machine waits for a CPU too, which the read gate takes for a call that was
   * only descheduled (see sync-gate.ts).
   */
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const wait = (bytes: number): void => {
    if (device.bytesPerMs === 0) return;
    const until = performance.now() + bytes / device.bytesPerMs;
    for (let left = until - performance.now(); left > 0; left = until - performance.now())
      Atomics.wait(sleeper, 0, 0, left);
  };
  /** The device's time for `bytes` on a pool thread: the callback comes that much later. */
  const later = (bytes: number, done: () => void): void => {
    if (device.bytesPerMs === 0) done();
    else setTimeout(done, bytes / device.bytesPerMs);
  };
  type Done = (err: NodeJS.ErrnoException | null, n: number, buffer: Uint8Array) => void;
  const slowed = {
    readSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number => {
      wait(length);
      return real.readSync(fd, buffer, offset, length, position);
    },
    writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number => {
      wait(length);
      return real.writeSync(fd, buffer, offset, length, position);
    },
    read: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number, done: Done): void =>
      real.read(fd, buffer, offset, length, position, (err, n, b) => later(length, () => done(err, n, b))),
    write: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number, done: Done): void =>
      real.write(fd, buffer, offset, length, position, (err, n, b) => later(length, () => done(err, n, b))),
  };
  return { ...real, ...slowed, default: { ...real, ...slowed } };
});

/** What the event loop went through while some work ran. */
interface LoopStalls {
  /** Its longest stall (ms). */
  maxMs: number;
  /** How many stalls passed 20 ms. */
  over20: number;
  /** The share of the time spent in stalls over 10 ms. */
  stalledShare: number;
  elapsedMs: number;
}

/** Watches the event loop while `work` runs. */
async function watchLoop(work: () => Promise<void>): Promise<LoopStalls> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const gaps: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  const startedAt = performance.now();
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
    clearInterval(ticker);
  }
  const elapsedMs = performance.now() - startedAt;
  const maxMs = Math.max(histogram.max / 1e6, ...gaps);
  const stalled = gaps.filter((g) => g > 10).reduce((sum, g) => sum + g, 0);
  return { maxMs, over20: gaps.filter((g) => g > 20).length, stalledShare: stalled / elapsedMs, elapsedMs };
}

const MAX_STALL_MS = 100;
const MAX_STALLED_SHARE = 0.25;

/**
 * Runs `attempt` (each on a fresh storage, so a fresh gate) until the loop stays within the
 * bounds, at most three times. The stalls the device causes come back on every attempt (on the
 * code before the bound: 600 ms for the scan, 148 ms for the appends); a loaded machine
 * descheduling the process (load 14 on 2 cores was seen) causes one now and then, rarely thrice.
 */
async function leastStall(label: string, attempt: () => Promise<LoopStalls>): Promise<LoopStalls> {
  const tries: LoopStalls[] = [];
  const within = (t: LoopStalls): boolean => t.maxMs < MAX_STALL_MS && t.stalledShare < MAX_STALLED_SHARE;
  while (tries.length < 3 && !tries.some(within)) tries.push(await attempt());
  for (const t of tries) console.log(`${label}: ${JSON.stringify(t)}`);
  return tries.find(within) ?? tries.reduce((best, t) => (t.maxMs < best.maxMs ? t : best));
}

/** The Node storage as loaded after the mock above (the setup file loaded it before, unmocked). */
let FsStorage: typeof import("../../src/storage/fs-storage.js").FsStorage;
let LogDir: typeof import("../../src/log/log-dir.js").LogDir;
beforeAll(async () => {
  vi.resetModules();
  ({ FsStorage } = await import("../../src/storage/fs-storage.js"));
  ({ LogDir } = await import("../../src/log/log-dir.js"));
});

describe("the event loop on a 2 MB/s device (synchronous fs calls slowed to it)", () => {
  let root: string;
  beforeEach(async () => {
    device.bytesPerMs = 0;
    root = await makeTempDir();
  });
  afterEach(async () => {
    device.bytesPerMs = 0;
    await fs.rm(root, { recursive: true, force: true });
  });

  it(`scanning 4 MB of cold data never stalls it for more than ${MAX_STALL_MS} ms`, async () => {
    const value = new Uint8Array(16 * 1024).fill(7);
    const writer = await LogDir.open(await FsStorage.open(root));
    const log = await writer.log("cold-0");
    for (let i = 0; i < 256; i += 16) await log.append(Array.from({ length: 16 }, () => ({ value })));
    await writer.close();
    const loop = await leastStall("scan of 4 MB at 2 MB/s", async () => {
      const dir = await LogDir.open(await FsStorage.open(root));
      const cold = await dir.log("cold-0");
      device.bytesPerMs = 2_000;
      let seen = 0;
      const stalls = await watchLoop(async () => {
        for await (const record of cold.records({ from: 0 })) {
          expect(record.value?.length).toBe(value.length);
          if (++seen === 256) break;
        }
      });
      device.bytesPerMs = 0;
      await dir.close();
      expect(seen).toBe(256);
      return stalls;
    });
    expect(loop.maxMs).toBeLessThan(MAX_STALL_MS);
    expect(loop.stalledShare).toBeLessThan(MAX_STALLED_SHARE);
  });

  it(`250 KB appends on a -o sync device never stall it for more than ${MAX_STALL_MS} ms`, async () => {
    const value = new Uint8Array(250_000).fill(9);
    let appended = 0;
    const loop = await leastStall("12 appends of 250 KB at 2 MB/s", async () => {
      const dir = await LogDir.open(await FsStorage.open(root));
      const log = await dir.log("sync-0");
      device.bytesPerMs = 2_000;
      const stalls = await watchLoop(async () => {
        for (let i = 0; i < 12; i++) await log.append([{ value }]);
      });
      device.bytesPerMs = 0;
      appended += 12;
      expect(log.endOffset).toBe(appended);
      await dir.close();
      return stalls;
    });
    expect(loop.maxMs).toBeLessThan(MAX_STALL_MS);
    expect(loop.stalledShare).toBeLessThan(MAX_STALLED_SHARE);
  });
});
