/**
 * Shared fixtures of the log tests: a LogDir on a SimStorage, records with a model of what each
 * holds, raw file access below the log, and helpers that compare what a log reads back with
 * what was appended.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { expect } from "vitest";
import { type ErrorCode, PagelogError } from "../../../src/errors.js";
import type { RecordInput } from "../../../src/format/index.js";
import { LogDir, type LogDirOptions } from "../../../src/log/log-dir.js";
import type { Log } from "../../../src/log/log.js";
import type { LogOptions } from "../../../src/log/options/log-options.js";
import { offsetName } from "../../../src/segment/segment-names.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage, StorageFile, StorageLock } from "../../../src/storage/storage.js";

export const NAME = "orders-0";

import { plain, type PlainRecord } from "../../support/plain-record.js";

export { plain, type PlainRecord };

const decoder = new TextDecoder();

/** The record the tests append at `offset`: key, value, two headers (one null) and a timestamp. */
export function recordAt(offset: number, timestamp = 1_000_000 + offset * 10, valueBytes = 0): RecordInput {
  return {
    key: `k${offset}`,
    value: `v${offset}`.padEnd(valueBytes, "x"),
    headers: [
      { key: "h", value: `h${offset}` },
      { key: "n", value: null },
    ],
    timestamp,
  };
}

/** What reading back `recordAt(offset, timestamp, valueBytes)` must give. */
export function expectedAt(offset: number, timestamp = 1_000_000 + offset * 10, valueBytes = 0): PlainRecord {
  return {
    offset,
    timestamp,
    key: `k${offset}`,
    value: `v${offset}`.padEnd(valueBytes, "x"),
    headers: [
      { key: "h", value: `h${offset}` },
      { key: "n", value: null },
    ],
  };
}

/** Appends `batches` batches of `perBatch` records each from the log's end; returns the model. */
export async function appendBatches(log: Log, batches: number, perBatch = 1, valueBytes = 0): Promise<PlainRecord[]> {
  const out: PlainRecord[] = [];
  for (let b = 0; b < batches; b++) {
    const base = log.endOffset;
    const records = Array.from({ length: perBatch }, (_, i) => recordAt(base + i, undefined, valueBytes));
    const { baseOffset, lastOffset } = await log.append(records);
    expect([baseOffset, lastOffset]).toEqual([base, base + perBatch - 1]);
    for (let i = 0; i < perBatch; i++) out.push(expectedAt(base + i, undefined, valueBytes));
  }
  return out;
}

/** Every record from the start offset to the end, through `records()`. */
export async function readAll(log: Log): Promise<PlainRecord[]> {
  const out: PlainRecord[] = [];
  for await (const r of log.records()) out.push(plain(r));
  return out;
}

/** Awaits `action` and checks it rejected with a PagelogError of `code`. A sync throw counts. */
export async function expectCode(action: () => unknown, code: ErrorCode): Promise<PagelogError> {
  const err: unknown = await (async () => action())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(PagelogError);
  expect((err as PagelogError).code).toBe(code);
  return err as PagelogError;
}

/** Awaits `action` and checks it failed with a TypeError whose message contains `mention`. */
export async function expectTypeError(action: () => unknown, mention: string): Promise<void> {
  const err: unknown = await (async () => action())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a TypeError naming ${mention}`).toBeInstanceOf(TypeError);
  expect((err as TypeError).message).toContain(mention);
}

export async function openSim(sim: SimStorage, defaults: LogOptions = {}): Promise<LogDir> {
  const options: LogDirOptions = { log: defaults };
  return LogDir.open(sim, options);
}

/** A fresh SimStorage with a LogDir and one log on it. */
export async function freshLog(
  options: LogOptions = {},
  seed = 1,
): Promise<{ sim: SimStorage; dir: LogDir; log: Log }> {
  const sim = new SimStorage({ seed });
  const dir = await openSim(sim);
  const log = await dir.log(NAME, options);
  return { sim, dir, log };
}

export function segPath(baseOffset: number, suffix: ".log" | ".index" | ".timeindex", name = NAME): string {
  return `${name}/${offsetName(baseOffset)}${suffix}`;
}

/** Reads a whole file through the storage (cached view). */
export async function readFile(storage: Storage, path: string): Promise<Uint8Array> {
  const f = await storage.open(path);
  try {
    return await f.read(0, await f.size());
  } finally {
    await f.close();
  }
}

export async function readText(storage: Storage, path: string): Promise<string> {
  return decoder.decode(await readFile(storage, path));
}

/** Writes bytes into a file through the storage (page cache only unless `sync`). */
export async function writeFile(
  storage: Storage,
  path: string,
  position: number,
  bytes: Uint8Array,
  options: { create?: boolean; sync?: boolean; truncate?: number } = {},
): Promise<void> {
  const f = await storage.open(path, { create: options.create ?? false });
  try {
    if (options.truncate !== undefined) await f.truncate(options.truncate);
    await f.write(position, bytes);
    if (options.sync) await f.sync();
  } finally {
    await f.close();
  }
}

export async function fileSize(storage: Storage, path: string): Promise<number> {
  return (await storage.stat(path))?.size ?? -1;
}

export { seededBytes } from "../../support/seeded-bytes.js";

export async function makeTempDir(): Promise<string> {
  return fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-log-"));
}

/**
 * The storage as one process sees it: `kill()` is that process dying without a power cut (its
 * locks go, the page cache and everything in it stay), so the next opener of `sim` finds the
 * dead process's unsynced writes still readable.
 */
export function killable(sim: SimStorage): { storage: Storage; kill: () => Promise<void> } {
  const locks: StorageLock[] = [];
  const storage: Storage = {
    open: (path, options) => sim.open(path, options),
    stat: (path) => sim.stat(path),
    list: (dir) => sim.list(dir),
    mkdir: (dir) => sim.mkdir(dir),
    remove: (path) => sim.remove(path),
    rename: (from, to) => sim.rename(from, to),
    syncDir: (dir) => sim.syncDir(dir),
    lock: async (path) => {
      const lock = await sim.lock(path);
      locks.push(lock);
      return lock;
    },
    close: async () => undefined,
  };
  return {
    storage,
    kill: async () => {
      for (const lock of locks.splice(0)) await lock.release();
    },
  };
}

/** Whether `promise` is still pending after everything queued so far (and the storage's work) ran. */
export async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 50; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

/** A file's whole content, as text (the descriptor pool's tests read files back with it). */
export const text = async (f: StorageFile): Promise<string> => decoder.decode(await f.read(0, await f.size()));

/** The opens, closes and syncs the storage beneath saw after operation `since`. */
export function fileOps(sim: SimStorage, since: number): string[] {
  return sim.trace
    .filter((e) => e.seq > since && (e.op === "open" || e.op === "close" || e.op === "sync"))
    .map((e) => `${e.op} ${e.path}`);
}
