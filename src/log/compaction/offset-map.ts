/*
 * The cleaner's key → latest offset map, bounded as Kafka's dedupe buffer
 * (`log.cleaner.dedupe.buffer.size`): when it is full the cleaning stops at the batch where it
 * filled, cleans up to there, and the next cleaning goes on from that clean point.
 *
 * Keyed by the key's bytes, read where they lie (in the batch being walked): an open-addressing
 * table whose keys are copied once, into one growing arena, when first seen. Kafka's
 * SkimpyOffsetMap keeps only an MD5 of each key and accepts its collisions; this map compares
 * the bytes, so two keys are never taken for one. No string or object per record: building the
 * map allocates nothing but its arrays.
 */

/**
 * What one entry is counted as: its key's bytes plus this, an estimate of what an entry costs
 * (Kafka's SkimpyOffsetMap spends 24 bytes a key).
 */
export const MAP_ENTRY_OVERHEAD = 48;

const EMPTY = -1;

/** FNV-1a over `bytes[from, to)`, as an int32. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h | 0;
}

export class OffsetMap {
  readonly #capacity: number;
  #bytes = 0;
  #size = 0;
  #mask: number;
  /** Per slot: the key's hash, where its bytes start in the arena (EMPTY: a free slot), its length, its offset. */
  #hashes: Int32Array;
  #at: Int32Array;
  #lengths: Int32Array;
  #offsets: Float64Array;
  #arena = new Uint8Array(1 << 16);
  #arenaUsed = 0;
  /** What the batch being added changed, to undo it if its new keys do not fit. */
  #added: number[] = [];
  #replaced: number[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#mask = (1 << 10) - 1;
    this.#hashes = new Int32Array(1 << 10);
    this.#at = new Int32Array(1 << 10).fill(EMPTY);
    this.#lengths = new Int32Array(1 << 10);
    this.#offsets = new Float64Array(1 << 10);
  }

  /** The bytes the entries are counted as (at most the capacity, or one batch's keys past it). */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many keys it holds. */
  get size(): number {
    return this.#size;
  }

  /** The offset of the latest record of the key `bytes[from, to)`, or -1 if it has none. */
  latest(bytes: Uint8Array, from: number, to: number): number {
    const slot = this.#find(bytes, from, to, hashBytes(bytes, from, to));
    return this.#at[slot] === EMPTY ? -1 : this.#offsets[slot]!;
  }

  /**
   * Starts a batch: its keys are then added one by one (`add`), and `endBatch` keeps them, or
   * drops them all when its new keys would take the map past its capacity. A batch is never
   * split (the cleaning then ends at a batch boundary), and an empty map takes any batch: every
   * cleaning makes progress.
   */
  startBatch(records: number): void {
    // Room for every record of the batch as a new key, at most half full: no growth mid-batch,
    // so the undo below finds its slots where it left them.
    while ((this.#size + records) * 2 > this.#hashes.length) this.#grow();
    this.#added.length = 0;
    this.#replaced.length = 0;
  }

  /** The record at `offset` whose key is `bytes[from, to)` (in the batch `startBatch` began). */
  add(bytes: Uint8Array, from: number, to: number, offset: number): void {
    const hash = hashBytes(bytes, from, to);
    const slot = this.#find(bytes, from, to, hash);
    if (this.#at[slot] !== EMPTY) {
      this.#replaced.push(slot, this.#offsets[slot]!);
      this.#offsets[slot] = offset;
      return;
    }
    const length = to - from;
    if (this.#arenaUsed + length > this.#arena.length) {
      const bigger = new Uint8Array(Math.max(this.#arena.length * 2, this.#arenaUsed + length));
      bigger.set(this.#arena.subarray(0, this.#arenaUsed));
      this.#arena = bigger;
    }
    this.#arena.set(bytes.subarray(from, to), this.#arenaUsed);
    this.#hashes[slot] = hash;
    this.#at[slot] = this.#arenaUsed;
    this.#lengths[slot] = length;
    this.#offsets[slot] = offset;
    this.#arenaUsed += length;
    this.#size++;
    this.#added.push(slot);
  }

  /** Keeps the batch's keys (true), or undoes them (false) if its new keys do not fit. */
  endBatch(): boolean {
    let extra = 0;
    for (const slot of this.#added) extra += this.#lengths[slot]! + MAP_ENTRY_OVERHEAD;
    const before = this.#size - this.#added.length;
    if (extra > 0 && before > 0 && this.#bytes + extra > this.#capacity) {
      // Newest first: a slot freed is never on the probe path of a key added before it.
      for (let i = this.#added.length - 1; i >= 0; i--) {
        const slot = this.#added[i]!;
        this.#arenaUsed -= this.#lengths[slot]!;
        this.#at[slot] = EMPTY;
        this.#size--;
      }
      for (let i = this.#replaced.length - 2; i >= 0; i -= 2)
        this.#offsets[this.#replaced[i]!] = this.#replaced[i + 1]!;
      return false;
    }
    this.#bytes += extra;
    return true;
  }

  /** The slot holding the key, or the free slot where it would go. */
  #find(bytes: Uint8Array, from: number, to: number, hash: number): number {
    const length = to - from;
    const arena = this.#arena;
    for (let slot = hash & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const at = this.#at[slot]!;
      if (at === EMPTY) return slot;
      if (this.#hashes[slot] !== hash || this.#lengths[slot] !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (arena[at + i] !== bytes[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }

  #grow(): void {
    const hashes = this.#hashes;
    const at = this.#at;
    const lengths = this.#lengths;
    const offsets = this.#offsets;
    const size = hashes.length * 2;
    this.#mask = size - 1;
    this.#hashes = new Int32Array(size);
    this.#at = new Int32Array(size).fill(EMPTY);
    this.#lengths = new Int32Array(size);
    this.#offsets = new Float64Array(size);
    for (let old = 0; old < hashes.length; old++) {
      if (at[old] === EMPTY) continue;
      let slot = hashes[old]! & this.#mask;
      while (this.#at[slot] !== EMPTY) slot = (slot + 1) & this.#mask;
      this.#hashes[slot] = hashes[old]!;
      this.#at[slot] = at[old]!;
      this.#lengths[slot] = lengths[old]!;
      this.#offsets[slot] = offsets[old]!;
    }
  }
}
