/** Property: whatever records go into a batch come back out, uncompressed and gzip. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fastCheckParams } from "../../support/seed.js";
import {
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  encodeBatchAsync,
  readBatchHeader,
  validateBatch,
} from "../../../src/format/api.js";
import type { BytesInput, DecodedRecord, RecordInput } from "../../../src/format/api.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Keys, values and header values: null, empty, bytes, any well-formed string (fast-check's
 * "binary" unit draws code points, never a lone surrogate, which encoding refuses:
 * record-input.test.ts).
 */
const bytesInput: fc.Arbitrary<BytesInput> = fc.oneof(
  fc.constant(null),
  fc.constant(new Uint8Array(0)),
  fc.uint8Array({ maxLength: 64 }),
  fc.string({ unit: "binary", maxLength: 32 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
);

const headerKey = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.constantFrom("h", "", "ключ", "🔑"));

const headers = fc.oneof(
  fc.constant(undefined),
  // a list allows duplicate keys: draw keys from a tiny pool so duplicates are common
  fc.array(fc.record({ key: fc.oneof(headerKey, fc.constantFrom("dup", "dup")), value: bytesInput }), { maxLength: 5 }),
  fc.dictionary(headerKey, bytesInput, { maxKeys: 4 }),
);

/** Timestamps near now, or anywhere in ±2^52 so deltas reach ±2^53 (extreme, negative). */
const timestamp = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 1_500_000_000_000, max: 1_800_000_000_000 }),
  fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
);

// A key or timestamp given as undefined (as JavaScript callers may) counts as absent: drawn too,
// though RecordInput's type, under exactOptionalPropertyTypes, says to leave the key out.
const record = fc.record(
  { key: fc.oneof(fc.constant(undefined), bytesInput), value: bytesInput, headers, timestamp },
  { requiredKeys: ["value"] },
) as fc.Arbitrary<unknown> as fc.Arbitrary<RecordInput>;

const toBytes = (v: BytesInput | undefined): Uint8Array | null =>
  v === null || v === undefined ? null : typeof v === "string" ? encoder.encode(v) : v;

function expected(records: RecordInput[], baseOffset: number, now: number): DecodedRecord[] {
  return records.map((r, i) => {
    const list =
      r.headers === undefined
        ? []
        : Array.isArray(r.headers)
          ? r.headers
          : Object.keys(r.headers).map((key) => ({ key, value: (r.headers as Record<string, BytesInput>)[key]! }));
    return {
      offset: baseOffset + i,
      timestamp: r.timestamp ?? now,
      key: toBytes(r.key),
      value: toBytes(r.value),
      // header keys come back as decoded UTF-8 (the same string: a lone surrogate is refused)
      headers: list.map((h) => ({ key: decoder.decode(encoder.encode(h.key)), value: toBytes(h.value) })),
    };
  });
}

const options = fc.record({
  baseOffset: fc.oneof(fc.nat(1000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 10_000 })),
  partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  producerId: fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }),
  producerEpoch: fc.integer({ min: -1, max: 0x7fff }),
  baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
});

const NOW = 1_700_000_000_000;

function checkHeaderFields(bytes: Uint8Array, records: RecordInput[], opts: { baseOffset: number }): void {
  const header = readBatchHeader(bytes);
  const stamps = records.map((r) => r.timestamp ?? NOW);
  expect(header).toMatchObject({
    ...opts,
    recordsCount: records.length,
    lastOffsetDelta: records.length - 1,
    baseTimestamp: stamps[0],
    maxTimestamp: Math.max(...stamps),
  });
}

describe("round trip", () => {
  test("uncompressed: 1-20 arbitrary records", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), options, (records, opts) => {
        const bytes = encodeBatch(records, { ...opts, timestamp: NOW });
        expect(validateBatch(bytes, 0, bytes.length, { maxBatchBytes: bytes.length })).toEqual({
          ok: true,
          size: bytes.length,
        });
        checkHeaderFields(bytes, records, opts);
        expect(decodeBatchSync(bytes).records).toEqual(expected(records, opts.baseOffset, NOW));
      }),
      { ...fastCheckParams(), numRuns: 300 },
    );
  });

  test("uncompressed: up to 3000 records in one batch", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 3000, size: "max" }), (records) => {
        const bytes = encodeBatch(records, { baseOffset: 7, timestamp: NOW });
        expect(decodeBatchSync(bytes).records).toEqual(expected(records, 7, NOW));
      }),
      { ...fastCheckParams(), numRuns: 10 },
    );
  });

  test("uncompressed: large values (up to 1 MiB)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 20 }), fc.boolean(), (size, asString) => {
        const value = asString ? "é".repeat(size >> 1) : new Uint8Array(size).fill(0xab);
        const bytes = encodeBatch([{ key: "big", value, timestamp: 1 }], { baseOffset: 0 });
        // Buffer.equals: a deep toEqual over a MiB of elements takes seconds
        expect(Buffer.from(decodeBatchSync(bytes).records[0]!.value!).equals(toBytes(value)!)).toBe(true);
      }),
      { ...fastCheckParams(), numRuns: 10 },
    );
  });

  test("gzip: arbitrary records compress and come back", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 50 }), options, async (records, opts) => {
        const bytes = await encodeBatchAsync(records, { ...opts, timestamp: NOW, compression: "gzip" });
        const header = readBatchHeader(bytes);
        expect(header.compression).toBe(1);
        expect(validateBatch(bytes, 0, bytes.length, { maxBatchBytes: bytes.length })).toEqual({
          ok: true,
          size: bytes.length,
        });
        checkHeaderFields(bytes, records, opts);
        expect((await decodeBatch(bytes)).records).toEqual(expected(records, opts.baseOffset, NOW));
      }),
      { ...fastCheckParams(), numRuns: 100 },
    );
  });

  test("gzip: up to 2000 records in one batch", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 2000, size: "max" }), async (records) => {
        const bytes = await encodeBatchAsync(records, { baseOffset: 0, timestamp: NOW, compression: "gzip" });
        expect((await decodeBatch(bytes)).records).toEqual(expected(records, 0, NOW));
      }),
      { ...fastCheckParams(), numRuns: 5 },
    );
  });

  test("gzip + LogAppendTime: every record reads back with the append time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 2 ** 50 }),
        async (records, appendTime) => {
          const bytes = await encodeBatchAsync(records, {
            baseOffset: 0,
            timestamp: NOW,
            compression: "gzip",
            logAppendTime: appendTime,
          });
          const decoded = await decodeBatch(bytes);
          expect(decoded.isLogAppendTime).toBe(true);
          expect(decoded.records.map((r) => r.timestamp)).toEqual(records.map(() => appendTime));
        },
      ),
      { ...fastCheckParams(), numRuns: 30 },
    );
  });

  test("compression 'none' through encodeBatchAsync is the same as encodeBatch", async () => {
    const records = [{ key: "k", value: "v", timestamp: 5 }];
    expect(await encodeBatchAsync(records, { baseOffset: 3 })).toEqual(encodeBatch(records, { baseOffset: 3 }));
  });
});
