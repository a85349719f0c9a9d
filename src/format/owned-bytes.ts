/**
 * Copies of the caller's byte inputs, taken when `log.append()` is called. The batch is encoded
 * later, when its group runs: without a copy a buffer the caller overwrites, shrinks (a resizable
 * `ArrayBuffer`) or transfers meanwhile would change, cut short or break the record.
 *
 * Small inputs are carved out of shared slabs, as Node's `Buffer` pool does: a copy costs one
 * view and one `set`, not one allocation each (a `slice()` per 100 B value measured 0.65 µs
 * against under 0.1 µs). A slab is never reused: it is garbage once every copy in it is, so no copy
 * can be overwritten while a group still has to encode it.
 */

/**
 * Bytes of one slab: below glibc's mmap threshold (128 KiB), so a slab comes from memory the
 * allocator already touched rather than fresh pages that fault on first write.
 */
const SLAB_BYTES = 64 * 1024;
/** Inputs larger than this get memory of their own: an eighth of a slab wastes at most that much at a slab's end. */
const SLAB_INPUT_MAX = SLAB_BYTES / 8;

/** One empty array for every empty input: nothing of the caller's is kept, even for a length-tracking view. */
const EMPTY = new Uint8Array(0);

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as { at(this: Uint8Array, index: number): unknown };
const typedArrayAt = typedArrayProto.at;

/**
 * Throws a TypeError naming the input if `value` (of length 0) views a detached (transferred)
 * `ArrayBuffer`, or a resizable one shrunk below the view: both read as length 0, and written as
 * an empty value they would be a record nobody appended. `at` validates the view and throws for
 * exactly those (Node 20 has no `ArrayBuffer.prototype.detached`).
 */
export function checkAttached(value: Uint8Array, name: () => string): void {
  try {
    typedArrayAt.call(value, 0);
  } catch {
    throw new TypeError(
      `${name()} is a view of a detached (transferred) ArrayBuffer, or of a resizable one shrunk below it: its bytes are gone`,
    );
  }
}

/**
 * A copy of the first `length` bytes of `value` (its length, read once by the caller) that no one
 * else holds. `value` must be a live view: the caller checked it is not detached.
 */
export function ownedCopy(value: Uint8Array, length: number): Uint8Array {
  if (length === 0) return EMPTY;
  let copy: Uint8Array;
  if (length > SLAB_INPUT_MAX) {
    copy = new Uint8Array(length);
  } else {
    if (length > SLAB_BYTES - used) {
      slab = new ArrayBuffer(SLAB_BYTES);
      used = 0;
    }
    copy = new Uint8Array(slab, used, length);
    used += length;
  }
  // `set` reads the source's internal slots (not a subclass's getters); `length` was read with
  // them too, so the source cannot be longer than the copy.
  copy.set(value);
  return copy;
}
