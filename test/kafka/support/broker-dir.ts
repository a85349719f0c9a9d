// The directory a broker wrote, for test/kafka/broker-dir.test.ts (issue 34, item 4): a broker of
// its own rolls a segment every 300 ms and takes, through kafkajs, plain records (null keys and
// values, headers), a gzip batch, idempotent records, transactions (a commit, an abort, a commit)
// and a compacted topic its own cleaner cleans; a read_committed consumer reads both topics; the
// broker stops cleanly and leaves its log directory as it is.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CompressionTypes, type Kafka } from "kafkajs";
import { type Isolation, LogDir } from "../../../src/node.js";
import { ownBroker } from "./broker.js";
import { hex, recordsOf, type PlainRecord } from "./segments.js";

export const PLAIN = "plain";
export const COMPACT = "compact";

/** Every file under `dir` with its SHA-256: what "nothing written" is checked against. */
export function hashes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else out.set(path, createHash("sha256").update(readFileSync(path)).digest("hex") + ` ${statSync(path).size}`);
    }
  };
  walk(dir);
  return out;
}

async function produce(kafka: Kafka): Promise<void> {
  const plain = kafka.producer();
  await plain.connect();
  for (let i = 0; i < 20; i++) {
    // The broker rolls a segment every 300 ms (log.roll.ms): pauses make several.
    if (i % 5 === 4) await new Promise((r) => setTimeout(r, 350));
    await plain.send({
      topic: PLAIN,
      messages: [{ key: i % 3 ? `k${i}` : null, value: i % 4 ? `v${i}` : null, headers: { h: `x${i}`, e: "" } }],
    });
  }
  await plain.send({
    topic: PLAIN,
    compression: CompressionTypes.GZIP,
    messages: [
      { key: "g1", value: "gz1" },
      { key: "g2", value: "gz2" },
    ],
  });
  const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await idempotent.connect();
  for (let i = 0; i < 5; i++) await idempotent.send({ topic: PLAIN, messages: [{ key: `i${i}`, value: `idem${i}` }] });
  const tx = kafka.producer({ transactionalId: "pagelog-tx", idempotent: true, maxInFlightRequests: 1 });
  await tx.connect();
  for (const [records, commit] of [
    [["t1", "t2"], true],
    [["t3"], false],
    [["t4"], true],
    [["t5"], true],
  ] as const) {
    // Before the last: a pause, so that its writes roll __transaction_state-0 (log.roll.ms) and
    // the broker's cleaner has a segment of it to clean.
    if (records[0] === "t5") await new Promise((r) => setTimeout(r, 400));
    const t = await tx.transaction();
    await t.send({
      topic: PLAIN,
      messages: records.map((key) => ({ key, value: `${key}-${commit ? "committed" : "aborted"}` })),
    });
    await (commit ? t.commit() : t.abort());
  }
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 30; i++)
      await plain.send({ topic: COMPACT, messages: [{ key: `c${i % 5}`, value: i % 7 ? `v${round}-${i}` : null }] });
    await new Promise((r) => setTimeout(r, 400));
  }
  // One more record rolls the compacted topic's last round out of its active segment.
  await plain.send({ topic: COMPACT, messages: [{ key: "c0", value: "after-rounds" }] });
  await plain.send({ topic: PLAIN, messages: [{ key: "last", value: "x" }] });
  await Promise.all([plain.disconnect(), idempotent.disconnect(), tx.disconnect()]);
}

/** What a read_committed consumer (kafkajs's default) reads from both topics, until `until` says it has all. */
async function consume(
  kafka: Kafka,
  until: (got: Map<string, PlainRecord[]>) => boolean,
): Promise<Map<string, PlainRecord[]>> {
  const got = new Map<string, PlainRecord[]>([
    [PLAIN, []],
    [COMPACT, []],
  ]);
  const consumer = kafka.consumer({ groupId: `pagelog-${Date.now()}`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topics: [PLAIN, COMPACT], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the consumer did not read everything in 60 s")), 60_000);
    consumer
      .run({
        eachMessage: async ({ topic, message }) => {
          got.get(topic)!.push({
            offset: Number(message.offset),
            timestamp: Number(message.timestamp),
            key: hex(message.key),
            value: hex(message.value),
            headers: Object.entries(message.headers ?? {}).map(([k, v]) => [
              Buffer.from(k).toString("hex"),
              v === undefined ? null : hex(v as Buffer),
            ]),
          });
          if (until(got)) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return got;
}

/**
 * Waits until the broker's cleaner has cleaned `partitions` (cleaner-offset-checkpoint names each),
 * and the ones in `whole` up to their active segment: nothing is left for it to clean, so what a
 * consumer reads next is what the files hold when the broker stops (a cleaning after the read
 * would drop records the consumer saw).
 */
async function cleaned(logDir: string, partitions: string[], whole: string[] = []): Promise<void> {
  const activeBase = (p: string): number =>
    Math.max(
      0,
      ...readdirSync(join(logDir, `${p}-0`))
        .filter((name) => name.endsWith(".log"))
        .map((name) => Number(name.slice(0, -4))),
    );
  for (let i = 0; i < 200; i++) {
    // The broker writes the file on its checkpoint interval: it may not be there yet.
    const file = join(logDir, "cleaner-offset-checkpoint");
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    const cleanedTo = (p: string): number => Number(new RegExp(`^${p} 0 (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    if (partitions.every((p) => cleanedTo(p) > 0) && whole.every((p) => cleanedTo(p) >= activeBase(p))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the broker's cleaner did not clean ${partitions.join(", ")} in 40 s`);
}

/**
 * A broker in `scratch` writes its directory (see the file comment) and stops cleanly. Returns its
 * log directory and what the read_committed consumer read of each topic.
 */
export async function writeBrokerDir(
  scratch: string,
): Promise<{ logDir: string; consumed: Map<string, PlainRecord[]> }> {
  const { broker, kafka } = await ownBroker({
    dir: scratch,
    extra: { "log.roll.ms": "300", "log.index.interval.bytes": "100", "log.cleaner.backoff.ms": "200" },
    topics: [
      { topic: PLAIN, numPartitions: 1 },
      {
        topic: COMPACT,
        numPartitions: 1,
        configEntries: [
          { name: "cleanup.policy", value: "compact" },
          { name: "min.cleanable.dirty.ratio", value: "0.01" },
        ],
      },
    ],
  });
  try {
    await produce(kafka);
    await cleaned(broker.logDir, [COMPACT, "__transaction_state"], [COMPACT]);
    const last = (records: PlainRecord[] | undefined, key: string): boolean =>
      records?.some((r) => r.key === Buffer.from(key).toString("hex")) ?? false;
    const consumed = await consume(
      kafka,
      (got) => last(got.get(PLAIN), "last") && (got.get(COMPACT)?.length ?? 0) >= 5,
    );
    await broker.stop({ graceful: true });
    return { logDir: broker.logDir, consumed };
  } catch (error) {
    await broker.stop();
    throw error;
  }
}

/** `LogDir.open(root, { readOnly: true })`: every record of `name`, from its start. */
export async function readAll(root: string, name: string, isolation?: Isolation): Promise<PlainRecord[]> {
  const dir = await LogDir.open(root, { readOnly: true });
  try {
    return await recordsOf(await dir.log(name), isolation);
  } finally {
    await dir.close();
  }
}

/** The partition directories (`<topic>-<n>`) of a broker's log directory. */
export function partitionsOf(logDir: string): string[] {
  return readdirSync(logDir)
    .filter((f) => /-\d+$/.test(f) && statSync(join(logDir, f)).isDirectory())
    .sort();
}
