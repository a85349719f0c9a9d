/** The record batch v2 codec: Kafka's on-disk bytes, CRC-32C and varints. Browser-safe (no `node:`). */
export * from "./batch-layout.js";
export { readBatchHeader } from "./batch-header.js";
export type { BatchHeader, BatchValidation, InvalidBatchReason, ValidateBatchOptions } from "./batch-header.js";
export { crc32c, crc32cInUse } from "./crc32c.js";
export type { Crc32c, Crc32cInUse } from "./crc32c.js";
export { DEFAULT_MAX_DECOMPRESSED_BYTES } from "./compressed/codecs.js";
export type { DecodeBatchOptions, DecodedBatch, EncodeBatchAsyncOptions, EncodeBatchOptions } from "./record-batch.js";
export type { BytesInput, DecodedHeader, DecodedRecord, HeadersInput, RecordInput } from "./record-codec.js";
export {
  MAX_VARINT_BYTES,
  MAX_VARLONG_BYTES,
  decodeVarint,
  decodeVarlong,
  decodeVarlongBigInt,
  encodeVarint,
  encodeVarlong,
  readVarint,
  readVarlong,
  readVarlongBigInt,
  varintSize,
  varlongSize,
  varlongSizeBigInt,
  writeVarint,
  writeVarint32,
  writeVarlong,
  writeVarlongBigInt,
} from "./varint.js";
export type { ByteCursor, Decoded } from "./varint.js";
