/**
 * One source partition into one target partition, exactly once (docs/outgrowing-one-machine.md).
 *
 * Every step is a Kafka transaction of a transactional producer whose `transactional.id` names
 * the target partition (`pagelog-mirror.<topic>.<partition>`): the records, and in the same
 * transaction the mirror's checkpoint, the next source offset, committed as the offset of the
 * consumer group `pagelog-mirror.<topic>` on that partition. Either both become visible or
 * neither does. A session starts with `InitProducerId`, which fences any older producer of the
 * same id (a mirror that was killed, or one still running elsewhere) and aborts its open
 * transaction; only then is the checkpoint read. So after any crash of the mirror, the writer
 * or the broker, the next session resumes exactly after the last committed record: no record is
 * lost (the source keeps it until the checkpoint passes it) and none is written twice (what the
 * crash cut short was aborted and is invisible to `read_committed` consumers).
 */
import type * as KafkaJs from "kafkajs";
import { ErrorCode, PagelogError } from "../errors.js";
import type { Consumer } from "../log/consumers/consumer.js";
import type { Log, LogRecord } from "../log/log.js";
import { isFenced } from "./kafka-errors.js";
import { PositionMap } from "./position-map.js";
import type { MirrorPartitionProgress } from "./types.js";

/** What the partition mirrors share: the client, the target, the settings. */
export interface MirrorContext {
  readonly kafka: KafkaJs.Kafka;
  readonly admin: KafkaJs.Admin;
  readonly topic: string;
  readonly durable: boolean;
  readonly maxBytes: number;
  readonly consumers: ReadonlyArray<Consumer>;
  readonly signal: AbortSignal;
  readonly warn: (message: string) => void;
  readonly counters: { transactions: number; restarts: number };
}

/** The consumer group holding the mirror's checkpoints for `topic` (one offset per partition). */
const checkpointGroup = (topic: string) => `pagelog-mirror.${topic}`;
/** The transactional id of the mirror writing `topic`'s `partition`. */
const transactionalId = (topic: string, partition: number) => `pagelog-mirror.${topic}.${partition}`;
/** The checkpoint's metadata: the source partition, so a checkpoint is never taken for another source's. */
const checkpointMetadata = (source: string) => `pagelog:${source}`;

/** How long an idle mirror waits before it looks at the consumers' positions again. */
const POSITIONS_EVERY_MS = 500;

interface Session {
  readonly producer: KafkaJs.Producer;
  readonly map: PositionMap;
  /** Per consumer name, the last target offset committed for it. */
  readonly carried: Map<string, number>;
}

/** A sleep that an abort ends early (resolving, not rejecting). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** kafkajs's message for a pagelog record: the same key, value, headers and timestamp. */
function toMessage(r: LogRecord, partition: number): KafkaJs.Message {
  const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const headers: Record<string, Buffer[]> = {};
  for (const h of r.headers) {
    // kafkajs cannot send a header without a value; sending an empty one instead would change the record.
    if (h.value === null)
      throw new PagelogError(
        `record ${r.offset} has a header ${JSON.stringify(h.key)} without a value, which the Kafka client (kafkajs) cannot send: the mirror stops rather than change it`,
        ErrorCode.KAFKA,
      );
    (headers[h.key] ??= []).push(buf(h.value));
  }
  return {
    partition,
    key: r.key === null ? null : buf(r.key),
    value: r.value === null ? null : buf(r.value),
    headers: headers,
    timestamp: String(r.timestamp),
  };
}

const sizeOf = (r: LogRecord) =>
  (r.key?.byteLength ?? 0) +
  (r.value?.byteLength ?? 0) +
  r.headers.reduce((n, h) => n + h.key.length + (h.value?.byteLength ?? 0), 0);

export class PartitionMirror {
  readonly #ctx: MirrorContext;
  readonly #log: Log;
  readonly #partition: number;
  #session: Session | undefined;
  #next = 0;
  #records = 0;
  #bytes = 0;

  constructor(ctx: MirrorContext, log: Log, partition: number) {
    this.#ctx = ctx;
    this.#log = log;
    this.#partition = partition;
  }

  progress(): MirrorPartitionProgress {
    const available = this.#ctx.durable ? this.#log.recoveryPoint : this.#log.endOffset;
    return {
      source: this.#log.name,
      partition: this.#partition,
      next: this.#next,
      available: Math.max(available, this.#next),
      records: this.#records,
      bytes: this.#bytes,
    };
  }

  /** The first session: what fails here fails the start (an unreachable broker, a diverged target). */
  async start(): Promise<void> {
    this.#session = await this.#open();
  }

  /** Mirrors until the signal; recoverable Kafka errors start a new session, others end it. */
  async run(): Promise<void> {
    let failures = 0;
    try {
      while (!this.#ctx.signal.aborted) {
        try {
          this.#session ??= await this.#open();
          await this.#pump(this.#session);
          failures = 0;
        } catch (err) {
          if (this.#ctx.signal.aborted && !(err instanceof PagelogError)) break;
          if (err instanceof PagelogError) throw err;
          if (isFenced(err))
            throw new PagelogError(
              `another mirror of ${this.#ctx.topic} partition ${this.#partition} took over (this one was fenced): stopping`,
              ErrorCode.KAFKA,
              { cause: err },
            );
          await this.#close();
          failures++;
          this.#ctx.counters.restarts++;
          this.#ctx.warn(
            `${this.#log.name} → ${this.#ctx.topic}[${this.#partition}]: ${(err as Error).message}; starting over from the target's checkpoint`,
          );
          await pause(Math.min(100 * 2 ** failures, 5_000), this.#ctx.signal);
        }
      }
    } finally {
      await this.#close();
    }
  }

  async #close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    await session?.producer.disconnect().catch(() => undefined);
  }

  /** A session: fence older producers of the id, then read where the target's committed state ends. */
  async #open(): Promise<Session> {
    const { kafka, admin, topic } = this.#ctx;
    const producer = kafka.producer({
      transactionalId: transactionalId(topic, this.#partition),
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      transactionTimeout: 60_000,
    });
    try {
      await producer.connect();
      const resume = await this.#checkpoint(admin);
      const high = (await admin.fetchTopicOffsets(topic)).find((p) => p.partition === this.#partition)?.high;
      const carried = new Map<string, number>();
      for (const consumer of this.#ctx.consumers) carried.set(consumer.name, await this.#groupOffset(consumer.name));
      this.#next = resume;
      return { producer, map: new PositionMap(resume, Number(high ?? 0)), carried };
    } catch (err) {
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
  }

  async #groupOffset(groupId: string): Promise<number> {
    const [answer] = await this.#ctx.admin.fetchOffsets({ groupId, topics: [this.#ctx.topic] });
    const found = answer?.partitions.find((p) => p.partition === this.#partition);
    return Number(found?.offset ?? -1);
  }

  /** The next source offset to mirror, from the target's checkpoint, checked against the source. */
  async #checkpoint(admin: KafkaJs.Admin): Promise<number> {
    const { topic } = this.#ctx;
    const [answer] = await admin.fetchOffsets({ groupId: checkpointGroup(topic), topics: [topic] });
    const found = answer?.partitions.find((p) => p.partition === this.#partition);
    const log = this.#log;
    await log.refresh();
    const where = `${topic} partition ${this.#partition}`;
    if (found === undefined || Number(found.offset) < 0) return log.startOffset;
    const offset = Number(found.offset);
    if (found.metadata !== checkpointMetadata(log.name))
      throw new PagelogError(
        `${where} holds the mirror checkpoint of another source (${found.metadata ?? "none"}), not of ${log.name}: mirror into another topic`,
        ErrorCode.MIRROR_DIVERGED,
      );
    if (offset > log.endOffset)
      throw new PagelogError(
        `${where} holds records of ${log.name} up to offset ${offset - 1}, but ${log.name} ends at ${log.endOffset}: the source lost records it had mirrored (a power cut with durable off?) or is another log`,
        ErrorCode.MIRROR_DIVERGED,
      );
    if (offset < log.startOffset)
      throw new PagelogError(
        `${log.name} starts at ${log.startOffset}, but ${where} has its records only up to ${offset - 1}: records ${offset} to ${log.startOffset - 1} were deleted before they were mirrored`,
        ErrorCode.MIRROR_DIVERGED,
      );
    return offset;
  }

  /** Mirrors one transaction at a time until the signal; waits at the end of what the source holds. */
  async #pump(session: Session): Promise<void> {
    const { signal, durable, maxBytes } = this.#ctx;
    while (!signal.aborted) {
      const records = await this.#log.read(this.#next, { durable, maxBytes });
      if (records.length > 0) {
        await this.#commit(session, records);
        if (this.#ctx.consumers.length > 0) await this.#carryPositions(session);
        continue;
      }
      if (await this.#waitForMore()) continue;
      if (this.#ctx.consumers.length > 0) await this.#carryPositions(session);
    }
  }

  /** Waits until the source has a record at `next`: true when it has, false after a while without. */
  async #waitForMore(): Promise<boolean> {
    const wait = new AbortController();
    const stop = () => wait.abort();
    this.#ctx.signal.addEventListener("abort", stop, { once: true });
    const timer = setTimeout(stop, POSITIONS_EVERY_MS);
    try {
      await this.#log.waitFor(this.#next, { durable: this.#ctx.durable, signal: wait.signal });
      return true;
    } catch (err) {
      if (wait.signal.aborted) return false;
      throw err;
    } finally {
      clearTimeout(timer);
      this.#ctx.signal.removeEventListener("abort", stop);
    }
  }

  /** The records, and the checkpoint past them, in one transaction. */
  async #commit(session: Session, records: LogRecord[]): Promise<void> {
    const { topic } = this.#ctx;
    const partition = this.#partition;
    const last = records[records.length - 1]!.offset;
    const txn = await session.producer.transaction();
    let base: number;
    try {
      const sent = await txn.send({ topic, messages: records.map((r) => toMessage(r, partition)) });
      const meta = sent.find((m) => m.partition === partition);
      if (meta?.baseOffset === undefined)
        throw new Error(`the broker did not say where ${topic} partition ${partition} put the records`);
      base = Number(meta.baseOffset);
      await txn.sendOffsets({
        consumerGroupId: checkpointGroup(topic),
        topics: [
          {
            topic,
            partitions: [
              {
                partition,
                offset: String(last + 1),
                metadata: checkpointMetadata(this.#log.name),
              } as KafkaJs.PartitionOffset,
            ],
          },
        ],
      });
      await txn.commit();
    } catch (err) {
      await txn.abort().catch(() => undefined);
      throw err;
    }
    session.map.add(
      records.map((r) => r.offset),
      base,
    );
    this.#next = last + 1;
    this.#records += records.length;
    this.#bytes += records.reduce((n, r) => n + sizeOf(r), 0);
    this.#ctx.counters.transactions++;
  }

  /**
   * Carries each consumer's committed pagelog position to the Kafka group of its name, translated
   * (position-map.ts), once every record below it is in the target; never moves a group backwards.
   */
  async #carryPositions(session: Session): Promise<void> {
    const { topic } = this.#ctx;
    const partition = this.#partition;
    const moves: Array<{ name: string; offset: number }> = [];
    let lowest = Infinity;
    for (const consumer of this.#ctx.consumers) {
      await consumer.refresh();
      const position = consumer.committed(this.#log.name);
      if (position === undefined) {
        lowest = -1;
        continue;
      }
      lowest = Math.min(lowest, position);
      const offset = session.map.translate(position);
      if (offset !== undefined && offset > (session.carried.get(consumer.name) ?? -1))
        moves.push({ name: consumer.name, offset });
    }
    if (lowest >= 0 && lowest !== Infinity) session.map.forgetBelow(lowest);
    if (moves.length === 0) return;
    const txn = await session.producer.transaction();
    try {
      // A transaction with offsets only: the groups' offsets move together, or not at all.
      for (const { name, offset } of moves)
        await txn.sendOffsets({
          consumerGroupId: name,
          topics: [{ topic, partitions: [{ partition, offset: String(offset) }] }],
        });
      await txn.commit();
    } catch (err) {
      await txn.abort().catch(() => undefined);
      throw err;
    }
    for (const { name, offset } of moves) session.carried.set(name, offset);
    this.#ctx.counters.transactions++;
  }
}
