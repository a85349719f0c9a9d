/**
 * Deterministic pseudo-random bytes: xorshift32 (Marsaglia's 13/17/5 triple), the low byte of
 * each state. The same buffer in every process and every run, for the native CRC-32C's self-test
 * (format/crc32c-accelerator.ts) and the tests' injected garbage (test/support/seeded-bytes.ts).
 * Each caller turns its seed into a nonzero start state its own way, and keeps it: its buffers
 * are fixed by it.
 */

/** `length` bytes from the xorshift32 stream that starts at `state` (nonzero: zero stays zero). */
export function xorshift32Bytes(length: number, state: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = state;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
