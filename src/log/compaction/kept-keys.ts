/*
 * The keys a cleaning has kept a value of so far, as a Bloom filter: a tombstone may go only if
 * no older value of its key is left before it. Below the clean point a finished cleaning leaves
 * none, but a crash between the clean point's write and its group's swap leaves a group below
 * the clean point uncleaned: dropping a tombstone there would bring its key's older value back.
 * A false positive only keeps a tombstone until a later cleaning; a fixed size keeps the memory
 * bounded whatever the number of keys (about 3% false positives at a million keys).
 */

const BITS = 1 << 23; // 1 MiB
const MASK = BITS - 1;

export class KeptKeys {
  #bits: Uint32Array | undefined; // allocated at the first key

  /** The key `bytes[from, to)`. */
  add(bytes: Uint8Array, from: number, to: number): void {
    const bits = (this.#bits ??= new Uint32Array(BITS / 32));
    hashInto(bytes, from, to);
    for (let k = 0; k < 3; k++) {
      const bit = (h1 + k * h2) & MASK;
      bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  /** False if no value of the key `bytes[from, to)` was kept before (never a false "false"). */
  mightHave(bytes: Uint8Array, from: number, to: number): boolean {
    const bits = this.#bits;
    if (bits === undefined) return false;
    hashInto(bytes, from, to);
    for (let k = 0; k < 3; k++) {
      const bit = (h1 + k * h2) & MASK;
      if ((bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

// The two hashes of the last key hashed (no array per call).
let h1 = 0;
let h2 = 0;

/** Two FNV-1a variants of the key's bytes into h1, h2: three bit positions by double hashing. */
function hashInto(bytes: Uint8Array, from: number, to: number): void {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  h1 = a;
  h2 = b | 1;
}
