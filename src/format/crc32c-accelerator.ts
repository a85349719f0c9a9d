/*
 * Accepting a native CRC-32C as `crc32c`'s fast path. A wrong CRC-32C is the worst thing a log can
 * be given (every batch written with a checksum no reader accepts, or every good batch rejected
 * as corrupt), so a native one is used only after it gives the known answers and agrees with the
 * pure-JS table on pseudo-random buffers of many lengths and alignments, subarray views included
 * (a binding that read the whole ArrayBuffer rather than the view would fail there). Anything
 * else (missing, throwing, wrong) leaves the table in use and is reported once, by the caller's
 * `warn` (the Node entry's process warning). Browser-clean: the loading is the Node entry's.
 */
import { checkCrc32c } from "./checked/check-crc32c.js";
import { type Crc32c, setNativeCrc32c, tableCrc32c } from "./crc32c.js";
import { xorshift32Bytes } from "../util/xorshift32.js";

/**
 * From this many bytes up the native CRC-32C is called, the table below: the crossover measured
 * by `node bench/crc-crossover.mjs` (docs/performance.md, "The CRC-32C"): below it a call into
 * native code costs more than the table's work.
 */
export const NATIVE_CRC32C_FROM_BYTES = 512;

/** What a loader found: a CRC-32C to self-test, or why there is none (`quiet`: asked for, no warning). */
type NativeCrc32cLoad =
  { readonly crc: Crc32c; readonly label: string } | { readonly none: string; readonly quiet?: boolean };

/**
 * The lengths the agreement check runs: around the table's 16-byte steps and a native one's block
 * sizes (the `crc32c` crate under @node-rs/crc32 switches paths at 8 and 3 x 8 KiB). About 43 KB
 * in all: a few milliseconds at load, most of it the table's first, unoptimised calls.
 */
const AGREEMENT_LENGTHS = [
  0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025,
  4095, 4096, 4097, 8191, 8192, 8193, 24_577,
];
const POOL_BYTES = 24_577 + 8;

/** Deterministic pseudo-random bytes: the same buffers in every process (`seed | 1`: never zero). */
function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  return xorshift32Bytes(length, seed | 1);
}

/**
 * What is wrong with `crc` as a CRC-32C, or undefined when it gives the known answers and agrees
 * with the table on every length of AGREEMENT_LENGTHS, each a view at offset 0–7 into a larger
 * buffer whose bytes around the view differ.
 */
export function selfTestCrc32c(crc: Crc32c): string | undefined {
  try {
    checkCrc32c(crc, "the native CRC-32C");
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const pool = pseudoRandomBytes(POOL_BYTES, 0x9e3779b9);
  for (const [i, length] of AGREEMENT_LENGTHS.entries()) {
    const at = i % 8;
    const view = pool.subarray(at, at + length);
    let got: unknown;
    try {
      got = crc(view);
    } catch (err) {
      return `it threw on ${length} bytes at offset ${at}: ${err instanceof Error ? err.message : String(err)}`;
    }
    const want = tableCrc32c(view);
    if (typeof got !== "number" || got >>> 0 !== want)
      return `on ${length} bytes at offset ${at} it returned ${String(got)}, the table ${want}`;
  }
  return undefined;
}

/**
 * Installs what `load` finds as `crc32c`'s fast path from `fromBytes` up, when it passes
 * {@link selfTestCrc32c}; otherwise keeps the table and tells `warn` why (unless the caller asked
 * for the table). Returns the reason it fell back, or undefined when the native one is in use.
 */
export function installNativeCrc32c(
  load: () => NativeCrc32cLoad,
  warn: (reason: string) => void,
  fromBytes: number = NATIVE_CRC32C_FROM_BYTES,
): string | undefined {
  let found: NativeCrc32cLoad;
  try {
    found = load();
  } catch (err) {
    found = { none: `loading it threw: ${err instanceof Error ? err.message : String(err)}` };
  }
  if ("none" in found) {
    setNativeCrc32c(undefined, found.none);
    if (found.quiet !== true) warn(found.none);
    return found.none;
  }
  const problem = selfTestCrc32c(found.crc);
  if (problem !== undefined) {
    const reason = `${found.label} failed pagelog's self-test: ${problem}`;
    setNativeCrc32c(undefined, reason);
    warn(reason);
    return reason;
  }
  setNativeCrc32c({ crc: found.crc, label: found.label, fromBytes });
  return undefined;
}
