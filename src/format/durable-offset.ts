/**
 * The durable-offset file a writer keeps in each partition directory (`pagelog-durable-offset`):
 * the offset below which every record is durable, published after each flush for read-only
 * openers in other processes. 16 bytes, big-endian, as Kafka's own fixed-size files are:
 *
 *   Magic   => int32   0x706c646f ("pldo"): not some other file's bytes
 *   Offset  => int64   every record below it was fsynced (with its directory entry) before this was written
 *   Crc     => uint32  CRC-32C of the 12 bytes before it: a torn write reads as no file
 *
 * It is rewritten in place and never fsynced (a reader sees the page cache, and what it vouches
 * for is durable before it is written): a reader that finds it torn, short or foreign falls back
 * to the recovery-point checkpoint, so a bad file costs latency, never a record above durable.
 */
import { crc32c } from "./crc32c.js";

export const DURABLE_OFFSET_FILE = "pagelog-durable-offset";
export const DURABLE_OFFSET_BYTES = 16;
const MAGIC = 0x706c646f;
const MAGIC_AT = 0;
const OFFSET_AT = 4;
const CRC_AT = 12;

/** The file's 16 bytes for `offset` (a safe integer ≥ 0). */
export function encodeDurableOffset(offset: number): Uint8Array {
  const bytes = new Uint8Array(DURABLE_OFFSET_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(MAGIC_AT, MAGIC);
  view.setBigInt64(OFFSET_AT, BigInt(offset));
  view.setUint32(CRC_AT, crc32c(bytes.subarray(0, CRC_AT)));
  return bytes;
}

/** The offset the bytes hold, or undefined if they are not a whole, valid durable-offset file. */
export function decodeDurableOffset(bytes: Uint8Array): number | undefined {
  if (bytes.length !== DURABLE_OFFSET_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(MAGIC_AT) !== MAGIC) return undefined;
  if (view.getUint32(CRC_AT) !== crc32c(bytes.subarray(0, CRC_AT))) return undefined;
  const offset = view.getBigInt64(OFFSET_AT);
  if (offset < 0n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(offset);
}
