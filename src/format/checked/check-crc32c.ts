// The check every `crc32c` option gets (LogOptions, encodeBatch, decodeBatch, validateBatch,
// Segment.open): a wrong function would write every batch with a checksum no reader (nor pagelog
// without the option) accepts, or reject every good batch as corrupt.
import type { Crc32c } from "../crc32c.js";

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/**
 * Known answers a CRC-32C must give: the standard check value, and RFC 3720's 32 ascending
 * bytes (so a function that only knows the first cannot pass).
 */
const CRC32C_VECTORS: ReadonlyArray<{ what: string; bytes: () => Uint8Array; crc: number }> = [
  { what: '"123456789"', bytes: () => ascii("123456789"), crc: 0xe3069283 },
  { what: "bytes 0..31", bytes: () => Uint8Array.from({ length: 32 }, (_, i) => i), crc: 0x46dd794e },
];
/** Plain CRC-32 (zlib's) of "123456789": the likeliest wrong function, named in the error. */
const PLAIN_CRC32_CHECK = 0xcbf43926;

/** Functions that passed: encodeBatch may be given the same one for every batch. */
const CHECKED = new WeakSet<object>();

/**
 * A CRC-32C function must answer the known vectors synchronously, with a number. The signed form
 * of the same 32 bits is accepted (every caller takes `>>> 0`). `name` is the argument as the
 * error names it (`option crc32c`, `options.crc32c`); undefined (the default) passes.
 */
export function checkCrc32c(crc: unknown, name: string): Crc32c | undefined {
  if (crc === undefined) return undefined;
  if (typeof crc !== "function") throw new TypeError(`${name} must be a function, got ${describe(crc)}`);
  if (CHECKED.has(crc)) return crc as Crc32c;
  for (const vector of CRC32C_VECTORS) {
    let got: unknown;
    try {
      got = (crc as Crc32c)(vector.bytes());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new TypeError(`${name} threw on ${vector.what}: ${message}`, { cause: err });
    }
    if (got instanceof Promise || (typeof got === "object" && got !== null && "then" in got))
      throw new TypeError(`${name} must be synchronous: it returned a promise`);
    const ok =
      typeof got === "number" &&
      Number.isInteger(got) &&
      got >= -0x80000000 &&
      got <= 0xffffffff &&
      got >>> 0 === vector.crc;
    if (!ok) {
      const plain =
        typeof got === "number" && got >>> 0 === PLAIN_CRC32_CHECK && vector.crc === CRC32C_VECTORS[0]!.crc
          ? " (that is plain CRC-32, not CRC-32C)"
          : "";
      throw new TypeError(
        `${name} is not CRC-32C: for ${vector.what} it returned ${describe(got)}${plain}, expected 0x${vector.crc.toString(16)}`,
      );
    }
  }
  CHECKED.add(crc);
  return crc as Crc32c;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number")
    return value >= 0 && Number.isInteger(value) ? `0x${value.toString(16)}` : String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return typeof value;
}
