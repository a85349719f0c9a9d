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

  add(key: string): void {
    const bits = (this.#bits ??= new Uint32Array(BITS / 32));
    for (const bit of positions(key)) bits[bit >>> 5]! |= 1 << (bit & 31);
  }

  /** False if no value of `key` was kept before (never a false "false"). */
  mightHave(key: string): boolean {
    const bits = this.#bits;
    if (bits === undefined) return false;
    for (const bit of positions(key)) if ((bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    return true;
  }
}

/** Three bit positions by double hashing two FNV-1a variants of the key's characters. */
function positions(key: string): [number, number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  h2 |= 1;
  return [h1 & MASK, (h1 + h2) & MASK, (h1 + 2 * h2) & MASK];
}
