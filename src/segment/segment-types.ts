/**
 * The types a `Segment` takes and returns, apart from the class so that its parts
 * (segment-load.ts, segment-read.ts, segment-write.ts) can name them; segment.ts re-exports them.
 */
import type { Crc32c } from "../format/index.js";
import type { ScanStop } from "./batch-scanner.js";
import type { CoursePolicies } from "../policies/policy-types.js";

/**
 * How a `Segment` indexes, limits and checks its batches (the `LogOptions` a Log hands it). All three sizes are
 * required.
 */
export interface SegmentOptions {
  /** Bytes between sparse index entries (Kafka's `index.interval.bytes`). */
  readonly indexIntervalBytes: number;
  /** Largest index file (Kafka's `segment.index.bytes`); the Log rolls when an index is full. */
  readonly maxIndexBytes: number;
  /** Largest batch, log overhead included (Kafka's `max.message.bytes`). */
  readonly maxBatchBytes: number;
  /** CRC-32C implementation. @defaultValue the bundled pure-JS one */
  readonly crc32c?: Crc32c;
  /**
   * A reader's `lookup` (chapter 2) and `recover` (chapter 4), used in place of pagelog's own
   * in index lookups and recovery; their answers are checked (src/segment/policies/).
   */
  readonly policies?: Pick<Partial<CoursePolicies>, "lookup" | "recover">;
  /**
   * A compacted log's cleaned part: a batch that ends below `below` may start past the offset
   * after the previous batch (the cleaner dropped every record between). Read at every check, so
   * the log can move it as it cleans. @defaultValue none: every batch continues the previous one
   */
  readonly offsetGaps?: { readonly below: number };
}

/** Options of `Segment.recover`. */
export interface RecoverOptions {
  /** Records below this offset are acknowledged: damage before it is `PAGELOG_CORRUPT`. */
  readonly minNextOffset?: number;
  /** End the walk before the first batch that reaches this offset (an interrupted cut's target). */
  readonly endOffset?: number;
}

/** What `recover()` found and did. */
export interface SegmentRecovery {
  /** Bytes of whole, valid batches from the start of the log. */
  readonly validBytes: number;
  /** Bytes cut away after them. */
  readonly truncatedBytes: number;
  /** Last offset of the last valid batch (`baseOffset - 1` if none). */
  readonly lastOffset: number;
  /** Largest batch maxTimestamp seen, or -1. */
  readonly maxTimestamp: number;
  /** Why the walk stopped where it did (reason undefined: clean end of file). */
  readonly stop: ScanStop;
}

/** Raw batches returned by `read`. */
export interface SegmentRead {
  /** Whole batches, back to back, exactly as on disk (a Kafka Fetch response's records). */
  readonly bytes: Uint8Array;
  /** Byte position of the first batch in the `.log`. */
  readonly position: number;
  /** Base offset of the first batch (may be below the offset asked for). */
  readonly firstOffset: number;
  /** Last offset of the last batch. */
  readonly lastOffset: number;
}
