import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fastCheckParams } from "../../support/seed.js";
import { crc32c } from "../../../src/format/index.js";
import { bitwiseCrc32c, utf8 } from "./helpers.js";

describe("crc32c", () => {
  test("check value: CRC-32C of '123456789' is 0xE3069283", () => {
    expect(crc32c(utf8("123456789"))).toBe(0xe3069283);
    expect(bitwiseCrc32c(utf8("123456789"))).toBe(0xe3069283);
  });

  test("empty input is 0", () => {
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  test("returns an unsigned uint32", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const crc = crc32c(bytes);
        expect(Number.isInteger(crc) && crc >= 0 && crc <= 0xffffffff).toBe(true);
      }),
      fastCheckParams(),
    );
  });

  test("agrees with a textbook bitwise implementation, on views at any byte offset", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, skip) => {
        const view = bytes.subarray(Math.min(skip, bytes.length));
        expect(crc32c(view)).toBe(bitwiseCrc32c(view));
      }),
      fastCheckParams(),
    );
  });
});
