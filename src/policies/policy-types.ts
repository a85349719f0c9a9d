/*
 * The shapes of the course's four storage exercises ("Build your own Kafka"), exactly as the
 * course's engine calls them through one policies object. Plain data in, plain data out, so a
 * reader's answer needs nothing from pagelog.
 */

/** One `.index` entry: a batch's *last* offset and the byte position where that batch starts. */
export interface IndexEntry {
  /** The batch's last offset. */
  readonly offset: number;
  /** Byte position in the `.log` where that batch starts. */
  readonly position: number;
}

/** What retention knows about one segment, oldest first. */
export interface RetentionSegment {
  /** The segment's first offset (its file name). */
  readonly baseOffset: number;
  /** Bytes in its `.log`. */
  readonly sizeBytes: number;
  /** Largest record timestamp in it (ms), or -1 if it has none. */
  readonly largestTimestamp: number;
}

/** Kafka's `retention.ms` and `retention.bytes`; `-1` turns a limit off. */
export interface RetentionConfig {
  /** Kafka's `retention.ms`: delete segments whose newest record is older than this; -1 is off. */
  readonly retentionMs: number;
  /** Kafka's `retention.bytes`: delete the oldest segments while the log is larger than this; -1 is off. */
  readonly retentionBytes: number;
}

/** What `recover` gets besides the bytes (see `recoverHelpers` in pagelog/course). */
export interface RecoverHelpers {
  /** The big-endian signed int32 at `log[pos, pos + 4)`. RangeError if those bytes are not all in `log`. */
  readInt32(log: Uint8Array, pos: number): number;
  /**
   * Whether `log[start, end)` is one whole batch with a valid CRC: at least a 61-byte header, its
   * length field saying it ends at `end`, and a stored CRC (uint32 at `start + 17`) equal to the
   * CRC-32C of `log[start + 21, end)`. False for any other range inside the log (a zeroed tail, a
   * negative or too-small length), as the course's helper answers; it does not look at the magic
   * byte (the CRC does not cover it). RangeError only for a range past the end of the log (check
   * that a batch fits first) or a position that is not a whole number.
   */
  crcMatches(start: number, end: number): boolean;
}

/** The four functions a reader of the course writes, one per chapter. */
export interface CoursePolicies {
  /** Chapter 1: the zigzag varint of `value`, 7 bits per byte, low bits first. Kafka: `ByteUtils.writeVarint`. */
  writeVarint(value: number): number[];
  /** Chapter 2: the entry with the largest `offset <= target`, or null; a binary search. Kafka: `OffsetIndex.lookup`. */
  lookup(index: readonly IndexEntry[], target: number): IndexEntry | null;
  /** Chapter 3: how many of the oldest segments retention deletes. Kafka: `UnifiedLog.deleteOldSegments`. */
  segmentsToDelete(segments: readonly RetentionSegment[], now: number, config: RetentionConfig): number;
  /** Chapter 4: how many bytes at the start of a segment are whole, valid record batches. Kafka: `LogSegment.recover`. */
  recover(log: Uint8Array, helpers: RecoverHelpers): number;
}

/** The policies' names, in chapter order. */
export const POLICY_NAMES = ["writeVarint", "lookup", "segmentsToDelete", "recover"] as const;
/** The name of one course function: `writeVarint`, `lookup`, `segmentsToDelete` or `recover`. */
export type PolicyName = (typeof POLICY_NAMES)[number];
