// A broker of a test file's own (the shared one keeps serving the other files), with a kafkajs
// client and its topics created: what adopt-partition and broker-dir both start from.
import { Kafka, logLevel, type ITopicConfig } from "kafkajs";
import { startBroker, type Broker } from "../../../scripts/kafka.mjs";
import { kafkaTier } from "./tier.js";

/** Starts (or, with `restart`, starts again) a broker in `dir`; creates `topics` if given. */
export async function ownBroker({
  dir,
  extra,
  restart = false,
  topics = [],
}: {
  dir: string;
  extra?: Record<string, string>;
  restart?: boolean;
  topics?: ITopicConfig[];
}): Promise<{ broker: Broker; kafka: Kafka }> {
  const tier = kafkaTier();
  if (tier === undefined) throw new Error("the kafka tier is not available");
  const broker = await startBroker({
    classpath: tier.classpath,
    dir,
    restart,
    ...(extra === undefined ? {} : { extra }),
  });
  try {
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    if (topics.length > 0) {
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.createTopics({ waitForLeaders: true, topics });
      } finally {
        await admin.disconnect();
      }
    }
    return { broker, kafka };
  } catch (error) {
    await broker.stop();
    throw error;
  }
}
