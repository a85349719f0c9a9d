/**
 * Kafka's segment file names: the base offset, zero-padded to 20 digits, then the suffix
 * (`00000000000000000000.log`, `.index`, `.timeindex`). Twenty digits hold any int64 offset, and
 * the padding makes a directory listing sort in offset order.
 */
import { joinPath } from "../storage/paths.js";

export const LOG_SUFFIX = ".log";
export const INDEX_SUFFIX = ".index";
export const TIME_INDEX_SUFFIX = ".timeindex";
const DIGITS = 20;

/** `00000000000000000042` for 42. */
export function offsetName(baseOffset: number): string {
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0)
    throw new RangeError(`base offset must be a non-negative safe integer, got ${baseOffset}`);
  return String(baseOffset).padStart(DIGITS, "0");
}

/** The path of a segment file inside a partition directory. */
export function segmentFilePath(dir: string, baseOffset: number, suffix: string): string {
  return joinPath(dir, offsetName(baseOffset) + suffix);
}

/** Parses a segment file name into its base offset and suffix, or undefined if it is not one. */
export function parseSegmentFileName(name: string): { baseOffset: number; suffix: string } | undefined {
  const baseOffset = segmentBaseOf(name);
  return baseOffset === undefined ? undefined : { baseOffset, suffix: name.slice(DIGITS) };
}

/** Whether `name`, a `.` after 20 characters, ends in one of the three suffixes and nothing more. */
function hasSegmentSuffix(name: string, suffix: string | undefined): boolean {
  const length = name.length - DIGITS;
  if (suffix !== undefined) return length === suffix.length && name.endsWith(suffix);
  return (
    (length === LOG_SUFFIX.length && name.endsWith(LOG_SUFFIX)) ||
    (length === INDEX_SUFFIX.length && name.endsWith(INDEX_SUFFIX)) ||
    (length === TIME_INDEX_SUFFIX.length && name.endsWith(TIME_INDEX_SUFFIX))
  );
}

/**
 * The base offset a segment file's name says (20 digits, then `.log`, `.index` or `.timeindex`),
 * or undefined if it is not one; with `suffix`, only a file of that kind. Allocates nothing: a
 * clean open parses every name of a partition of many segments, and the listing is most of
 * what it costs.
 */
export function segmentBaseOf(name: string, suffix?: string): number | undefined {
  if (name.length <= DIGITS || name.charCodeAt(DIGITS) !== 46 /* . */ || !hasSegmentSuffix(name, suffix))
    return undefined;
  let baseOffset = 0;
  for (let i = 0; i < DIGITS; i++) {
    const digit = name.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    baseOffset = baseOffset * 10 + digit;
  }
  // Twenty digits hold any int64: past 2^53 the sum above is no longer exact.
  return Number.isSafeInteger(baseOffset) ? baseOffset : undefined;
}
