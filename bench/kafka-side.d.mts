/** Types for bench/kafka-side.mjs (the Kafka side of the bench's kafka rows; src/bench/rows/kafka-side.ts loads it). */
import type { Broker } from "../scripts/kafka.mjs";

export declare const KAFKA_VERSION: string;
export declare const KAFKA_SERVER_JVM_FLAGS: readonly string[];
export declare const PRODUCER_PERF_JVM_FLAGS: readonly string[];
export declare function kafkaReady(): { ok: true; classpath: string } | { ok: false; reason: string };
export declare function startBenchBroker(options: {
  classpath: string;
  dir: string;
  restart?: boolean;
}): Promise<Broker>;
export declare function createTopic(bootstrap: string, topic: string): Promise<void>;
export declare function adoptPartition(brokerLogDir: string, pagelogPartitionDir: string, partition: string): void;
export declare function makeUnclean(brokerLogDir: string, partition: string): void;
export interface KafkaLoad {
  segments: number;
  logStartOffset: number;
  logEndOffset: number;
  ms: number;
  segmentsRecovered: number;
  unclean: boolean;
}
export declare function parseLoad(logText: string, partition: string): KafkaLoad | undefined;
export interface ProducerSummary {
  records: number;
  recordsPerSecond: number;
  mbPerSecond: number;
  avgLatencyMs: number;
}
export declare function parseProducerPerformance(output: string): ProducerSummary | undefined;
export declare function producerPerformance(options: {
  classpath: string;
  bootstrap: string;
  topic: string;
  records: number;
  recordSize: number;
}): Promise<ProducerSummary>;
export declare function settle(drop?: boolean): boolean;
