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
const NAME = /^(\d{20})\.(log|index|timeindex)$/;

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
  const m = NAME.exec(name);
  if (m === null) return undefined;
  const baseOffset = Number(m[1]);
  if (!Number.isSafeInteger(baseOffset)) return undefined;
  return { baseOffset, suffix: `.${m[2]}` };
}
