/**
 * pagelog/kafka: the way into a Kafka cluster. `mirror()` forwards a live pagelog partition (or
 * topic) to a Kafka topic exactly once and carries consumer positions along
 * (docs/outgrowing-one-machine.md). Node only; needs the optional peer dependency `kafkajs`.
 */
export { mirror } from "./kafka/mirror.js";
export type {
  Mirror,
  MirrorOptions,
  MirrorPartitionProgress,
  MirrorProgress,
  MirrorSaslOptions,
  MirrorSourceDir,
  MirrorTlsOptions,
} from "./kafka/types.js";
