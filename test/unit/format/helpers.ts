import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, type Mock, vi } from "vitest";
import { isPagelogError } from "../../../src/errors.js";
import type { ErrorCode } from "../../../src/errors.js";
import { crc32c, encodeBatch } from "../../../src/format/api.js";

/** Reads a Kafka-written fixture of test/fixtures/kafka (see its README; never shipped in the package). */
export function readVector(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/kafka/${name}`, import.meta.url))));
}

/** Bytes from a hex string that may contain spaces, newlines and `#` comments. */
export function hex(text: string): Uint8Array {
  const digits = text.replace(/#[^\n]*/g, "").replace(/\s+/g, "");
  if (digits.length % 2 !== 0 || /[^0-9a-f]/i.test(digits)) throw new Error(`bad hex: ${digits}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Asserts that `fn` throws (or rejects with) a PagelogError with `code`. */
export function expectCode(fn: () => unknown, code: ErrorCode): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(isPagelogError(thrown, code), `expected ${code}, got ${String(thrown)}`).toBe(true);
}

export async function expectCodeAsync(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  let thrown: unknown;
  try {
    await promise;
  } catch (err) {
    thrown = err;
  }
  expect(isPagelogError(thrown, code), `expected ${code}, got ${String(thrown)}`).toBe(true);
}

/**
 * A textbook bitwise CRC-32C (reflected polynomial 0x82F63B78), independent of the crc-32
 * package, to cross-check it.
 */
export function bitwiseCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A spy on the default CRC-32C that has already passed the check every `crc32c` option gets
 * (two known vectors, once per function): its calls from here on are the codec's own.
 */
export function checkedCrcSpy(): Mock<(bytes: Uint8Array) => number> {
  const spy = vi.fn((bytes: Uint8Array) => crc32c(bytes));
  encodeBatch([{ value: "" }], { baseOffset: 0, crc32c: spy });
  spy.mockClear();
  return spy;
}
