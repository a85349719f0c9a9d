/**
 * Kafka's variable-length integers (protobuf style, as `ByteUtils.writeVarint`/`writeVarlong`).
 *
 *   zigzag:   n ↦ (n << 1) ^ (n >> 63)      0 → 0, -1 → 1, 1 → 2, -2 → 3, …
 *   groups:   7 bits per byte, least significant group first; bit 7 (0x80) set on every byte
 *             except the last.
 *
 *   varint  (int32):  at most 5 bytes; the 5th byte carries bits 28–31, so it is ≤ 0x0f
 *   varlong (int64):  at most 10 bytes; the 10th byte carries bit 63, so it is ≤ 0x01
 *
 * Writers put bytes into a preallocated `Uint8Array` and return the next position. Readers work
 * on a {@link ByteCursor} (position advanced in place, no allocation per value) or, for callers
 * outside the hot path, through `decodeVarint`/`decodeVarlong` returning `{ value, position }`.
 *
 * Strictness: more groups than the type holds, or bits beyond 32/64 in the last group, is
 * `PAGELOG_CORRUPT`. A padded encoding such as `80 00` for 0 is accepted, as Kafka's
 * `ByteUtils.readVarint` accepts it: a Kafka reader would, so refusing it could reject a batch
 * that Kafka considers valid. pagelog's own writers always produce the shortest form.
 *
 * Varlongs decode to a JS `number` when they fit `Number.MAX_SAFE_INTEGER`; beyond that the
 * number readers throw `PAGELOG_CORRUPT` rather than round, and the `BigInt` variants handle
 * the full int64 range.
 */
import { corruptError as corrupt, type PagelogError } from "../errors.js";

/** Most bytes a zigzag varint (int32) can take. */
export const MAX_VARINT_BYTES = 5;
/** Most bytes a zigzag varlong (int64) can take. */
export const MAX_VARLONG_BYTES = 10;

/** Continuation bit: set on every byte of a varint except the last. */
const CONTINUATION = 0x80;
/** Payload bits of one byte. */
const GROUP_MASK = 0x7f;
/** Bits of payload per byte. */
const GROUP_BITS = 7;
/** Shift of the 5th varint byte: it may only carry bits 28–31. */
const LAST_VARINT_SHIFT = 28;
/** Largest legal 5th varint byte (4 payload bits, no continuation). */
const LAST_VARINT_MAX = 0x0f;
/** Largest legal 10th varlong byte (bit 63 only). */
const LAST_VARLONG_MAX = 0x01;
/** 2^32, to join two 32-bit halves into a number. */
const TWO_POW_32 = 4294967296;

/** Size thresholds of a zigzagged uint32: below 2^7 one byte, below 2^14 two, … */
const ONE_BYTE_LIMIT = 0x80;
const TWO_BYTE_LIMIT = 0x4000;
const THREE_BYTE_LIMIT = 0x200000;
const FOUR_BYTE_LIMIT = 0x10000000;

/** A read position over `bytes[pos, end)`; readers advance `pos`. */
export interface ByteCursor {
  readonly bytes: Uint8Array;
  pos: number;
  end: number;
}

function checkInt32(value: number, name: string): void {
  if ((value | 0) !== value) throw new RangeError(`${name} must be an int32, got ${value}`);
}

function checkSafeInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
}

// ---------------------------------------------------------------------------------------------
// sizes

/** Bytes the zigzag varint of an int32 takes (1–5). */
export function varintSize(value: number): number {
  const z = ((value << 1) ^ (value >> 31)) >>> 0;
  if (z < ONE_BYTE_LIMIT) return 1;
  if (z < TWO_BYTE_LIMIT) return 2;
  if (z < THREE_BYTE_LIMIT) return 3;
  if (z < FOUR_BYTE_LIMIT) return 4;
  return MAX_VARINT_BYTES;
}

/** Bytes the zigzag varlong of a safe integer takes (1–9; 10 only for values beyond ±2^62). */
export function varlongSize(value: number): number {
  if ((value | 0) === value) return varintSize(value);
  const hi = Math.floor(value / TWO_POW_32);
  const lo = value - hi * TWO_POW_32;
  return halvesSize(zigzagHi(hi, lo), zigzagLo(hi, lo));
}

/** Bytes the zigzag varlong of a full-range int64 takes (1–10). */
export function varlongSizeBigInt(value: bigint): number {
  const { hi, lo } = bigintHalves(value);
  return halvesSize(zigzagHi(hi, lo), zigzagLo(hi, lo));
}

function halvesSize(zhi: number, zlo: number): number {
  let size = 1;
  while (zhi !== 0 || zlo >= ONE_BYTE_LIMIT) {
    zlo = ((zlo >>> GROUP_BITS) | (zhi << (32 - GROUP_BITS))) >>> 0;
    zhi = zhi >>> GROUP_BITS;
    size++;
  }
  return size;
}

// ---------------------------------------------------------------------------------------------
// writers

/** Writes the zigzag varint of an int32 at `position`; returns the position after it. */
export function writeVarint32(bytes: Uint8Array, position: number, value: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0;
  while (z >= ONE_BYTE_LIMIT) {
    bytes[position++] = (z & GROUP_MASK) | CONTINUATION;
    z >>>= GROUP_BITS;
  }
  bytes[position++] = z;
  return position;
}

/**
 * Writes the zigzag varlong of a safe integer at `position`; returns the position after it.
 * Values that fit an int32 take the varint path (the bytes are the same).
 */
export function writeVarlong(bytes: Uint8Array, position: number, value: number): number {
  if ((value | 0) === value) return writeVarint32(bytes, position, value);
  // Two's-complement halves: value = hi * 2^32 + lo, lo in [0, 2^32). Exact for safe integers.
  const hi = Math.floor(value / TWO_POW_32);
  const lo = value - hi * TWO_POW_32;
  return writeHalves(bytes, position, zigzagHi(hi, lo), zigzagLo(hi, lo));
}

/** Writes the zigzag varlong of any int64 at `position`; returns the position after it. */
export function writeVarlongBigInt(bytes: Uint8Array, position: number, value: bigint): number {
  const { hi, lo } = bigintHalves(value);
  return writeHalves(bytes, position, zigzagHi(hi, lo), zigzagLo(hi, lo));
}

/** High 32 bits of zigzag(hi:lo), as uint32. */
function zigzagHi(hi: number, lo: number): number {
  return (((hi << 1) | (lo >>> 31)) ^ (hi >> 31)) >>> 0;
}

/** Low 32 bits of zigzag(hi:lo), as uint32. */
function zigzagLo(hi: number, lo: number): number {
  return ((lo << 1) ^ (hi >> 31)) >>> 0;
}

function bigintHalves(value: bigint): { hi: number; lo: number } {
  const v = BigInt.asIntN(64, value);
  if (v !== value) throw new RangeError(`value must be an int64, got ${value}`);
  return { hi: Number(BigInt.asIntN(32, v >> 32n)), lo: Number(BigInt.asUintN(32, v)) };
}

function writeHalves(bytes: Uint8Array, position: number, zhi: number, zlo: number): number {
  while (zhi !== 0 || zlo >= ONE_BYTE_LIMIT) {
    bytes[position++] = (zlo & GROUP_MASK) | CONTINUATION;
    zlo = ((zlo >>> GROUP_BITS) | (zhi << (32 - GROUP_BITS))) >>> 0;
    zhi = zhi >>> GROUP_BITS;
  }
  bytes[position++] = zlo;
  return position;
}

/**
 * The course's exercise shape (chapter 1 of the course): the zigzag varint of `value` as an array of
 * byte values. For an int32 these are exactly the bytes of a Kafka varint; for larger safe
 * integers, the bytes of a Kafka varlong (the two agree wherever both are defined), so one
 * function serves lengths, offset deltas and timestamp deltas.
 * Kafka: `ByteUtils.writeVarint` (and `writeVarlong`). It is `kafkaPolicies.writeVarint` of `pagelog/course`.
 *
 * Written plainly with `BigInt` as a reference answer, independent of the fast writers above;
 * a property test checks the two agree.
 */
export function writeVarint(value: number): number[] {
  checkSafeInteger(value, "value");
  const n = BigInt(value);
  let zigzag = n >= 0n ? n * 2n : -n * 2n - 1n;
  const out: number[] = [];
  while (zigzag >= 0x80n) {
    out.push(Number(zigzag % 0x80n) + 0x80);
    zigzag /= 0x80n;
  }
  out.push(Number(zigzag));
  return out;
}

// ---------------------------------------------------------------------------------------------
// readers

function truncated(cursor: ByteCursor, what: string): PagelogError {
  return corrupt(`truncated ${what} at byte ${cursor.pos} (input ends at ${cursor.end})`);
}

/** Reads a zigzag varint (int32) at `cursor.pos` and advances past it. */
export function readVarint(cursor: ByteCursor): number {
  const bytes = cursor.bytes;
  const end = cursor.end;
  let p = cursor.pos;
  if (p >= end) throw truncated(cursor, "varint");
  let b = bytes[p++]!;
  if (b < ONE_BYTE_LIMIT) {
    cursor.pos = p;
    return (b >>> 1) ^ -(b & 1);
  }
  let raw = b & GROUP_MASK;
  let shift = GROUP_BITS;
  for (;;) {
    if (p >= end) throw truncated(cursor, "varint");
    b = bytes[p++]!;
    if (shift === LAST_VARINT_SHIFT) {
      if (b > LAST_VARINT_MAX)
        throw corrupt(`varint longer than ${MAX_VARINT_BYTES} bytes or beyond 32 bits at byte ${cursor.pos}`);
      raw |= b << shift;
      break;
    }
    raw |= (b & GROUP_MASK) << shift;
    if (b < ONE_BYTE_LIMIT) break;
    shift += GROUP_BITS;
  }
  cursor.pos = p;
  return (raw >>> 1) ^ -(raw & 1);
}

/** Reads a varlong's zigzagged halves; leaves them in `halves` and advances the cursor. */
function readVarlongHalves(cursor: ByteCursor, halves: { hi: number; lo: number }): void {
  const bytes = cursor.bytes;
  const end = cursor.end;
  let p = cursor.pos;
  let lo = 0;
  let hi = 0;
  for (let i = 0; ; i++) {
    if (p >= end) throw truncated(cursor, "varlong");
    const b = bytes[p++]!;
    const group = b & GROUP_MASK;
    const shift = i * GROUP_BITS;
    if (i === MAX_VARLONG_BYTES - 1) {
      if (b > LAST_VARLONG_MAX)
        throw corrupt(`varlong longer than ${MAX_VARLONG_BYTES} bytes or beyond 64 bits at byte ${cursor.pos}`);
      hi |= b << (shift - 32);
    } else if (shift + GROUP_BITS <= 32) {
      lo |= group << shift;
    } else if (shift < 32) {
      // The group straddles the halves: low bits end lo, high bits start hi.
      lo |= group << shift;
      hi |= group >>> (32 - shift);
    } else {
      hi |= group << (shift - 32);
    }
    if (b < ONE_BYTE_LIMIT) break;
  }
  cursor.pos = p;
  halves.hi = hi >>> 0;
  halves.lo = lo >>> 0;
}

const scratch = { hi: 0, lo: 0 };

/**
 * Reads a zigzag varlong at `cursor.pos` as a number and advances past it. A value beyond
 * ±(2^53 − 1) is `PAGELOG_CORRUPT` (it would not survive as a number); use
 * {@link readVarlongBigInt} for the full range.
 */
export function readVarlong(cursor: ByteCursor): number {
  const bytes = cursor.bytes;
  const p = cursor.pos;
  if (p < cursor.end) {
    const b = bytes[p]!;
    if (b < ONE_BYTE_LIMIT) {
      cursor.pos = p + 1;
      return (b >>> 1) ^ -(b & 1);
    }
  }
  const start = cursor.pos;
  readVarlongHalves(cursor, scratch);
  const { hi, lo } = scratch;
  // unzigzag on the halves: (z >>> 1) ^ -(z & 1)
  const negative = lo & 1;
  let vlo = ((lo >>> 1) | (hi << 31)) >>> 0;
  let vhi = hi >>> 1;
  if (negative) {
    vlo = ~vlo >>> 0;
    vhi = ~vhi;
  }
  // vhi * 2^32 is exact; the sum rounds only when |value| > 2^53, which isSafeInteger catches.
  const value = (vhi | 0) * TWO_POW_32 + vlo;
  if (!Number.isSafeInteger(value)) {
    throw corrupt(`varlong at byte ${start} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return value;
}

/** Reads a zigzag varlong at `cursor.pos` as a full-range int64 `bigint` and advances past it. */
export function readVarlongBigInt(cursor: ByteCursor): bigint {
  const halves = { hi: 0, lo: 0 };
  readVarlongHalves(cursor, halves);
  const z = (BigInt(halves.hi) << 32n) | BigInt(halves.lo);
  return (z >> 1n) ^ -(z & 1n);
}

/** A decoded value and the position just after it. */
export interface Decoded<T> {
  value: T;
  position: number;
}

function cursorAt(bytes: Uint8Array, position: number, end: number): ByteCursor {
  if (!Number.isInteger(position) || position < 0)
    throw new RangeError(`position must be a non-negative integer, got ${position}`);
  return { bytes, pos: position, end: Math.min(end, bytes.length) };
}

/** Decodes a zigzag varint (int32) at `position`, reading no further than `end`. */
export function decodeVarint(bytes: Uint8Array, position: number, end: number = bytes.length): Decoded<number> {
  const cursor = cursorAt(bytes, position, end);
  const value = readVarint(cursor);
  return { value, position: cursor.pos };
}

/** Decodes a zigzag varlong at `position` as a safe integer, reading no further than `end`. */
export function decodeVarlong(bytes: Uint8Array, position: number, end: number = bytes.length): Decoded<number> {
  const cursor = cursorAt(bytes, position, end);
  const value = readVarlong(cursor);
  return { value, position: cursor.pos };
}

/** Decodes a zigzag varlong at `position` as a full-range `bigint`. */
export function decodeVarlongBigInt(bytes: Uint8Array, position: number, end: number = bytes.length): Decoded<bigint> {
  const cursor = cursorAt(bytes, position, end);
  const value = readVarlongBigInt(cursor);
  return { value, position: cursor.pos };
}

/** Encodes a zigzag varint (int32) into a new array of its bytes. Checks the argument. */
export function encodeVarint(value: number): Uint8Array {
  checkInt32(value, "value");
  const out = new Uint8Array(varintSize(value));
  writeVarint32(out, 0, value);
  return out;
}

/** Encodes a zigzag varlong (safe integer) into a new array of its bytes. Checks the argument. */
export function encodeVarlong(value: number): Uint8Array {
  checkSafeInteger(value, "value");
  const out = new Uint8Array(varlongSize(value));
  writeVarlong(out, 0, value);
  return out;
}
