/*
 * A consumer's positions on a topic: the directory's consumer positions (consumers/), one per
 * partition log, named by partition number instead of by directory.
 */
import { describeValue } from "../../format/record-codec.js";
import type { Consumer, ConsumerPosition } from "../consumers/consumer.js";
import type { Log } from "../log.js";

/** A named consumer's committed offsets on one topic, from `topic.consumer(name)`. */
export class TopicConsumer {
  /** The directory's consumer of this name: its positions are the same ones. */
  readonly consumer: Consumer;
  readonly #logs: readonly Log[];

  /** @internal Made by `topic.consumer(name)`. */
  constructor(consumer: Consumer, logs: readonly Log[]) {
    this.consumer = consumer;
    this.#logs = logs;
  }

  /** The consumer's name. */
  get name(): string {
    return this.consumer.name;
  }

  #log(partition: unknown): Log {
    const log = typeof partition === "number" && Number.isInteger(partition) ? this.#logs[partition] : undefined;
    if (log === undefined)
      throw new RangeError(
        `partition must be an integer in [0, ${this.#logs.length}), got ${describeValue(partition)}`,
      );
    return log;
  }

  /**
   * Commits `offset` (the next offset to read: a record's `offset + 1`) for `partition`: durable
   * when it resolves, as `consumer.commit(log name, offset)`.
   */
  commit(partition: number, offset: number): Promise<void> {
    let name: string;
    try {
      name = this.#log(partition).name;
    } catch (err) {
      return Promise.reject(err);
    }
    return this.consumer.commit(name, offset);
  }

  /** The committed offset of `partition`, or undefined if none was committed. */
  committed(partition: number): number | undefined {
    return this.consumer.committed(this.#log(partition).name);
  }

  /** Each partition's committed offset (undefined where none): `topic.records({ from })` resumes there. */
  positions(): Array<number | undefined> {
    return this.#logs.map((log) => this.consumer.committed(log.name));
  }

  /** Each partition's `consumer.position(log)`: committed against the log's offsets now. */
  states(): ConsumerPosition[] {
    return this.#logs.map((log) => this.consumer.position(log));
  }
}
