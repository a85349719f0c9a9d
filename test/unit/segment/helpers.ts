/**
 * Shared fixtures of the segment tests: a segment on a fresh SimStorage, batches built from a
 * small spec with a model of what each holds, raw file access, and linear-scan oracles.
 */
import { expect } from "vitest";
import { isPagelogError } from "../../../src/errors.js";
import type { ErrorCode } from "../../../src/errors.js";
import {
  type DecodedBatch,
  type RecordInput,
  decodeBatch,
  encodeBatch,
  readBatchHeader,
} from "../../../src/format/api.js";
import { Segment, type SegmentOptions } from "../../../src/segment/segment.js";
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, segmentFilePath } from "../../../src/segment/segment-names.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage } from "../../../src/storage/storage.js";

export const DIR = "t-0";

export const OPTIONS: SegmentOptions = {
  indexIntervalBytes: 4096,
  maxIndexBytes: 10 * 1024 * 1024,
  maxBatchBytes: 1048588,
};

/** What the model knows of one appended batch. */
export interface ModelBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly position: number;
  readonly size: number;
  readonly bytes: Uint8Array;
  /** Record timestamps, in offset order. */
  readonly timestamps: readonly number[];
  readonly maxTimestamp: number;
}

/** A batch to build: its record timestamps (one record each) and the value size of each record. */
export interface BatchSpec {
  readonly timestamps: readonly number[];
  readonly valueBytes?: number;
}

export function recordsOf(spec: BatchSpec, baseOffset: number): RecordInput[] {
  return spec.timestamps.map((timestamp, i) => ({
    key: `k${baseOffset + i}`,
    value: `v${baseOffset + i}:`.padEnd(Math.max(0, spec.valueBytes ?? 8), "x"),
    timestamp,
  }));
}

/** Encodes consecutive batches from `baseOffset`, positions from 0, with their model. */
export function buildBatches(specs: readonly BatchSpec[], baseOffset = 0): ModelBatch[] {
  const out: ModelBatch[] = [];
  let offset = baseOffset;
  let position = 0;
  for (const spec of specs) {
    const bytes = encodeBatch(recordsOf(spec, offset), { baseOffset: offset });
    const header = readBatchHeader(bytes);
    out.push({
      baseOffset: offset,
      lastOffset: header.lastOffset,
      position,
      size: bytes.length,
      bytes,
      timestamps: spec.timestamps,
      maxTimestamp: header.maxTimestamp,
    });
    offset = header.lastOffset + 1;
    position += bytes.length;
  }
  return out;
}

/** `n` batches of `perBatch` records with timestamps 1000 + 10 * offset. */
export function simpleSpecs(n: number, perBatch = 1, valueBytes = 8, baseOffset = 0): BatchSpec[] {
  return Array.from({ length: n }, (_, b) => ({
    timestamps: Array.from({ length: perBatch }, (_, r) => 1000 + 10 * (baseOffset + b * perBatch + r)),
    valueBytes,
  }));
}

export { concat } from "../../support/bytes.js";

export interface Fixture {
  storage: Storage;
  segment: Segment;
}

export async function openSegment(
  storage: Storage,
  baseOffset = 0,
  options: Partial<SegmentOptions> = {},
): Promise<Segment> {
  return Segment.open(storage, DIR, baseOffset, { ...OPTIONS, ...options });
}

/** A new SimStorage with `t-0/` and an empty segment, recovered (so ready for appends). */
export async function newSegment(
  baseOffset = 0,
  options: Partial<SegmentOptions> = {},
  storage: Storage = new SimStorage(),
): Promise<Fixture> {
  if ((await storage.stat(DIR)) === null) await storage.mkdir(DIR);
  const segment = await openSegment(storage, baseOffset, options);
  await segment.recover();
  return { storage, segment };
}

/** `newSegment` plus the given batches appended. */
export async function segmentWith(
  specs: readonly BatchSpec[],
  baseOffset = 0,
  options: Partial<SegmentOptions> = {},
  storage?: Storage,
): Promise<Fixture & { batches: ModelBatch[] }> {
  const fixture = await newSegment(baseOffset, options, storage);
  const batches = buildBatches(specs, baseOffset);
  for (const b of batches) await fixture.segment.append(b.bytes);
  return { ...fixture, batches };
}

export const logPath = (base = 0): string => segmentFilePath(DIR, base, LOG_SUFFIX);
export const indexPath = (base = 0): string => segmentFilePath(DIR, base, INDEX_SUFFIX);
export const timeIndexPath = (base = 0): string => segmentFilePath(DIR, base, TIME_INDEX_SUFFIX);

/** The whole content of a file as reads see it. */
export async function readFile(storage: Storage, path: string): Promise<Uint8Array> {
  const file = await storage.open(path);
  try {
    return await file.read(0, await file.size());
  } finally {
    await file.close();
  }
}

/** Writes `bytes` at `position` of a file (creating it), through a separate handle. */
export async function writeFile(storage: Storage, path: string, position: number, bytes: Uint8Array): Promise<void> {
  const file = await storage.open(path, { create: true });
  try {
    await file.write(position, bytes);
  } finally {
    await file.close();
  }
}

/** Replaces a file's content. */
export async function replaceFile(storage: Storage, path: string, bytes: Uint8Array): Promise<void> {
  const file = await storage.open(path, { create: true });
  try {
    await file.truncate(0);
    await file.write(0, bytes);
  } finally {
    await file.close();
  }
}

/** Byte equality that stays fast on large arrays (vitest's toEqual walks them element by element). */
export function expectBytes(actual: Uint8Array | undefined, expected: Uint8Array, what = ""): void {
  const same = actual !== undefined && actual.length === expected.length && Buffer.compare(actual, expected) === 0;
  if (!same) expect(actual, what).toEqual(expected);
}

/** Decodes every batch of `bytes` (back to back, CRC checked). */
export async function decodeAll(bytes: Uint8Array): Promise<DecodedBatch[]> {
  const out: DecodedBatch[] = [];
  let at = 0;
  while (at < bytes.length) {
    const batch = await decodeBatch(bytes.subarray(at));
    out.push(batch);
    at += batch.sizeInBytes;
  }
  return out;
}

/** Index in `batches` of the batch holding `offset` (the first ending at or after it), or -1. */
export function batchHolding(batches: readonly ModelBatch[], offset: number): number {
  return batches.findIndex((b) => b.lastOffset >= offset);
}

/** The linear-scan answer to "first offset with timestamp >= ts". */
export function firstOffsetAtOrAfter(batches: readonly ModelBatch[], ts: number): number | null {
  for (const b of batches) {
    for (let i = 0; i < b.timestamps.length; i++) if (b.timestamps[i]! >= ts) return b.baseOffset + i;
  }
  return null;
}

/** Raw entries of an .index file: [relative offset, position] pairs, decoded by hand. */
export function offsetEntries(bytes: Uint8Array): Array<[number, number]> {
  expect(bytes.length % 8).toBe(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Array<[number, number]> = [];
  for (let at = 0; at < bytes.length; at += 8) out.push([view.getInt32(at), view.getInt32(at + 4)]);
  return out;
}

/** Raw entries of a .timeindex file: [timestamp, relative offset] pairs, decoded by hand. */
export function timeEntries(bytes: Uint8Array): Array<[number, number]> {
  expect(bytes.length % 12).toBe(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Array<[number, number]> = [];
  for (let at = 0; at < bytes.length; at += 12) out.push([Number(view.getBigInt64(at)), view.getInt32(at + 8)]);
  return out;
}

/** Asserts that `promise` rejects with a PagelogError with `code`; returns it. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: ErrorCode,
  what = "",
): Promise<Error & { path?: string | undefined }> {
  let thrown: unknown;
  try {
    await promise;
  } catch (err) {
    thrown = err;
  }
  expect(isPagelogError(thrown, code), `${what} expected ${code}, got ${String(thrown)}`).toBe(true);
  return thrown as Error & { path?: string };
}

/** Reads every batch of the segment from its base offset, one `read` at a time. */
export async function readAllBatches(segment: Segment): Promise<DecodedBatch[]> {
  const r = await segment.read(segment.baseOffset, Number.MAX_SAFE_INTEGER);
  return r === null ? [] : decodeAll(r.bytes);
}
