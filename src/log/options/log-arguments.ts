/**
 * Argument checks shared by the Log's calls, and `batchSize` for walking back-to-back batches.
 * A bad argument is a TypeError thrown before anything is queued or written.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { LENGTH_OFFSET, LOG_OVERHEAD } from "../../format/index.js";
import { describeValue } from "../../format/record-codec.js";

/** Whole size of the batch at `position` in a buffer of back-to-back batches. */
export function batchSize(bytes: Uint8Array, position: number): number {
  return (
    LOG_OVERHEAD + new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(position + LENGTH_OFFSET)
  );
}

export function checkOffset(offset: unknown, name: string): asserts offset is number {
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
    throw new TypeError(`${name} must be a non-negative safe integer, got ${describeValue(offset)}`);
  }
}

/** An optional positive safe integer option, or `fallback` when undefined. */
export function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`${name} must be a positive safe integer, got ${describeValue(value)}`);
  return value;
}

/** An optional boolean option: false when undefined. */
export function booleanOption(value: unknown, name: string): boolean {
  if (value !== undefined && typeof value !== "boolean")
    throw new TypeError(`${name} must be a boolean, got ${describeValue(value)}`);
  return value === true;
}

export function outOfRange(offset: number, start: number, end: number): PagelogError {
  return new PagelogError(`offset ${offset} is out of range [${start}, ${end}]`, ErrorCode.OFFSET_OUT_OF_RANGE);
}
