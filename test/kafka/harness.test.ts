// The kafka tier's broker harness (issue 34, item 1): the shared broker answers a real client, and
// no JVM outlives what started it: not when the run is interrupted (SIGTERM, SIGINT) while a
// broker starts, not when the process exits without stopping it, not when a start fails.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { groupAlive, REPO, startBroker } from "../../scripts/kafka.mjs";
import { missingToolsVerdict } from "./setup/global-setup.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();
const scratch = mkdtempSync(join(tmpdir(), "pagelog-kafka-harness-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A child `node` that starts a broker with the harness and prints its JVM's process group as soon
 * as it exists; then `then` decides its end: "wait" (the parent signals it), or "exit" (it exits
 * at once, without stopping the broker).
 */
function childStartingBroker(classpath: string, dir: string, then: "wait" | "exit") {
  const script = `
    const k = await import(${JSON.stringify(join(REPO, "scripts/kafka.mjs"))});
    await k.startBroker({ classpath: process.env.CP, dir: ${JSON.stringify(dir)}, onSpawn: (pid) => {
      console.log("pid " + pid);
      if (${JSON.stringify(then)} === "exit") process.exit(0);
    }});
    console.log("answered");`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, CP: classpath },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pid = new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /pid (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`child ended (${code ?? signal}) before the JVM started:\n${out}`)),
    );
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal!)),
  );
  return { child, pid, exited };
}

/** Whether the group is gone within 10 s (a SIGKILLed JVM unmaps its heap before it is reaped). */
async function goneSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(pid))
    console.error(execFileSync("ps", ["-o", "pid,ppid,stat,etime,comm", "-g", String(pid)], { encoding: "utf8" }));
  return !groupAlive(pid);
}

describe("the kafka tier without Java or Maven", () => {
  it("skips with a line naming what is missing, except under CI=true, where it fails", () => {
    const missing = {
      ok: false as const,
      reason: "no `java` on PATH (the kafka tier needs a JDK 17 or later and Maven 3)",
    };
    expect(missingToolsVerdict(missing, {})).toBe(`kafka tier: skipped: ${missing.reason}`);
    expect(missingToolsVerdict(missing, { CI: "false" })).toMatch(/^kafka tier: skipped: no `java`/);
    expect(() => missingToolsVerdict(missing, { CI: "true" })).toThrow(
      /no `java` on PATH.*under CI=true this is a failure/,
    );
    expect(missingToolsVerdict({ ok: true }, { CI: "true" })).toBeUndefined();
  });
});

describe.skipIf(tier === undefined)("the kafka tier's broker", () => {
  it("answers a client: creates a topic, takes a record and gives it back", async () => {
    const kafka = new Kafka({ brokers: [tier!.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const topic = `harness-${process.pid}-${Date.now()}`;
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
      const producer = kafka.producer();
      await producer.connect();
      const [sent] = await producer.send({ topic, messages: [{ key: "k", value: "v", headers: { h: "x" } }] });
      await producer.disconnect();
      expect(sent?.baseOffset).toBe("0");
      const offsets = await admin.fetchTopicOffsets(topic);
      expect(offsets).toEqual([expect.objectContaining({ partition: 0, high: "1", low: "0" })]);
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
      await admin.disconnect();
    }
    expect(groupAlive(tier!.brokerPid)).toBe(true);
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "a run interrupted by %s while its broker starts leaves no java process behind",
    async (signal) => {
      const { child, pid, exited } = childStartingBroker(tier!.classpath, mkdtempSync(join(scratch, "sig-")), "wait");
      const group = await pid;
      expect(groupAlive(group)).toBe(true);
      child.kill(signal);
      // The harness kills the JVM's group, then lets the signal end the process as it would have.
      expect(await exited).toBe(signal);
      expect(await goneSoon(group), `JVM group ${group} still alive after ${signal}`).toBe(true);
    },
  );

  it("a process that exits without stopping its broker takes the JVM with it", async () => {
    const { pid, exited } = childStartingBroker(tier!.classpath, mkdtempSync(join(scratch, "exit-")), "exit");
    const group = await pid;
    expect(await exited).toBe(0);
    expect(await goneSoon(group), `JVM group ${group} still alive after exit`).toBe(true);
  });

  it("a broker that does not answer in time is killed, and the error carries its log", async () => {
    let group = 0;
    const start = startBroker({
      classpath: tier!.classpath,
      dir: mkdtempSync(join(scratch, "late-")),
      readyMs: 1,
      onSpawn: (pid) => (group = pid),
    });
    await expect(start).rejects.toThrow(/kafka broker did not start: the broker did not answer in time/);
    expect(group).toBeGreaterThan(0);
    expect(await goneSoon(group)).toBe(true);
  });
});
