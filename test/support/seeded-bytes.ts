import { xorshift32Bytes } from "../../src/util/xorshift32.js";

/** Deterministic "random" bytes (xorshift32), so injected garbage is the same on every run. */
export function seededBytes(length: number, seed: number): Uint8Array {
  // `seed >>> 0 || 1`: the start state every fixed test buffer was made with (zero would stay zero).
  return xorshift32Bytes(length, seed >>> 0 || 1);
}
