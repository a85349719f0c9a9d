/**
 * Record batch v2, byte for byte (Kafka's `DefaultRecordBatch`, magic 2). All integers big-endian.
 *
 *   RecordBatch =>
 *     0  BaseOffset           int64    offset of the first record
 *     8  Length               int32    bytes after this field (total size = 12 + Length)
 *    12  PartitionLeaderEpoch int32    -1 when unknown
 *    16  Magic                int8     = 2
 *    17  CRC                  uint32   CRC-32C of bytes [21, 12 + Length): attributes to the end
 *    21  Attributes           int16    see below
 *    23  LastOffsetDelta      int32    last record's offset - BaseOffset
 *    27  BaseTimestamp        int64    first record's timestamp
 *    35  MaxTimestamp         int64    largest record timestamp (the append time under LogAppendTime)
 *    43  ProducerId           int64    -1 without idempotence
 *    51  ProducerEpoch        int16    -1
 *    53  BaseSequence         int32    -1
 *    57  RecordsCount         int32    number of records that follow
 *    61  Records              [Record] compressed as one stream when the codec bits say so
 *
 *   Attributes (int16):
 *     bits 0-2  compression: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd
 *     bit  3    timestamp type: 0 CreateTime, 1 LogAppendTime
 *     bit  4    transactional
 *     bit  5    control batch
 *     bit  6    delete horizon set (BaseTimestamp holds it; written by the log cleaner)
 *
 *   Record =>
 *     Length          varint   bytes after this field
 *     Attributes      int8     unused, 0
 *     TimestampDelta  varlong  timestamp - BaseTimestamp (may be negative)
 *     OffsetDelta     varint   offset - BaseOffset
 *     KeyLength       varint   -1 = null key
 *     Key             bytes
 *     ValueLength     varint   -1 = null value
 *     Value           bytes
 *     HeaderCount     varint
 *     Headers         [Header]
 *
 *   Header =>
 *     KeyLength    varint   never null
 *     Key          UTF-8
 *     ValueLength  varint   -1 = null value
 *     Value        bytes
 */

// Field offsets from the start of the batch.
export const BASE_OFFSET_OFFSET = 0;
export const LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;

/** Bytes of BaseOffset + Length: the part of a batch its Length does not count (Kafka's LOG_OVERHEAD). */
export const LOG_OVERHEAD = 12;
/** Size of the fixed batch header; also the smallest legal batch (Kafka's RECORD_BATCH_OVERHEAD). */
export const BATCH_HEADER_SIZE = 61;
/** The smallest legal Length field: a header with no records. */
export const MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD;
/** Bytes needed to see a batch's Length and Magic (Kafka's HEADER_SIZE_UP_TO_MAGIC). */
export const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1;
/** The CRC covers from the attributes to the end of the batch. */
export const CRC_COVERED_START = ATTRIBUTES_OFFSET;

/** The only magic (format version) pagelog reads and writes. */
export const MAGIC_V2 = 2;

// Attribute bits.
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

/** Compression codec ids (attribute bits 0-2). Ids 5-7 are not defined by Kafka. */
export const CompressionCodec = {
  NONE: 0,
  GZIP: 1,
  SNAPPY: 2,
  LZ4: 3,
  ZSTD: 4,
} as const;
export type CompressionCodec = (typeof CompressionCodec)[keyof typeof CompressionCodec];

/** Names of the codec ids, for error messages. */
export const COMPRESSION_NAMES: readonly string[] = ["none", "gzip", "snappy", "lz4", "zstd"];

/** Null key, value or header value: length -1. */
export const NULL_LENGTH = -1;
/** Value of the unused per-record attributes byte. */
export const RECORD_ATTRIBUTES = 0;
/** Size of the per-record attributes byte. */
export const RECORD_ATTRIBUTES_SIZE = 1;
/**
 * Smallest record body (after its Length): attributes (1) + five one-byte varints
 * (timestampDelta, offsetDelta, keyLength, valueLength, headerCount).
 */
export const MIN_RECORD_BODY_SIZE = 6;
/** Smallest whole record, its one-byte Length included. */
export const MIN_RECORD_SIZE = MIN_RECORD_BODY_SIZE + 1;

/** Defaults Kafka writes when a field has no value. */
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;

/** Largest Length field an int32 can hold. */
export const MAX_BATCH_LENGTH = 0x7fffffff;
