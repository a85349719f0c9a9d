/*
 * Kafka's default partitioner for keyed records, bit for bit: `Utils.murmur2` of the key's bytes
 * (MurmurHash2, 32-bit, Kafka's seed), made positive by `Utils.toPositive` (the sign bit cleared,
 * not Math.abs), modulo the partition count. The Java client (BuiltInPartitioner.partitionForKey)
 * and kafkajs's DefaultPartitioner compute the same, so a key lands in the same partition here as
 * it would through either client.
 */

/** Kafka's seed for murmur2 (Utils.murmur2). */
const SEED = 0x9747b28c;
/** MurmurHash2's mixing constants, as Kafka spells them. */
const M = 0x5bd1e995;
const R = 24;
/** toPositive: Kafka clears the sign bit, so -1 maps to 2147483647, not 1. */
const POSITIVE_MASK = 0x7fffffff;

/** Kafka's `Utils.murmur2`: the signed 32-bit hash of `data` its default partitioner takes (seed 0x9747b28c). */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  // The tail of 1 to 3 bytes, falling through as Java's switch does.
  const rest = length & 3;
  if (rest > 0) {
    if (rest === 3) h ^= data[whole + 2]! << 16;
    if (rest >= 2) h ^= data[whole + 1]! << 8;
    h ^= data[whole]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: the sign bit cleared. */
function toPositive(n: number): number {
  return n & POSITIVE_MASK;
}

/**
 * The partition Kafka's default partitioner picks for a key of these bytes among `partitions`:
 * `toPositive(murmur2(key)) % partitions`, as the Java client and kafkajs's DefaultPartitioner.
 */
export function partitionForKey(key: Uint8Array, partitions: number): number {
  return toPositive(murmur2(key)) % partitions;
}
