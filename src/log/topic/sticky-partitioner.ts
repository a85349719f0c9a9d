/*
 * Where a record with no key and no partition goes: Kafka's sticky rule, as the Java producer's
 * BuiltInPartitioner (Kafka 3.3 on, KIP-794) applies it without its adaptive part. Keyless records
 * stick to one partition, picked uniformly at random, until `stickyBatchBytes` of them (Kafka's
 * `batch.size`, 16 KiB) went there; the record that reaches it is the last of the run, and the
 * next keyless record picks a partition again, at random (it may pick the same one). So a topic
 * gets whole batches of keyless records, spread evenly over time, rather than one record per
 * partition per call. (kafkajs's DefaultPartitioner sends keyless records round robin instead:
 * the rule of Kafka's clients before 2.4.)
 *
 * Not taken: the adaptive weighting by the brokers' queue sizes (`partitioner.adaptive.partitioning.enable`):
 * a partition log here has no queue to a broker; every partition is as available as the others.
 */

/** Kafka's `batch.size` default: the keyless bytes that go to one partition before it switches. */
export const DEFAULT_STICKY_BATCH_BYTES = 16_384;

/** A source of random 32-bit integers (injectable for a test): Math.random by default. */
export type RandomInt = () => number;

const randomInt: RandomInt = () => Math.floor(Math.random() * 0x80000000);

export class StickyPartitioner {
  readonly #partitions: () => number;
  readonly #batchBytes: number;
  readonly #random: RandomInt;
  #current = -1;
  #produced = 0;

  constructor(partitions: () => number, batchBytes = DEFAULT_STICKY_BATCH_BYTES, random: RandomInt = randomInt) {
    this.#partitions = partitions;
    this.#batchBytes = batchBytes;
    this.#random = random;
  }

  /** The partition for a keyless record of about `bytes` bytes; counts them toward the switch. */
  next(bytes: number): number {
    const count = this.#partitions();
    // A topic that grew keeps its sticky partition (it is still a partition); one never chosen picks now.
    if (this.#current < 0 || this.#current >= count) this.#current = this.#random() % count;
    const partition = this.#current;
    this.#produced += bytes;
    if (this.#produced >= this.#batchBytes) {
      // As Kafka: the run ends with the record that reached batch.size; the next keyless record picks anew.
      this.#current = -1;
      this.#produced = 0;
    }
    return partition;
  }
}
