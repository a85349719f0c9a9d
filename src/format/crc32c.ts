/**
 * CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), the checksum of record
 * batch v2 (Kafka's `Crc32C`). Check value: CRC-32C of the ASCII bytes `123456789` = 0xE3069283.
 *
 * The default is SheetJS `crc-32`'s pure-JS slice-by-16 implementation, so the codec runs in a
 * browser. Every encode/validate/decode function takes an optional {@link Crc32c} so a caller can
 * plug in a faster native one (for example `@node-rs/crc32`'s `crc32c`) without pagelog
 * depending on it.
 */
// The explicit `.js` matters: crc-32 has no `exports` map, and the bare subpath breaks in ESM.
import CRC32C from "crc-32/crc32c.js";

/** A CRC-32C function: the checksum of `bytes` as an unsigned 32-bit integer. */
export type Crc32c = (bytes: Uint8Array) => number;

/** The default CRC-32C (pure JS). Returns an unsigned uint32. */
export const crc32c: Crc32c = (bytes) => CRC32C.buf(bytes) >>> 0;
