/**
 * CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), the checksum of record
 * batch v2 (Kafka's `Crc32C`). Check value: CRC-32C of the ASCII bytes `123456789` = 0xE3069283.
 *
 * The table is SheetJS `crc-32`'s pure-JS slice-by-16 implementation, so the codec runs in a
 * browser. In Node, pagelog's Node entry installs a native CRC-32C when its optional dependency
 * (`@node-rs/crc32`) is there and passes a self-test (crc32c-accelerator.ts): from
 * {@link Crc32cInUse.fromBytes} up `crc32c` calls it, below that the table, which is as fast or
 * faster on short inputs (a call into native code costs more than the table's few hundred bytes).
 * Every encode/validate/decode function also takes an optional {@link Crc32c} of the caller's.
 */
// The explicit `.js` matters: crc-32 has no `exports` map, and the bare subpath breaks in ESM.
import CRC32C from "crc-32/crc32c.js";

/** A CRC-32C function: the checksum of `bytes` as an unsigned 32-bit integer. */
export type Crc32c = (bytes: Uint8Array) => number;

/** The pure-JS table, for every length: what a browser runs, and what a native one is checked against. */
export const tableCrc32c: Crc32c = (bytes) => CRC32C.buf(bytes) >>> 0;

/** Which CRC-32C `crc32c` runs in this realm (and this copy of pagelog). */
export interface Crc32cInUse {
  /** `"js"`: the bundled table at every length. `"native"`: a native CRC-32C from `fromBytes` up. */
  readonly kind: "js" | "native";
  /** Which implementation, with its version where known (`@node-rs/crc32 1.10.8`). */
  readonly label: string;
  /** The shortest input the native one is called on (the table below it); undefined for `"js"`. */
  readonly fromBytes: number | undefined;
  /** Why pagelog runs the table when it looked for a native one (missing, failed its self-test). */
  readonly fallback: string | undefined;
}

const TABLE_IN_USE: Crc32cInUse = {
  kind: "js",
  label: "crc-32 (pure JS)",
  fromBytes: undefined,
  fallback: undefined,
};

// Module state, set once by the Node entry (or the bench): the hot path reads two variables.
let native: Crc32c = tableCrc32c;
let nativeFrom = Number.POSITIVE_INFINITY;
let inUse: Crc32cInUse = TABLE_IN_USE;

/**
 * The default CRC-32C: the native one from its crossover length up where one is installed, the
 * pure-JS table otherwise. Returns an unsigned uint32.
 */
export const crc32c: Crc32c = (bytes) => (bytes.length >= nativeFrom ? native(bytes) : CRC32C.buf(bytes) >>> 0);

/** Which CRC-32C `crc32c` runs here, and from which length the native one takes over. */
export function crc32cInUse(): Crc32cInUse {
  return inUse;
}

/**
 * Makes `crc32c` call `fn` from `fromBytes` up (the caller has self-tested it), or go back to
 * the table for every length (`fn` undefined), noting `fallback` as the reason when given.
 */
export function setNativeCrc32c(
  fn: { crc: Crc32c; label: string; fromBytes: number } | undefined,
  fallback?: string,
): void {
  native = fn?.crc ?? tableCrc32c;
  nativeFrom = fn?.fromBytes ?? Number.POSITIVE_INFINITY;
  inUse =
    fn === undefined
      ? { ...TABLE_IN_USE, fallback }
      : { kind: "native", label: fn.label, fromBytes: fn.fromBytes, fallback: undefined };
}
