/*
 * A topic: N partition logs (`<topic>-0` … `<topic>-<N-1>`) behind one name, as in Kafka. An
 * append routes each record to a partition (an explicit `partition`, else Kafka's default
 * partitioner: murmur2 of the key's bytes, else the sticky rule for keyless records) and appends
 * each partition's records as one batch of that log; `records()` merges the partitions.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { describeValue, type RecordSnapshot, snapshotRecords, utf8Length } from "../../format/record-codec.js";
import type { Consumer } from "../consumers/consumer.js";
import type { Log } from "../log.js";
import type { RecordsOptions } from "../read/records-iterator.js";
import { checkOffset } from "../options/log-arguments.js";
import { mergePartitions } from "./merge.js";
import { partitionForKey } from "./murmur2.js";
import { StickyPartitioner, type RandomInt } from "./sticky-partitioner.js";
import { type PlainInput, RecordCodec, type TypedRecord, type TypedRecordInput } from "./typed-records.js";
import type { RecordSerde } from "./serde.js";
import { TopicConsumer } from "./topic-consumer.js";

/** A record to append to a topic: a log record, typed, that may name its partition. */
export interface TopicRecordInput<K = Uint8Array, V = Uint8Array> extends TypedRecordInput<K, V> {
  /** The partition, in `[0, topic.partitions)`: routes the record there, whatever its key. @defaultValue chosen by the partitioner */
  partition?: number;
}

/** A record read from a topic: the partition's record, typed, with its partition. */
export interface TopicRecord<K = Uint8Array, V = Uint8Array> extends TypedRecord<K, V> {
  /** The partition it was read from (its log is `<topic>-<partition>`). */
  partition: number;
}

/** Where `topic.append` put a record. */
export interface TopicRecordMetadata {
  /** The partition the record went to. */
  readonly partition: number;
  /** Its offset in that partition. */
  readonly offset: number;
}

/** Options of `topic.records()`: those of `log.records()`, with `from` per partition. */
export interface TopicRecordsOptions extends Omit<RecordsOptions, "from" | "to"> {
  /**
   * Where each partition starts: `from[p]` for partition p (`topic.consumer(name).positions()`
   * gives the committed ones); undefined, or past the array, is that partition's start offset.
   * @defaultValue every partition from its start offset
   */
  from?: ReadonlyArray<number | undefined>;
}

/** What a Topic is made of (by `dir.topic()`). */
interface TopicParts {
  readonly name: string;
  readonly logs: readonly Log[];
  readonly serde: RecordSerde<unknown, unknown> | undefined;
  readonly consumer: (name: string) => Consumer;
  readonly stickyBatchBytes: number;
  readonly random?: RandomInt;
}

const encoder = new TextEncoder();

/**
 * The smallest record in a batch: attributes, timestamp and offset deltas, key and value lengths
 * and the header count, a byte each at least, and the record's own length varint.
 */
const MIN_RECORD_BYTES = 7;

/**
 * About the record's size in its batch: what the sticky rule counts toward `batch.size`, as
 * Kafka counts the bytes appended. Never 0: empty keyless records must move on too.
 */
function approximateSize(r: RecordSnapshot): number {
  const size = (b: Uint8Array | string | null) => (b === null ? 0 : typeof b === "string" ? utf8Length(b) : b.length);
  let bytes = MIN_RECORD_BYTES + size(r.key) + size(r.value);
  for (const h of r.headers) bytes += utf8Length(h.key) + size(h.value);
  return bytes;
}

/**
 * A topic of `partitions` partition logs, from `dir.topic(name, { partitions })`, its records
 * typed by its serializers (`K`, `V`: bytes by default). Each partition stays a log of its own
 * (`dir.log("orders-3")`, `topic.partition(3)`); the topic routes appends and merges reads.
 */
export class Topic<K = Uint8Array, V = Uint8Array> {
  /** The topic's name. */
  readonly name: string;
  readonly #logs: readonly Log[];
  readonly #codec: RecordCodec;
  readonly #sticky: StickyPartitioner;
  readonly #consumer: (name: string) => Consumer;

  /** @internal Made by `LogDir.topic(name, options)`. */
  constructor(parts: TopicParts) {
    this.name = parts.name;
    this.#logs = parts.logs;
    this.#codec = new RecordCodec(parts.serde, "serde");
    this.#consumer = parts.consumer;
    this.#sticky = new StickyPartitioner(() => this.#logs.length, parts.stickyBatchBytes, parts.random);
  }

  /** The number of partitions. */
  get partitions(): number {
    return this.#logs.length;
  }

  /** Partition `p`'s log (`<topic>-<p>`), the same Log `dir.log()` gives. */
  partition(p: number): Log {
    this.#checkPartition(p, "partition");
    return this.#logs[p]!;
  }

  #checkPartition(p: unknown, name: string): asserts p is number {
    if (typeof p !== "number" || !Number.isInteger(p) || p < 0 || p >= this.#logs.length)
      throw new RangeError(
        `${name} must be an integer in [0, ${this.#logs.length}) (${this.name} has ${this.#logs.length} partitions), got ${describeValue(p)}`,
      );
  }

  /**
   * Routes each record to a partition and appends each partition's records as one batch (in
   * their order in `records`). Resolves with each record's partition and offset, in the order of
   * `records`. A record goes to its `partition` if it names one; else, with a key, to Kafka's
   * default partitioner's choice (murmur2 of the serialized key's bytes); else to the sticky
   * partition (docs/topics.md). Every record is serialized and checked before anything is
   * appended: a bad one fails the call alone. The partitions' batches are separate appends: a
   * failure of one partition's log does not undo another's (as a Kafka producer's batches).
   */
  append(records: ReadonlyArray<TopicRecordInput<K, V>>): Promise<TopicRecordMetadata[]> {
    let groups: Map<number, { indexes: number[]; records: PlainInput[] }>;
    try {
      groups = this.#route(records);
    } catch (err) {
      return Promise.reject(err);
    }
    const out: TopicRecordMetadata[] = new Array(records.length);
    // Each log.append is called now, before this returns: it copies the bytes at the call.
    const appends = [...groups].map(async ([partition, group]) => {
      const { baseOffset } = await this.#logs[partition]!.append(group.records);
      group.indexes.forEach((index, i) => (out[index] = { partition, offset: baseOffset + i }));
    });
    return Promise.all(appends).then(() => out);
  }

  #route(records: unknown): Map<number, { indexes: number[]; records: PlainInput[] }> {
    if (!Array.isArray(records)) throw new TypeError(`records must be an array, got ${describeValue(records)}`);
    const list = records as readonly unknown[];
    const plain = list.map((r, i) => this.#codec.serialize(r, i));
    const snapshots = snapshotRecords(plain); // the log's own checks, naming records[i], before any routing
    // Every named partition is checked before any record is routed: a bad one leaves the sticky
    // partitioner as it was, as if the call had not been made.
    const given = list.map((r, i) => {
      const partition = (r as { partition?: unknown }).partition;
      if (partition !== undefined) this.#checkPartition(partition, `records[${i}].partition`);
      return partition;
    });
    const groups = new Map<number, { indexes: number[]; records: PlainInput[] }>();
    plain.forEach((record, i) => {
      let partition: number;
      if (given[i] !== undefined) {
        partition = given[i];
      } else if (snapshots[i]!.key !== null) {
        const key = snapshots[i]!.key;
        partition = partitionForKey(typeof key === "string" ? encoder.encode(key) : key, this.#logs.length);
      } else {
        partition = this.#sticky.next(approximateSize(snapshots[i]!));
      }
      let group = groups.get(partition);
      if (group === undefined) groups.set(partition, (group = { indexes: [], records: [] }));
      group.indexes.push(i);
      group.records.push(record);
    });
    return groups;
  }

  /** Flushes every partition: every record appended so far is durable when it resolves. */
  async flush(): Promise<void> {
    await Promise.all(this.#logs.map((log) => log.flush()));
  }

  /**
   * The records of every partition, merged: each partition's in offset order, partitions
   * interleaved as their records are ready (round robin among the ready ones; no order between
   * partitions, as in Kafka). Each record carries its `partition`. `follow`, `durable` and
   * `signal` are `log.records()`'s, for every partition; a partition's error ends the whole
   * iteration (after the others are stopped). A key or value the deserializer rejects is
   * `PAGELOG_SERIALIZATION` naming the partition and offset.
   */
  records(options: TopicRecordsOptions = {}): AsyncGenerator<TopicRecord<K, V>, void, undefined> {
    return this.#records(options);
  }

  async *#records(options: TopicRecordsOptions): AsyncGenerator<TopicRecord<K, V>, void, undefined> {
    if (typeof options !== "object" || options === null)
      throw new TypeError(`records options must be an object, got ${describeValue(options)}`);
    const { from, signal, ...rest } = options;
    if (from !== undefined) {
      if (!Array.isArray(from) || from.length > this.#logs.length)
        throw new TypeError(
          `from must be an array of at most ${this.#logs.length} offsets (one per partition), got ${describeValue(from)}`,
        );
      from.forEach((offset, p) => offset === undefined || checkOffset(offset, `from[${p}]`));
    }
    const open = (p: number, stop: AbortSignal) => {
      const start = from?.[p];
      return this.#logs[p]!.records({ ...rest, signal: stop, ...(start === undefined ? {} : { from: start }) });
    };
    for await (const [partition, record] of mergePartitions(this.#logs.length, open, signal)) {
      const typed = this.#codec.deserialize<K, V>(this.#logs[partition]!.name, record) as TopicRecord<K, V>;
      yield { ...typed, partition };
    }
  }

  /** The consumer `name`'s positions on this topic: commit and read one offset per partition. */
  consumer(name: string): TopicConsumer {
    return new TopicConsumer(this.#consumer(name), this.#logs);
  }
}

/** `PAGELOG_PARTITION_COUNT`: a topic opened with fewer partitions than recorded. */
export function fewerPartitions(name: string, recorded: number, asked: number): PagelogError {
  return new PagelogError(
    `topic ${name} has ${recorded} partitions; it cannot be opened with ${asked}: partitions can be added, never removed (a key would move to another partition)`,
    ErrorCode.PARTITION_COUNT,
    { path: `${name}-${asked}` },
  );
}
