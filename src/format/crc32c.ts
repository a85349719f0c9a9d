/*
 * CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected as 0x82F63B78), the checksum of record
 * batch v2 (Kafka's `Crc32C`). Check value: CRC-32C of the ASCII bytes `123456789` = 0xE3069283.
 *
 * The pure-JS path is slicing-by-16 over sixteen 256-entry tables (below), so the codec runs in a
 * browser. It is pagelog's own, not a dependency's: SheetJS `crc-32` (the runtime dependency
 * until this was written) is a CommonJS module whose string variants and wrapper cost the
 * browser bundle about 1 KB gzipped for the one function used here; this one runs as fast.
 *
 * In Node, pagelog's Node entry installs a native CRC-32C when its optional dependency
 * (`@node-rs/crc32`) is there and passes a self-test (crc32c-accelerator.ts): from
 * {@link Crc32cInUse.fromBytes} up `crc32c` calls it, below that the table, which is as fast or
 * faster on short inputs (a call into native code costs more than the table's few hundred bytes).
 * Every encode/validate/decode function also takes an optional {@link Crc32c} of the caller's.
 */
/** A CRC-32C function: the checksum of `bytes` as an unsigned 32-bit integer. */
export type Crc32c = (bytes: Uint8Array) => number;

/**
 * The pure-JS CRC-32C for every length: what a browser runs, and what a native one is checked
 * against. Slicing-by-16: sixteen bytes per step, the first four folded into the register, and
 * the step's sixteen table lookups independent of each other, so they overlap in the CPU; the
 * tail goes a byte at a time.
 */
export const tableCrc32c: Crc32c = sliceBy16();

type Sixteen<T> = [T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T];

/**
 * Builds the sixteen tables and returns the function that reads them. `T[k][b]` is the register
 * after byte `b` followed by `k` zero bytes: table 0 is the byte-at-a-time table of the reflected
 * polynomial, table k is table k-1 advanced by one more zero byte. Built once at load (4,096
 * entries, well under a millisecond) rather than shipped as 16 KB of literals. The tables are
 * `const`s of this function's scope on purpose: as module-level bindings (which a bundler turns
 * into `var`s) V8 ran the loop at half the speed (1.2 against 2.2 GB/s, measured).
 */
function sliceBy16(): Crc32c {
  const tables: Int32Array[] = [new Int32Array(256)];
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    tables[0]![b] = c;
  }
  for (let k = 1; k < 16; k++) tables[k] = tables[k - 1]!.map((v) => (v >>> 8) ^ tables[0]![v & 0xff]!);
  const [T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15] = tables as Sixteen<Int32Array>;
  return (bytes) => {
    let c = -1;
    let i = 0;
    for (const end = bytes.length - 15; i < end;) {
      c =
        T15[bytes[i++]! ^ (c & 0xff)]! ^
        T14[bytes[i++]! ^ ((c >>> 8) & 0xff)]! ^
        T13[bytes[i++]! ^ ((c >>> 16) & 0xff)]! ^
        T12[bytes[i++]! ^ (c >>> 24)]! ^
        T11[bytes[i++]!]! ^
        T10[bytes[i++]!]! ^
        T9[bytes[i++]!]! ^
        T8[bytes[i++]!]! ^
        T7[bytes[i++]!]! ^
        T6[bytes[i++]!]! ^
        T5[bytes[i++]!]! ^
        T4[bytes[i++]!]! ^
        T3[bytes[i++]!]! ^
        T2[bytes[i++]!]! ^
        T1[bytes[i++]!]! ^
        T0[bytes[i++]!]!;
    }
    while (i < bytes.length) c = (c >>> 8) ^ T0[(c ^ bytes[i++]!) & 0xff]!;
    return ~c >>> 0;
  };
}

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
  label: "pagelog (pure JS)",
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
export const crc32c: Crc32c = (bytes) => (bytes.length >= nativeFrom ? native(bytes) : tableCrc32c(bytes));

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
