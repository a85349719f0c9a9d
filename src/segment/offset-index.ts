/**
 * The `.index` file: a sparse map from offsets to byte positions in the segment's `.log`.
 *
 *   entry (8 bytes, big-endian)
 *   +0  int32  relative offset   (a batch's LAST offset minus the segment's base offset)
 *   +4  int32  position          (byte position of that batch's first byte in the .log)
 *
 * An entry holds a batch's last offset and the batch's start position, as Kafka and the course
 * do. A floor lookup (largest entry offset <= target) therefore lands on a batch that ends at or
 * before the target, so scanning forward from its position always reaches the batch holding it.
 */
import type { StorageFile } from "../storage/storage.js";
import { IndexFile } from "./index-file.js";
import { loadPolicyHooks } from "./policies/door-policies.js";
import type { CoursePolicies, IndexEntry } from "../policies/policy-types.js";

export const OFFSET_INDEX_ENTRY_SIZE = 8;
const RELATIVE_OFFSET_AT = 0;
const POSITION_AT = 4;
/** Relative offsets and positions are int32s. */
export const MAX_INT32 = 0x7fffffff;

/** One `.index` entry, absolute: a batch's last offset and where that batch starts. */
export interface OffsetPosition {
  /** The batch's last offset. */
  readonly offset: number;
  /** Byte position of the batch in the `.log`. */
  readonly position: number;
}

/**
 * A segment's `.index` file (Kafka's OffsetIndex): a sparse map from offsets to byte positions in the `.log`, one
 * 8-byte entry (relative offset, position) every `indexIntervalBytes` of log.
 */
export class OffsetIndex extends IndexFile {
  /**
   * A reader's chapter 2 `lookup`, checked (policies/lookup-policy.ts, loaded by `open`), used by
   * `lookup()` instead of the binary search below.
   */
  readonly #byPolicy: ((index: OffsetIndex, target: number) => IndexEntry | null) | undefined;
  /** The entries as the course's plain array, for the policy; rebuilt when the index changes. */
  #policyEntries: { generation: number; entries: readonly IndexEntry[] } | undefined;

  /**
   * Opens the index in `file` for the segment at `baseOffset`, at most `maxIndexBytes` large; `lookupPolicy` is a
   * reader's course `lookup` used in place of the binary search. Entries are read on first use.
   */
  static async open(
    file: StorageFile,
    baseOffset: number,
    maxIndexBytes: number,
    lookupPolicy?: CoursePolicies["lookup"],
  ): Promise<OffsetIndex> {
    let byPolicy: ((index: OffsetIndex, target: number) => IndexEntry | null) | undefined;
    if (lookupPolicy !== undefined) {
      const { lookupByPolicy } = await loadPolicyHooks(); // a part of its own: see door-policies.ts
      byPolicy = (index, target) => lookupByPolicy(lookupPolicy, index, target);
    }
    const index = new OffsetIndex(file, baseOffset, maxIndexBytes, await file.size(), byPolicy);
    return index; // entries are read on first use (`load()`)
  }

  private constructor(
    file: StorageFile,
    baseOffset: number,
    maxIndexBytes: number,
    fileSize: number,
    byPolicy: ((index: OffsetIndex, target: number) => IndexEntry | null) | undefined,
  ) {
    super(file, baseOffset, OFFSET_INDEX_ENTRY_SIZE, maxIndexBytes, fileSize);
    this.#byPolicy = byPolicy;
  }

  /** The entry in `slot` (0-based). */
  entry(slot: number): OffsetPosition {
    const at = slot * OFFSET_INDEX_ENTRY_SIZE;
    return {
      offset: this.baseOffset + this.view.getInt32(at + RELATIVE_OFFSET_AT),
      position: this.view.getInt32(at + POSITION_AT),
    };
  }

  /** The last entry's offset, or -1 with no entries. */
  get lastOffset(): number {
    return this.entries === 0 ? -1 : this.entry(this.entries - 1).offset;
  }

  /**
   * Adds an entry for the batch ending at `offset` that starts at `position`. Offsets must
   * strictly increase (a second entry for one offset would make lookups ambiguous).
   */
  async append(offset: number, position: number): Promise<void> {
    await this.load(); // the checks below read the last entry
    const relative = offset - this.baseOffset;
    if (!(relative >= 0 && relative <= MAX_INT32))
      throw new RangeError(`offset ${offset} is outside this segment's int32 range`);
    if (!(position >= 0 && position <= MAX_INT32)) throw new RangeError(`position ${position} is outside int32`);
    if (this.entries > 0 && offset <= this.lastOffset) {
      throw new RangeError(`index entry offset ${offset} is not above the last entry ${this.lastOffset}`);
    }
    const entry = new Uint8Array(OFFSET_INDEX_ENTRY_SIZE);
    const view = new DataView(entry.buffer);
    view.setInt32(RELATIVE_OFFSET_AT, relative);
    view.setInt32(POSITION_AT, position);
    await this.appendEntry(entry);
  }

  /**
   * The entry with the largest offset `<= target`, or `{ offset: baseOffset, position: 0 }`
   * (the segment's start) when there is none.
   */
  lookup(target: number): OffsetPosition {
    if (this.#byPolicy !== undefined) return this.#byPolicy(this, target) ?? { offset: this.baseOffset, position: 0 };
    const slot = this.floorSlot(target, (s) => this.entry(s).offset);
    return slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
  }

  /** The entries as the course's plain array (frozen), for a reader's lookup; made once per change. */
  policyEntries(): readonly IndexEntry[] {
    const cached = this.#policyEntries;
    if (cached?.generation === this.generation) return cached.entries;
    const entries = Object.freeze(Array.from({ length: this.entries }, (_, slot) => Object.freeze(this.entry(slot))));
    this.#policyEntries = { generation: this.generation, entries };
    return entries;
  }

  /** The slot holding exactly `offset`, or -1. */
  slotOf(offset: number): number {
    const slot = this.floorSlot(offset, (s) => this.entry(s).offset);
    return slot >= 0 && this.entry(slot).offset === offset ? slot : -1;
  }

  /** Removes every entry whose offset is `>= offset`: their batches are being cut away. */
  async truncateTo(offset: number): Promise<void> {
    await this.load();
    await this.truncateToEntries(this.floorSlot(offset, (s) => this.entry(s).offset, true) + 1);
  }
}
