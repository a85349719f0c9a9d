/*
 * The cleaner's key → latest offset map, bounded as Kafka's dedupe buffer
 * (`log.cleaner.dedupe.buffer.size`): when it is full the cleaning stops at the batch where it
 * filled, cleans up to there, and the next cleaning goes on from that clean point.
 */
import type { DecodedRecord } from "../../format/index.js";
import { keyString } from "./cleaner-scan.js";

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
  addBatch(records: readonly DecodedRecord[], from: number): boolean {
    const entries: Array<[string, number]> = [];
    const fresh = new Set<string>();
    let extra = 0;
    for (const r of records) {
      if (r.key === null || r.offset < from) continue;
      const key = keyString(r.key);
      entries.push([key, r.offset]);
      if (!this.latest.has(key) && !fresh.has(key)) {
        fresh.add(key);
        extra += key.length + MAP_ENTRY_OVERHEAD;
      }
    }
    if (extra > 0 && this.latest.size > 0 && this.#bytes + extra > this.#capacity) return false;
    for (const [key, offset] of entries) this.latest.set(key, offset);
    this.#bytes += extra;
    return true;
  }
}
