// The kafka tier's global set-up (vitest.config.ts, project "kafka"): runs once per run in vitest's
// main process, so one broker serves every file of the tier. It fetches the pinned Kafka
// (scripts/kafka.mjs), compiles the probe, formats and starts a KRaft single node in a temporary
// folder, hands the files what they need through `inject("kafka")`, and stops the broker at the
// end. Without Java or Maven the tier skips with one line, except under CI=true, where that is a
// failure: CI must run it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { compileProbe, findToolchain, KAFKA_VERSION, kafkaClasspath, startBroker } from "../../../scripts/kafka.mjs";
import type { Toolchain } from "../../../scripts/kafka.mjs";
import type { KafkaTier } from "../support/tier.js";

/**
 * Without Java or Maven: the line that says the tier is skipped, or, under CI=true, an error (CI
 * must run the tier). `undefined` when the tools are there.
 */
export function missingToolsVerdict(tools: Toolchain, env: Record<string, string | undefined>): string | undefined {
  if (tools.ok) return undefined;
  if (env.CI === "true") throw new Error(`kafka tier: ${tools.reason}; under CI=true this is a failure`);
  return `kafka tier: skipped: ${tools.reason}`;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const tools = findToolchain();
  const skip = missingToolsVerdict(tools, process.env);
  if (!tools.ok) {
    console.log(skip);
    project.provide("kafka", { available: false, reason: tools.reason } satisfies KafkaTier);
    return undefined;
  }
  const classpath = kafkaClasspath({ log: (line) => console.log(line) });
  const probeDir = compileProbe(classpath);
  const dir = mkdtempSync(join(tmpdir(), "pagelog-kafka-"));
  try {
    const broker = await startBroker({ classpath, dir });
    console.log(
      `kafka tier: Kafka ${KAFKA_VERSION} broker at ${broker.bootstrap}, answered ${(broker.startMs / 1000).toFixed(1)} s ` +
        `after start (format ${(broker.formatMs / 1000).toFixed(1)} s)`,
    );
    project.provide("kafka", {
      available: true,
      version: KAFKA_VERSION,
      bootstrap: broker.bootstrap,
      brokerPid: broker.pid,
      classpath,
      probeDir,
    } satisfies KafkaTier);
    return async () => {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
