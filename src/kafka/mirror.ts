/**
 * `mirror()`: a pagelog partition (or every partition of a topic) into a Kafka topic, partition
 * for partition, in order, exactly once (partition-mirror.ts says how), following the source
 * as it grows, until stopped. docs/outgrowing-one-machine.md is the user's page.
 */
import type * as KafkaJs from "kafkajs";
import { ErrorCode, PagelogError } from "../errors.js";
import { LogDir } from "../log/log-dir.js";
import type { Log } from "../log/log.js";
import { FsStorage } from "../storage/fs-storage.js";
import { describeKafkaError } from "./kafka-errors.js";
import { type MirrorContext, PartitionMirror } from "./partition-mirror.js";
import { loadKafkaClient } from "./peer.js";
import type { Mirror, MirrorOptions, MirrorProgress } from "./types.js";

const DEFAULT_MAX_BYTES = 1024 * 1024;

/** Programmer mistakes in the options: a TypeError naming the option. */
function checkOptions(o: MirrorOptions): void {
  if ((o.dir === undefined) === (o.logDir === undefined))
    throw new TypeError("mirror needs exactly one of `dir` (an open LogDir) and `logDir` (a path)");
  if (typeof o.source !== "string" || o.source.length === 0)
    throw new TypeError("mirror `source` must be a partition or topic name");
  if (typeof o.topic !== "string" || o.topic.length === 0)
    throw new TypeError("mirror `topic` must be a Kafka topic name");
  if (!Array.isArray(o.brokers) || o.brokers.length === 0 || !o.brokers.every((b) => /^[^:\s]+:\d{1,5}$/.test(b)))
    throw new TypeError(`mirror \`brokers\` must be host:port strings, got ${JSON.stringify(o.brokers)}`);
  if (o.consumers !== undefined && !o.consumers.every((c) => typeof c === "string" && c.length > 0))
    throw new TypeError("mirror `consumers` must be consumer names");
  const max = o.maxTransactionBytes;
  if (max !== undefined && !(Number.isSafeInteger(max) && max > 0))
    throw new TypeError(`mirror \`maxTransactionBytes\` must be a positive integer, got ${max}`);
}

/** The source logs and the target partition of each: `orders-3` → 3; a topic's partitions → themselves. */
async function sourceLogs(dir: LogDir, source: string): Promise<Array<{ log: Log; partition: number }>> {
  const names = await dir.logs();
  if (names.includes(source)) {
    const partition = Number(/-(\d+)$/.exec(source)![1]);
    return [{ log: await dir.log(source), partition }];
  }
  // A topic is there when its partitions are: dir.topic() on a writable directory would create one.
  if (!names.some((name) => name.startsWith(`${source}-`) && /^\d+$/.test(name.slice(source.length + 1))))
    throw new PagelogError(
      `the log directory has no partition or topic ${source} (${names.length === 0 ? "it holds none" : `it holds ${names.join(", ")}`})`,
      ErrorCode.NOT_FOUND,
    );
  const topic = await dir.topic(source);
  const out: Array<{ log: Log; partition: number }> = [];
  for (let p = 0; p < topic.partitions; p++) out.push({ log: topic.partition(p), partition: p });
  return out;
}

/** Connects the admin client and checks the target topic: what fails here is `PAGELOG_KAFKA`, at once. */
async function checkTarget(
  admin: KafkaJs.Admin,
  brokers: readonly string[],
  topic: string,
  needed: number,
): Promise<void> {
  try {
    await admin.connect();
    await admin.describeCluster();
  } catch (err) {
    throw new PagelogError(
      `no Kafka broker answered at ${brokers.join(",")}: ${describeKafkaError(err)}`,
      ErrorCode.KAFKA,
      {
        cause: err,
      },
    );
  }
  if (!(await admin.listTopics()).includes(topic))
    throw new PagelogError(
      `the Kafka cluster has no topic ${topic}: create it (with at least ${needed} partitions) first`,
      ErrorCode.KAFKA,
    );
  const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  const count = meta?.partitions.length ?? 0;
  if (count < needed)
    throw new PagelogError(
      `the Kafka topic ${topic} has ${count} partition${count === 1 ? "" : "s"}; the mirror writes partition for partition and needs ${needed}`,
      ErrorCode.KAFKA,
    );
}

/**
 * Starts mirroring `options.source` of a pagelog directory into the Kafka topic `options.topic`,
 * source partition n into target partition n, every record with its key, value, headers and
 * timestamp, in order and exactly once across crashes of the mirror, the writer and the broker
 * (the target's consumers read with `isolation.level=read_committed`). Resolves once the
 * target is checked and each partition's resume point is read: an unreachable broker, a missing
 * or too small topic is `PAGELOG_KAFKA`, a target checkpoint the source cannot continue is
 * `PAGELOG_MIRROR_DIVERGED`, a missing `kafkajs` is `PAGELOG_MISSING_DEPENDENCY`. It then runs
 * until `stop()` or the signal. See docs/outgrowing-one-machine.md.
 */
export async function mirror(options: MirrorOptions): Promise<Mirror> {
  checkOptions(options);
  const client = await loadKafkaClient();
  let storage: FsStorage | undefined;
  let dir = options.dir as LogDir | undefined;
  if (
    dir !== undefined &&
    !["log", "topic", "consumer", "close"].every(
      (m) => typeof (dir as unknown as Record<string, unknown>)[m] === "function",
    )
  )
    throw new TypeError("mirror `dir` must be an open LogDir");
  if (dir === undefined) {
    storage = await FsStorage.open(options.logDir!, { create: false });
    dir = await LogDir.open(storage, { readOnly: true }).catch(async (err: unknown) => {
      await storage!.close();
      throw err;
    });
  }
  const owned = options.dir === undefined ? dir : undefined;
  const release = async () => {
    await owned?.close().catch(() => undefined);
    await storage?.close().catch(() => undefined);
  };
  try {
    return await startMirror(options, client, dir, release);
  } catch (err) {
    await release();
    throw err;
  }
}

type KafkaClient = Awaited<ReturnType<typeof loadKafkaClient>>;

/** The client for the brokers: quick to give up at the start (the sessions retry on their own). */
function kafkaFor(options: MirrorOptions, client: KafkaClient): KafkaJs.Kafka {
  return new client.Kafka({
    clientId: options.clientId ?? "pagelog-mirror",
    brokers: [...options.brokers],
    ...(options.ssl === undefined ? {} : { ssl: options.ssl as boolean }),
    ...(options.sasl === undefined ? {} : { sasl: options.sasl as KafkaJs.SASLOptions }),
    logLevel: client.logLevel.NOTHING,
    connectionTimeout: 3_000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/** The progress of every partition, summed. */
function progressOf(parts: readonly PartitionMirror[], counters: MirrorContext["counters"]): MirrorProgress {
  const partitions = parts.map((p) => p.progress());
  const records = partitions.reduce((n, p) => n + p.records, 0);
  const bytes = partitions.reduce((n, p) => n + p.bytes, 0);
  const lagRecords = partitions.reduce((n, p) => n + (p.available - p.next), 0);
  return {
    records,
    bytes,
    lagRecords,
    lagBytes: records === 0 ? 0 : Math.round((bytes / records) * lagRecords),
    transactions: counters.transactions,
    restarts: counters.restarts,
    partitions,
  };
}

/** Runs every partition; one partition's fatal error stops the others: the mirror ends whole, with that error. */
function runAll(
  parts: readonly PartitionMirror[],
  stopper: AbortController,
  cleanup: () => Promise<void>,
  progress: () => MirrorProgress,
): Promise<MirrorProgress> {
  const done = Promise.all(
    parts.map((p) =>
      p.run().catch((err: unknown) => {
        stopper.abort();
        throw err;
      }),
    ),
  ).then(
    async () => {
      await cleanup();
      return progress();
    },
    async (err: unknown) => {
      await cleanup();
      throw err;
    },
  );
  done.catch(() => undefined); // rejections are the caller's, through done or stop()
  return done;
}

async function startMirror(
  options: MirrorOptions,
  client: KafkaClient,
  dir: LogDir,
  release: () => Promise<void>,
): Promise<Mirror> {
  const logs = await sourceLogs(dir, options.source);
  const kafka = kafkaFor(options, client);
  const admin = kafka.admin();
  const stopper = new AbortController();
  const onAbort = () => stopper.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const ctx: MirrorContext = {
    kafka,
    admin,
    topic: options.topic,
    durable: options.durable ?? true,
    maxBytes: options.maxTransactionBytes ?? DEFAULT_MAX_BYTES,
    consumers: (options.consumers ?? []).map((name) => dir.consumer(name)),
    signal: stopper.signal,
    warn: options.onWarning ?? (() => undefined),
    counters: { transactions: 0, restarts: 0 },
  };
  const parts = logs.map(({ log, partition }) => new PartitionMirror(ctx, log, partition));
  const cleanup = async () => {
    options.signal?.removeEventListener("abort", onAbort);
    await admin.disconnect().catch(() => undefined);
    await release();
  };
  try {
    await checkTarget(admin, options.brokers, options.topic, Math.max(...logs.map((l) => l.partition)) + 1);
    for (const part of parts) await part.start();
  } catch (err) {
    stopper.abort();
    await Promise.all(parts.map((p) => p.run().catch(() => undefined)));
    await cleanup();
    // A client error at the start (a coordinator not ready after a broker restart, …) is a start
    // that did not work, as an unreachable broker is: one PagelogError, never a stray client error.
    if (err instanceof PagelogError) throw err;
    throw new PagelogError(`the mirror could not start: ${describeKafkaError(err)}`, ErrorCode.KAFKA, { cause: err });
  }
  const progress = () => progressOf(parts, ctx.counters);
  const done = runAll(parts, stopper, cleanup, progress);
  return {
    done,
    progress,
    stop: () => {
      stopper.abort();
      return done;
    },
  };
}
