/**
 * Every `crc32c` option of pagelog/format (encodeBatch, encodeBatchAsync, decodeBatch,
 * decodeBatchSync, validateBatch, Segment.open) is checked as LogOptions.crc32c is: a function
 * that is not CRC-32C is a TypeError naming the option, not batches no reader accepts (or good
 * batches rejected as corrupt).
 */
import CRC32 from "crc-32";
import { describe, expect, it } from "vitest";
import { crc32c } from "../../../src/format/crc32c.js";
import { decodeBatch, decodeBatchSync, encodeBatch, encodeBatchAsync, validateBatch } from "../../../src/format/api.js";
import { Segment } from "../../../src/segment/segment.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";

const RECORDS = [{ value: "v" }];
const GOOD = encodeBatch(RECORDS, { baseOffset: 0, timestamp: 1 });

/** Functions that are not CRC-32C, each in a different way. */
const WRONG: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["a number", 42, /options\.crc32c must be a function, got 0x2a/],
  ["constant 0", () => 0, /options\.crc32c is not CRC-32C/],
  ["plain CRC-32", (b: Uint8Array) => CRC32.buf(b) >>> 0, /plain CRC-32, not CRC-32C/],
  [
    "right for the check vector only",
    (b: Uint8Array) => (b.length === 9 ? 0xe3069283 : crc32c(b) ^ 1),
    /bytes 0\.\.31/,
  ],
  ["async", async (b: Uint8Array) => crc32c(b), /options\.crc32c must be synchronous/],
  [
    "throws",
    () => {
      throw new Error("no native module");
    },
    /options\.crc32c threw on "123456789": no native module/,
  ],
];

/** Each entry point of pagelog/format that takes a crc32c, called with `crc`. */
const CALLS: ReadonlyArray<readonly [string, (crc: never) => unknown]> = [
  ["encodeBatch", (crc) => encodeBatch(RECORDS, { baseOffset: 0, crc32c: crc })],
  ["encodeBatchAsync", (crc) => encodeBatchAsync(RECORDS, { baseOffset: 0, crc32c: crc })],
  ["encodeBatchAsync gzip", (crc) => encodeBatchAsync(RECORDS, { baseOffset: 0, compression: "gzip", crc32c: crc })],
  ["decodeBatch", (crc) => decodeBatch(GOOD, { crc32c: crc })],
  ["decodeBatchSync", (crc) => decodeBatchSync(GOOD, { crc32c: crc })],
  ["validateBatch", (crc) => validateBatch(GOOD, 0, GOOD.length, { maxBatchBytes: 1 << 20, crc32c: crc })],
  [
    "Segment.open",
    (crc) =>
      Segment.open(new SimStorage({ seed: 1 }), "", 0, {
        indexIntervalBytes: 4096,
        maxIndexBytes: 1 << 20,
        maxBatchBytes: 1 << 20,
        crc32c: crc,
      }),
  ],
];

async function outcome(call: () => unknown): Promise<unknown> {
  try {
    return await call();
  } catch (err) {
    return err;
  }
}

describe("pagelog/format's crc32c options", () => {
  for (const [name, call] of CALLS) {
    it(`${name}: a function that is not CRC-32C is a TypeError naming options.crc32c`, async () => {
      for (const [what, crc, message] of WRONG) {
        const err = await outcome(() => call(crc as never));
        expect(err, what).toBeInstanceOf(TypeError);
        expect((err as Error).message, what).toMatch(message);
      }
    });
  }

  it("a correct one, unsigned or signed, is used and gives the default's bytes", async () => {
    for (const fn of [(b: Uint8Array) => crc32c(b), (b: Uint8Array) => crc32c(b) | 0]) {
      let calls = 0;
      const counted = (b: Uint8Array): number => (calls++, fn(b));
      const bytes = encodeBatch(RECORDS, { baseOffset: 0, timestamp: 1, crc32c: counted });
      expect(bytes).toEqual(GOOD);
      const before = calls;
      expect(decodeBatchSync(bytes, { crc32c: counted }).records).toHaveLength(1);
      expect(validateBatch(bytes, 0, bytes.length, { maxBatchBytes: 1 << 20, crc32c: counted }).ok).toBe(true);
      // Checked once, then only used: each later call computes one checksum.
      expect(calls - before).toBe(2);
    }
  });
});
