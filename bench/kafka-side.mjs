// The Kafka side of `pagelog bench`'s kafka rows (src/bench/rows/rows-kafka.ts; docs/performance.md,
// "Against Kafka"): a local broker started from the kafka test tier's Maven jars (scripts/kafka.mjs)
// with Kafka's own production JVM flags, a pagelog partition moved into it, its load time read
// from its log, and Kafka's own producer benchmark run against it. Repository-only, like the
// harness it uses: the published package has neither, and its rows say so in one line.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { findToolchain, KAFKA_VERSION, kafkaClasspath, REPO, runJava, startBroker } from "../scripts/kafka.mjs";

export { KAFKA_VERSION };

/**
 * bin/kafka-server-start.sh's heap and bin/kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS: the
 * broker as Kafka ships it (C2 and G1), not the test tier's quick-start flags (C1 only, serial GC),
 * which would make Kafka's recovery loop slower than it is.
 */
export const KAFKA_SERVER_JVM_FLAGS = [
  "-Xmx1G",
  "-Xms1G",
  "-server",
  "-XX:+UseG1GC",
  "-XX:MaxGCPauseMillis=20",
  "-XX:InitiatingHeapOccupancyPercent=35",
  "-XX:+ExplicitGCInvokesConcurrent",
  "-XX:MaxInlineLevel=15",
  "-Djava.awt.headless=true",
];
/** bin/kafka-producer-perf-test.sh's heap, with the same performance options. */
export const PRODUCER_PERF_JVM_FLAGS = ["-Xmx512M", ...KAFKA_SERVER_JVM_FLAGS.slice(2)];

/** The broker's log: the tier's warnings, plus LogManager's and LogLoader's INFO lines (the load times). */
const LOG4J = join(REPO, "bench/kafka-log4j2.properties");

/**
 * Whether the Kafka rows can run here: `{ ok: true, classpath }`, or `{ ok: false, reason }` in one
 * line (no JDK, no Maven, or Maven could not fetch the jars).
 */
export function kafkaReady() {
  const toolchain = findToolchain();
  if (!toolchain.ok) return toolchain;
  try {
    return { ok: true, classpath: kafkaClasspath() };
  } catch (error) {
    return { ok: false, reason: `Kafka ${KAFKA_VERSION}'s jars are not here: ${error.message.split("\n")[0]}` };
  }
}

/** Starts the broker in `dir` (formatting it unless `restart`), as Kafka ships it, its load times logged. */
export function startBenchBroker({ classpath, dir, restart = false }) {
  return startBroker({
    classpath,
    dir,
    restart,
    // Its recovery of a large partition comes before it answers: on a slow disk, minutes.
    readyMs: 600_000,
    log4j: LOG4J,
    jvmFlags: KAFKA_SERVER_JVM_FLAGS,
    // Nothing but the measured work: no cleaner thread, and no retention deleting old-timestamped records.
    extra: { "log.cleaner.enable": "false", "log.retention.ms": "-1" },
  });
}

/** Creates a topic of one partition on the broker, and waits for its leader. */
export async function createTopic(bootstrap, topic) {
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Moves a closed pagelog partition into the (stopped) broker's partition of the same name, as
 * docs/moving-into-kafka.md does: the broker's segment files and producer snapshots go, pagelog's
 * `.log`, `.index` and `.timeindex` are copied in; `partition.metadata` and the leader-epoch
 * checkpoint stay.
 */
export function adoptPartition(brokerLogDir, pagelogPartitionDir, partition) {
  const to = join(brokerLogDir, partition);
  for (const name of readdirSync(to)) if (/\.(log|index|timeindex|snapshot)$/.test(name)) rmSync(join(to, name));
  for (const name of readdirSync(pagelogPartitionDir))
    if (/\.(log|index|timeindex)$/.test(name)) copyFileSync(join(pagelogPartitionDir, name), join(to, name));
}

/**
 * Makes the broker's next start an unclean one that walks the whole partition: the clean-shutdown
 * marker removed and the partition's recovery point set to 0 in recovery-point-offset-checkpoint
 * (Kafka recovers from the recovery point on, and a clean shutdown skips recovery altogether).
 */
export function makeUnclean(brokerLogDir, partition) {
  rmSync(join(brokerLogDir, ".kafka_cleanshutdown"), { force: true });
  const checkpoint = join(brokerLogDir, "recovery-point-offset-checkpoint");
  const [topic, index] = splitPartition(partition);
  const text = readFileSync(checkpoint, "utf8");
  const [version, , ...entries] = text.trim().split("\n");
  const kept = entries.filter((line) => !line.startsWith(`${topic} ${index} `));
  kept.push(`${topic} ${index} 0`);
  writeFileSync(checkpoint, [version, String(kept.length), ...kept].join("\n") + "\n");
}

function splitPartition(partition) {
  const at = partition.lastIndexOf("-");
  return [partition.slice(0, at), partition.slice(at + 1)];
}

/**
 * The broker's own account of loading `partition` in its log (the last start in it): LogManager's
 * "Completed load of Log(dir=…/<partition>, …) with N segments, local-log-start-offset S and
 * log-end-offset E in Tms (…)" line (Kafka 4.1's wording), and how many segments LogLoader's
 * "Recovering unflushed segment B. …" lines say it walked since the last "Loading logs from".
 * Undefined when the log has no such line.
 */
export function parseLoad(logText, partition) {
  const start = logText.lastIndexOf("Loading logs from log dirs");
  const text = start < 0 ? logText : logText.slice(start);
  const escaped = partition.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const completed = new RegExp(
    `Completed load of \\S*Log\\(dir=[^,]*[/\\\\]${escaped}, .*?\\) with (\\d+) segments, local-log-start-offset (-?\\d+) and log-end-offset (\\d+) in (\\d+)ms`,
  );
  const match = completed.exec(text);
  if (match === null) return undefined;
  const walked = new RegExp(`\\[LogLoader partition=${escaped}, [^\\]]*\\] Recovering unflushed segment \\d+\\.`, "g");
  return {
    segments: Number(match[1]),
    logStartOffset: Number(match[2]),
    logEndOffset: Number(match[3]),
    ms: Number(match[4]),
    segmentsRecovered: (text.match(walked) ?? []).length,
    unclean: /Recovering \d+ logs from .* since no clean shutdown file was found/.test(text),
  };
}

/**
 * ProducerPerformance's summary line: "N records sent, R records/sec (M MB/sec), A ms avg
 * latency, …" (MB = 2^20 bytes of record values), the last of its lines of that form: the ones
 * before it report a 5-second window each. Undefined when there is none.
 */
export function parseProducerPerformance(output) {
  const lines = [
    ...output.matchAll(/(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency/g),
  ];
  const match = lines.at(-1);
  if (match === undefined) return undefined;
  return {
    records: Number(match[1]),
    recordsPerSecond: Number(match[2]),
    mbPerSecond: Number(match[3]),
    avgLatencyMs: Number(match[4]),
  };
}

/**
 * Kafka's own producer benchmark (org.apache.kafka.tools.ProducerPerformance, from kafka-tools) into
 * `topic`: `records` records of `recordSize` bytes, acks=1, unthrottled, in a JVM of its own.
 */
export async function producerPerformance({ classpath, bootstrap, topic, records, recordSize }) {
  const { code, output } = await runJava({
    classpath,
    flags: PRODUCER_PERF_JVM_FLAGS,
    main: "org.apache.kafka.tools.ProducerPerformance",
    args: [
      "--topic",
      topic,
      "--num-records",
      String(records),
      "--record-size",
      String(recordSize),
      "--throughput",
      "-1",
      "--producer-props",
      `bootstrap.servers=${bootstrap}`,
      "acks=1",
    ],
    timeoutMs: 600_000,
  });
  const summary = parseProducerPerformance(output);
  if (code !== 0 || summary === undefined)
    throw new Error(
      `ProducerPerformance exited ${code} without its summary: ${output.trim().split("\n").slice(-3).join(" | ")}`,
    );
  if (summary.records !== records) throw new Error(`ProducerPerformance sent ${summary.records} of ${records} records`);
  return summary;
}

/**
 * Writes dirty pages back (`sync`), so that what runs next does not pay for what ran before; with
 * `drop`, then empties the page cache if this process may (root on Linux). True when the cache was
 * dropped, false when what follows runs on a warm cache.
 */
export function settle(drop = true) {
  execFileSync("sync");
  if (!drop) return false;
  try {
    writeFileSync("/proc/sys/vm/drop_caches", "3");
    return true;
  } catch {
    return false;
  }
}
