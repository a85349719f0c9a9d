// What the kafka tier's global set-up (test/kafka/setup/global-setup.ts) hands its files.
import { inject } from "vitest";

export type KafkaTier =
  | { available: false; reason: string }
  | {
      available: true;
      /** The Kafka version test/kafka/pom.xml pins. */
      version: string;
      /** host:port of the shared broker. */
      bootstrap: string;
      /** Its JVM's process group. */
      brokerPid: number;
      /** The pinned Kafka's jars. */
      classpath: string;
      /** PagelogProbe's compiled classes (test/kafka/java). */
      probeDir: string;
    };

declare module "vitest" {
  export interface ProvidedContext {
    kafka: KafkaTier;
  }
}

/** The tier as the set-up left it; `undefined` when Java or Maven is missing (the set-up said why). */
export function kafkaTier(): Extract<KafkaTier, { available: true }> | undefined {
  const tier = inject("kafka");
  return tier.available ? tier : undefined;
}
