/*
 * FsFile on a device that reads and writes 2 MB/s, with the default gate limits on an injected
 * clock: every call, synchronous or through the thread pool, "takes" its bytes at that speed. A
 * synchronous call's time is time the event loop stood still; a thread-pool call's is not. What a
 * scan of cold data and a run of large appends cost the event loop, without real timing.
 */
import { describe, expect, it } from "vitest";
import { FsFile, type FileHandleLike, type SyncRead, type SyncWrite } from "../../../src/storage/fs-file.js";
import {
  DEFAULT_SYNC_READ_LIMITS,
  DEFAULT_SYNC_WRITE_LIMITS,
  SyncGate,
  type SyncGateLimits,
} from "../../../src/storage/sync-gate.js";

/** 2 MB/s: 2,000 bytes a millisecond. */
const BYTES_PER_MS = 2_000;

/** A file on the slow device; records every synchronous call (bytes, ms) and the clock. */
class SlowDevice implements FileHandleLike {
  readonly clock = { t: 0 };
  readonly syncCalls: { bytes: number; ms: number }[] = [];
  readonly data: Uint8Array;

  constructor(size: number) {
    this.data = new Uint8Array(size);
    for (let i = 0; i < size; i++) this.data[i] = (i * 31 + 7) & 0xff;
  }

  #gate(limits: SyncGateLimits): SyncGate {
    // Turns are the test's own: no budget here (sync-gate.test.ts covers it), only the clock.
    return new SyncGate({ ...limits, turnBudgetMs: Infinity, now: () => this.clock.t, nextTurn: () => {} });
  }

  /** The device's time for `bytes`, spent on the main thread: the event loop stands still. */
  #onLoop(bytes: number): void {
    const ms = bytes / BYTES_PER_MS;
    this.clock.t += ms;
    this.syncCalls.push({ bytes, ms });
  }

  readonly syncRead: SyncRead = {
    gate: this.#gate(DEFAULT_SYNC_READ_LIMITS),
    read: (buffer, offset, length, position) => {
      this.#onLoop(length);
      return this.#copyOut(buffer, offset, length, position);
    },
  };

  readonly syncWrite: SyncWrite = {
    gate: this.#gate(DEFAULT_SYNC_WRITE_LIMITS),
    write: (buffer, offset, length, position) => {
      this.#onLoop(length);
      this.data.set(buffer.subarray(offset, offset + length), position);
      return length;
    },
  };

  #copyOut(buffer: Uint8Array, offset: number, length: number, position: number): number {
    const n = Math.max(0, Math.min(length, this.data.length - position));
    buffer.set(this.data.subarray(position, position + n), offset);
    return n;
  }

  // The thread pool: the same device time passes, but on another thread.
  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    await Promise.resolve();
    this.clock.t += length / BYTES_PER_MS;
    return { bytesRead: this.#copyOut(buffer, offset, length, position) };
  }
  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    await Promise.resolve();
    this.clock.t += length / BYTES_PER_MS;
    this.data.set(buffer.subarray(offset, offset + length), position);
    return { bytesWritten: length };
  }
  async datasync(): Promise<void> {}
  async truncate(): Promise<void> {}
  async stat(): Promise<{ size: number }> {
    return { size: this.data.length };
  }
  async close(): Promise<void> {}
}

/** What the event loop paid: its longest synchronous call and its share of the run's time. */
function stalls(device: SlowDevice): { largest: number; longestMs: number; share: number } {
  const onLoop = device.syncCalls.reduce((sum, c) => sum + c.ms, 0);
  return {
    largest: Math.max(0, ...device.syncCalls.map((c) => c.bytes)),
    longestMs: Math.max(0, ...device.syncCalls.map((c) => c.ms)),
    share: onLoop / device.clock.t,
  };
}

describe("FsFile on a 2 MB/s device (default gate limits, injected clock)", () => {
  it("a scan of 4 MiB of cold data in 1 MiB reads never blocks for more than one 32 KiB call", async () => {
    const size = 4 * 1024 * 1024;
    const device = new SlowDevice(size);
    const file = new FsFile(device, "cold.log", undefined, undefined, device.syncRead);
    for (let at = 0; at < size; at += 1024 * 1024) {
      expect([...(await file.read(at, 1024 * 1024)).subarray(0, 4)]).toEqual([...device.data.subarray(at, at + 4)]);
    }
    const { largest, longestMs, share } = stalls(device);
    // The first part (32 KiB: 16.4 ms) finds the device slow; later probes move one page (2 ms).
    expect(largest).toBeLessThanOrEqual(32 * 1024);
    expect(longestMs).toBeLessThanOrEqual(16.4);
    expect(device.syncCalls.slice(1).every((c) => c.bytes <= 4096)).toBe(true);
    // 2.1 s of device time: probes at 0, 0.1, 0.3, 0.7 and 1.5 s hold the loop about 1%.
    expect(share).toBeLessThan(0.02);
  });

  it("250 KB appends to a device mounted -o sync never block for more than one 32 KiB call", async () => {
    const device = new SlowDevice(16 * 250_000);
    const file = new FsFile(device, "sync.log", undefined, device.syncWrite);
    const record = new Uint8Array(250_000).fill(42);
    for (let i = 0; i < 16; i++) await file.write(i * record.length, record);
    expect(device.data.indexOf(0)).toBe(-1); // every byte written
    const { largest, longestMs, share } = stalls(device);
    expect(largest).toBeLessThanOrEqual(32 * 1024);
    expect(longestMs).toBeLessThanOrEqual(16.4);
    expect(share).toBeLessThan(0.02);
  });
});
