/*
 * The cleaner's key → latest offset map, bounded as Kafka's dedupe buffer
 * (`log.cleaner.dedupe.buffer.size`): when it is full the cleaning stops at the batch where it
 * filled, cleans up to there, and the next cleaning goes on from that clean point.
 */
import type { CleanerRecord } from "./cleaner-scan.js";

/**
 * What one entry is counted as: its key's bytes (one character each) plus this, an estimate of
 * a Map entry with its string and number (Kafka's SkimpyOffsetMap spends 24 bytes a key).
 */
export const MAP_ENTRY_OVERHEAD = 48;

export class OffsetMap {
  /** Key (one character per byte) → offset of its latest record seen. */
  readonly latest = new Map<string, number>();
  readonly #capacity: number;
  #bytes = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The bytes the entries are counted as (at most the capacity, or one batch's keys past it). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Adds the keyed records of one batch at or after `from`, or nothing (false) when its new
   * keys would take the map past its capacity. A batch is never split (the cleaning then ends at
   * a batch boundary), and an empty map takes any batch: every cleaning makes progress.
   */
  addBatch(records: readonly CleanerRecord[], from: number): boolean {
    // First what the batch's new keys would take (a key new twice in one batch counts once),
    // then, if they fit, the entries: no array of pairs, no set unless a key repeats unseen.
    let extra = 0;
    let fresh: Set<string> | undefined;
    for (const r of records) {
      const key = r.key;
      if (key === null || r.offset < from || this.latest.has(key)) continue;
      if (fresh?.has(key) === true) continue;
      (fresh ??= new Set()).add(key);
      extra += key.length + MAP_ENTRY_OVERHEAD;
    }
    if (extra > 0 && this.latest.size > 0 && this.#bytes + extra > this.#capacity) return false;
    for (const r of records) if (r.key !== null && r.offset >= from) this.latest.set(r.key, r.offset);
    this.#bytes += extra;
    return true;
  }
}
