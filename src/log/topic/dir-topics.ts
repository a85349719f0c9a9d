/*
 * `dir.topic(name, options)`: a LogDir's topics. Opening one reads the recorded partition count
 * (topic-file.ts), refuses fewer partitions than recorded, opens (creating, recovering) every
 * partition log through `dir.log`, and only then records a new or larger count: a crash before
 * the record leaves partition directories that the next open with the count takes as they are,
 * never a recorded count whose partitions were not made.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { resolveOptions } from "../../options.js";
import { describeValue } from "../../format/record-codec.js";
import type { Storage } from "../../storage/storage.js";
import type { Consumer } from "../consumers/consumer.js";
import type { Log } from "../log.js";
import type { LogOptions } from "../options/log-options.js";
import { positiveInteger } from "../options/log-arguments.js";
import { MAX_DIR_NAME_LENGTH, MAX_TOPIC_LENGTH, parsePartitionName } from "../checkpoints/partition-names.js";
import { SerialQueue } from "../util/serial-queue.js";
import type { RecordSerde } from "./serde.js";
import { DEFAULT_STICKY_BATCH_BYTES } from "./sticky-partitioner.js";
import { fewerPartitions, Topic } from "./topic.js";
import { RecordCodec } from "./typed-records.js";
import { readTopicPartitions, writeTopicPartitions } from "./topic-file.js";

/**
 * The most partitions a topic may have here. Each is a directory and an open log (opened with
 * the topic), so this bounds what one call can create; Kafka advises far fewer per broker.
 */
const MAX_TOPIC_PARTITIONS = 10_000;

/** Options of `dir.topic(name, options)`. */
export interface TopicOptions<K = Uint8Array, V = Uint8Array> {
  /**
   * The partition count. A new topic is created with it; an existing one may be given more
   * (partitions are added, as `kafka-topics --alter --partitions`), never fewer
   * (`PAGELOG_PARTITION_COUNT`). @defaultValue the recorded count; for a new topic, its partition
   * directories already there (numbered up to the highest), or 1 (Kafka's `num.partitions`)
   */
  partitions?: number;
  /** The key's and value's serializers (docs/topics.md). @defaultValue bytes for both */
  serde?: RecordSerde<K, V>;
  /** Options of every partition's log, over the directory's defaults (as `dir.log(name, options)`). @defaultValue none */
  log?: LogOptions;
  /**
   * Keyless bytes sent to one partition before the sticky partitioner picks another (Kafka's
   * `batch.size`). @defaultValue 16384
   */
  stickyBatchBytes?: number;
}

/** What the topics need of their LogDir. */
interface TopicHost {
  readonly storage: Storage;
  readonly readOnly: boolean;
  readonly log: (name: string, options: LogOptions) => Promise<Log>;
  readonly consumer: (name: string) => Consumer;
}

interface ResolvedTopicOptions {
  partitions: number | undefined;
  serde: RecordSerde<unknown, unknown> | undefined;
  log: LogOptions;
  stickyBatchBytes: number;
}

const RESOLVERS = {
  partitions: (v: unknown) => {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_TOPIC_PARTITIONS)
      throw new RangeError(`partitions must be an integer in [1, ${MAX_TOPIC_PARTITIONS}], got ${describeValue(v)}`);
    return v;
  },
  serde: (v: unknown) => v as RecordSerde<unknown, unknown> | undefined, // checked by the Topic
  log: (v: unknown) => {
    if (v !== undefined && (typeof v !== "object" || v === null))
      throw new TypeError(`log must be an options object, got ${describeValue(v)}`);
    return (v ?? {}) as LogOptions;
  },
  stickyBatchBytes: (v: unknown) => positiveInteger(v, "stickyBatchBytes", DEFAULT_STICKY_BATCH_BYTES),
};

function checkTopicName(name: unknown): asserts name is string {
  if (typeof name !== "string" || parsePartitionName(`${name}-0`)?.topic !== name)
    throw new TypeError(
      `topic name must be 1 to ${MAX_TOPIC_LENGTH} characters of [a-zA-Z0-9._-], not "." or ".."; got ${typeof name === "string" ? JSON.stringify(name.length > 300 ? `${name.slice(0, 300)}…` : name) : typeof name}`,
    );
}

export class DirTopics {
  readonly #host: TopicHost;
  /** One topic open at a time: two opens must not both rewrite the counts file from one read. */
  readonly #queue = new SerialQueue();

  constructor(storage: Storage, readOnly: boolean, log: TopicHost["log"], consumer: TopicHost["consumer"]) {
    this.#host = { storage, readOnly, log, consumer };
  }

  open<K, V>(name: string, options: TopicOptions<K, V> | undefined): Promise<Topic<K, V>> {
    let resolved: ResolvedTopicOptions;
    try {
      checkTopicName(name);
      resolved = resolveOptions<TopicOptions<unknown, unknown>, ResolvedTopicOptions>(
        options,
        "topic options",
        RESOLVERS,
      );
      if (resolved.partitions !== undefined && `${name}-${resolved.partitions - 1}`.length > MAX_DIR_NAME_LENGTH)
        throw new RangeError(`${name}-${resolved.partitions - 1} is longer than ${MAX_DIR_NAME_LENGTH} characters`);
      // The serdes are checked now, before any partition is created.
      new RecordCodec(resolved.serde, "serde");
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#queue.run(() => this.#open<K, V>(name, resolved));
  }

  async #open<K, V>(name: string, options: ResolvedTopicOptions): Promise<Topic<K, V>> {
    const { storage, readOnly } = this.#host;
    const counts = await readTopicPartitions(storage);
    const recorded = counts.get(name);
    if (recorded !== undefined && options.partitions !== undefined && options.partitions < recorded)
      throw fewerPartitions(name, recorded, options.partitions);
    const count = options.partitions ?? recorded ?? (await this.#partitionsThere(name)) ?? (readOnly ? 0 : 1);
    if (count === 0)
      throw new PagelogError(`the log directory holds no topic ${name}`, ErrorCode.NOT_FOUND, { path: `${name}-0` });
    if (readOnly && recorded !== undefined && count > recorded)
      throw new PagelogError(
        `the log directory was opened read-only (topic ${name} has ${recorded} partitions, not ${count})`,
        ErrorCode.READ_ONLY,
      );
    const logs: Log[] = [];
    for (let p = 0; p < count; p++) logs.push(await this.#host.log(`${name}-${p}`, options.log));
    // Recorded only once every partition is there (each directory made durable by dir.log).
    if (!readOnly && recorded !== count) {
      counts.set(name, count);
      await writeTopicPartitions(storage, counts);
    }
    return new Topic<K, V>({
      name,
      logs,
      serde: options.serde,
      consumer: this.#host.consumer,
      stickyBatchBytes: options.stickyBatchBytes,
    });
  }

  /** A topic not recorded (made by dir.log, or by Kafka): its partition directories, up to the highest. */
  async #partitionsThere(name: string): Promise<number | undefined> {
    let highest = -1;
    for (const entry of await this.#host.storage.list("")) {
      const parsed = parsePartitionName(entry);
      if (parsed?.topic === name && parsed.partition > highest) highest = parsed.partition;
    }
    return highest < 0 || highest >= MAX_TOPIC_PARTITIONS ? undefined : highest + 1;
  }
}
