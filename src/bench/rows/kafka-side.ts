/**
 * How the kafka rows reach Kafka: bench/kafka-side.mjs of a pagelog checkout (the broker from the
 * kafka test tier's Maven jars, scripts/kafka.mjs), loaded at run time from the package root.
 * The published package ships neither file, and a machine without a JDK, Maven or the jars
 * cannot run a broker: then the rows are skipped, with the reason in one line.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** What `startBenchBroker` resolves with (scripts/kafka.mjs's broker). */
interface BenchBroker {
  readonly bootstrap: string;
  readonly logDir: string;
  readonly logFile: string;
  stop(options?: { graceful?: boolean }): Promise<void>;
}

/** The broker's account of loading one partition (LogManager's and LogLoader's INFO lines). */
interface KafkaLoad {
  readonly segments: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** "Completed load of … in Tms": the partition's load, recovery included. */
  readonly ms: number;
  /** "Recovering unflushed segment …" lines: the segments its recovery walked. */
  readonly segmentsRecovered: number;
  /** LogManager said it recovers: no clean-shutdown file was found. */
  readonly unclean: boolean;
}

/** ProducerPerformance's summary line. */
interface ProducerSummary {
  readonly records: number;
  readonly recordsPerSecond: number;
  /** MB (2^20 bytes) of record values per second. */
  readonly mbPerSecond: number;
  readonly avgLatencyMs: number;
}

/** The functions of bench/kafka-side.mjs the rows use. */
interface KafkaSide {
  readonly KAFKA_VERSION: string;
  kafkaReady(): { ok: true; classpath: string } | { ok: false; reason: string };
  startBenchBroker(options: { classpath: string; dir: string; restart?: boolean }): Promise<BenchBroker>;
  createTopic(bootstrap: string, topic: string): Promise<void>;
  adoptPartition(brokerLogDir: string, pagelogPartitionDir: string, partition: string): void;
  makeUnclean(brokerLogDir: string, partition: string): void;
  parseLoad(logText: string, partition: string): KafkaLoad | undefined;
  producerPerformance(options: {
    classpath: string;
    bootstrap: string;
    topic: string;
    records: number;
    recordSize: number;
  }): Promise<ProducerSummary>;
  settle(drop?: boolean): boolean;
}

export type KafkaReach =
  | { readonly ok: true; readonly side: KafkaSide; readonly classpath: string; readonly root: string }
  | { readonly ok: false; readonly reason: string };

/** The package this file is part of: the first folder up from it that holds a package.json. */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The package root's bench/kafka-side.mjs if it is a checkout (the harness and the pom beside it). */
export function kafkaSidePath(root: string | undefined): string | undefined {
  if (root === undefined) return undefined;
  const needed = ["bench/kafka-side.mjs", "scripts/kafka.mjs", "test/kafka/pom.xml"];
  return needed.every((p) => existsSync(join(root, p))) ? join(root, "bench/kafka-side.mjs") : undefined;
}

/**
 * Loads the Kafka side and checks Java, Maven and the jars (Maven fetches them once into
 * .cache/kafka/ when they are missing); or says in one line why the rows cannot run here.
 */
export async function reachKafka(root = packageRoot()): Promise<KafkaReach> {
  const path = kafkaSidePath(root);
  if (path === undefined || root === undefined)
    return {
      ok: false,
      reason:
        "needs a checkout of the pagelog repository (bench/kafka-side.mjs, scripts/kafka.mjs, test/kafka/pom.xml): run `npm run bench -- --rows kafka` there",
    };
  const side = (await import(pathToFileURL(path).href)) as KafkaSide;
  const ready = side.kafkaReady();
  if (!ready.ok) return { ok: false, reason: ready.reason };
  return { ok: true, side, classpath: ready.classpath, root };
}
