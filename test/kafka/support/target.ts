// The mirror's target, as its users see it: a topic created on the tier's broker, and its records
// read back with a read_committed consumer (kafkajs's default isolation).
import { Kafka, logLevel } from "kafkajs";

export interface TargetRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  timestamp: number;
  headers: Array<[string, string | null]>;
}

let n = 0;
/** A fresh topic name for this process. */
export const freshTopic = (what: string) => `mirror-${what}-${process.pid}-${Date.now()}-${n++}`;

export function client(bootstrap: string): Kafka {
  return new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 200 } });
}

export async function createTopic(bootstrap: string, topic: string, partitions = 1): Promise<void> {
  const admin = client(bootstrap).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Every committed record of `topic` (read_committed), once `count` were read or `timeoutMs`
 * passed; per partition in offset order. Headers in their order, a repeated key repeated.
 */
export async function readTopic(
  bootstrap: string,
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<TargetRecord[]> {
  const consumer = client(bootstrap).consumer({ groupId: `reader-${topic}-${n++}`, readUncommitted: false });
  const out: TargetRecord[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    if (count === 0) resolveDone();
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const headers: Array<[string, string | null]> = [];
        for (const [k, v] of Object.entries(message.headers ?? {}))
          for (const one of Array.isArray(v) ? v : [v])
            headers.push([k, one === undefined || one === null ? null : one.toString()]);
        out.push({
          partition,
          offset: Number(message.offset),
          key: message.key === null ? null : message.key.toString(),
          value: message.value === null ? null : message.value.toString(),
          timestamp: Number(message.timestamp),
          headers,
        });
        if (out.length >= count) resolveDone();
      },
    });
    await Promise.race([done, new Promise((r) => setTimeout(r, timeoutMs))]);
    // A little longer: a duplicate past `count` must show.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await consumer.disconnect();
  }
  return out.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** The committed offset of `groupId` on each partition of `topic` (-1: none). */
export async function groupOffsets(bootstrap: string, groupId: string, topic: string): Promise<Map<number, number>> {
  const admin = client(bootstrap).admin();
  await admin.connect();
  try {
    const [answer] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return new Map((answer?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}

/** Polls `check` every 50 ms until true, or throws after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
