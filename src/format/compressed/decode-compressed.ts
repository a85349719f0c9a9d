/**
 * The compressed batches' part, loaded on first use through door-compressed.ts: the records of a
 * gzip batch (codec 1, unzipped by gzip.ts, a door of its own), and the errors of the codecs
 * pagelog does not read (codecs.ts holds what they share with the encoder). pagelog's appends
 * write uncompressed batches only; a log copied from Kafka's, or a batch given to `decodeBatch`,
 * may hold compressed ones.
 */
import { corruptError as corrupt } from "../../errors.js";
import type { BatchHeader } from "../batch-header.js";
import { CompressionCodec, RECORDS_OFFSET } from "../batch-layout.js";
import { type DecodedRecord, readRecords } from "../record-codec.js";
import { DEFAULT_MAX_DECOMPRESSED_BYTES, loadGzip, unsupported } from "./codecs.js";

/**
 * The batch at the start of `bytes`, whose `header` was read and found compressed (its CRC
 * checked, or trusted): `PAGELOG_CORRUPT` for a codec Kafka does not define,
 * `PAGELOG_UNSUPPORTED_COMPRESSION` for snappy, lz4 and zstd, and gzip's records decompressed
 * within `maxDecompressedBytes` (undefined: the default).
 */
export async function decodeCompressed(
  bytes: Uint8Array,
  header: BatchHeader,
  maxDecompressedBytes: number | undefined,
): Promise<BatchHeader & { records: DecodedRecord[] }> {
  if (header.compression > CompressionCodec.ZSTD)
    throw corrupt(`batch at offset ${header.baseOffset} has unknown compression codec ${header.compression}`);
  if (header.compression !== CompressionCodec.GZIP) throw unsupported(header, "");
  const { gunzip } = await loadGzip();
  const plain = await gunzip(
    bytes.subarray(RECORDS_OFFSET, header.sizeInBytes),
    maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
  );
  return { ...header, records: readRecords(plain, 0, plain.length, header) };
}
