// Issue 35, the proof: a writer process appends continuously; `pagelog mirror` (the built CLI, a
// second process) forwards to a broker of this file's own; the mirror is SIGKILLed at seeded random
// moments and started again, the writer is SIGKILLed once and started again, and the broker is
// killed and restarted once mid-run. Then the target holds every record exactly once, in the
// source's order, read read_committed.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Broker, REPO, startBroker } from "../../scripts/kafka.mjs";
import { testReplayCommand, testSeed } from "../support/seed.js";
import { createTopic, freshTopic, groupOffsets, readTopic, until } from "./support/target.js";
import { kafkaTier } from "./support/tier.js";
import { rng } from "../support/xorshift.js";

const tier = kafkaTier();
const scratch = mkdtempSync(join(tmpdir(), "pagelog-mirror-kill-"));
const CLI = join(REPO, "dist/cli.js");
const RECORDS = 4_000;

/** The writer: appends batches of 1–8 records whose values name their offsets, flushing each, until RECORDS. */
const WRITER = `
  const { LogDir } = await import(${JSON.stringify(join(REPO, "dist/node.js"))});
  const dir = await LogDir.open(process.argv[1]);
  const log = await dir.log("events-0");
  const enc = new TextEncoder();
  let n = 0;
  while (log.endOffset < ${RECORDS}) {
    const size = Math.min(1 + (n++ % 8), ${RECORDS} - log.endOffset);
    const first = log.endOffset;
    await log.append(Array.from({ length: size }, (_, i) => ({ key: enc.encode("k" + ((first + i) % 7)), value: enc.encode("r" + (first + i)) })));
    await log.flush();
    await new Promise((r) => setTimeout(r, 20));
  }
  await dir.close();
`;

const exited = (child: ChildProcess) =>
  new Promise<number | string>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
    else child.once("exit", (code, signal) => resolve(code ?? signal!));
  });

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(tier === undefined)("pagelog mirror under SIGKILL, a writer crash and a broker restart", () => {
  it("the target holds every record exactly once, in order", { timeout: 180_000 }, async () => {
    const seed = testSeed();
    console.log(`mirror kill test: seed ${seed}; replay: ${testReplayCommand()}`);
    const rand = rng(seed);
    const started = performance.now();
    const brokerDir = mkdtempSync(join(scratch, "broker-"));
    let broker: Broker = await startBroker({ classpath: tier!.classpath, dir: brokerDir });
    const bootstrap = broker.bootstrap;
    const source = mkdtempSync(join(scratch, "source-"));
    const topic = freshTopic("kill");
    await createTopic(bootstrap, topic);
    const children = new Set<ChildProcess>();
    const launch = (args: string[]) => {
      const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      children.add(child);
      void exited(child).then(() => children.delete(child));
      return { child, stderr: () => err };
    };
    const writerArgs = ["--input-type=module", "-e", WRITER, source];
    const mirrorArgs = [CLI, "mirror", source, "events-0", "--brokers", bootstrap, "--topic", topic];
    try {
      let writer = launch(writerArgs);
      await new Promise((r) => setTimeout(r, 300)); // the writer creates the partition first
      let kills = 0;
      const exits: string[] = [];
      let writerKilled = false;
      let brokerRestarted = false;
      while (kills < 10) {
        const mirror = launch(mirrorArgs);
        if (kills === 5 && !brokerRestarted) {
          // The broker crashes under a running mirror and comes back on its ports; the mirror
          // rides it out (new sessions from the target's checkpoint) until its kill below.
          brokerRestarted = true;
          await new Promise((r) => setTimeout(r, 500));
          await broker.stop(); // SIGKILL: a crash
          await new Promise((r) => setTimeout(r, 500));
          broker = await startBroker({ classpath: tier!.classpath, dir: brokerDir, restart: true });
        }
        // Killed a seeded 0–800 ms after it started mirroring (its start line), so that the kills
        // land in the steady state (transactions in flight), not in the client's start-up.
        const life = rand(800);
        const running = until("the mirror started", () => mirror.stderr().includes("from offset"), 30_000).then(
          () => new Promise((r) => setTimeout(() => r("alive"), life)),
          () => "never started",
        );
        const end = await Promise.race([exited(mirror.child), running]);
        if (end === "alive") {
          mirror.child.kill("SIGKILL");
          await exited(mirror.child);
          kills++;
        } else exits.push(`${end}: ${mirror.stderr().trim()}`); // it stopped by itself
        if (kills === 3 && !writerKilled) {
          writerKilled = true;
          writer.child.kill("SIGKILL");
          await exited(writer.child);
          writer = launch(writerArgs);
        }
      }
      // The last mirror runs to the end, then stops cleanly on SIGTERM.
      const last = launch(mirrorArgs);
      expect(await exited(writer.child)).toBe(0);
      await until("the last mirror started", () => last.stderr().includes("from offset"), 60_000);
      await until(
        "the mirror's checkpoint reached the writer's end",
        async () => (await groupOffsets(bootstrap, `pagelog-mirror.${topic}`, topic)).get(0) === RECORDS,
        60_000,
      );
      last.child.kill("SIGTERM");
      expect(await exited(last.child), last.stderr()).toBe(0);
      const records = await readTopic(bootstrap, topic, RECORDS, 60_000);
      const values = records.map((r) => r.value);
      const duplicates = values.length - new Set(values).size;
      console.log(
        `mirror kill test: ${values.length} records mirrored, ${kills} mirror kills, 1 writer kill, 1 broker restart, ` +
          `${duplicates} duplicates, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      expect(duplicates).toBe(0);
      expect(values).toEqual(Array.from({ length: RECORDS }, (_, i) => `r${i}`));
      expect(records.map((r) => r.key)).toEqual(Array.from({ length: RECORDS }, (_, i) => `k${i % 7}`));
      // A mirror that ended by itself could only have been one whose start met the broker away or
      // not ready (exit 2, one line): never a crash, never a fence by a mirror already killed.
      for (const exit of exits) expect(exit).toMatch(/^2: pagelog mirror: [^\n]+$/);
    } finally {
      for (const child of children) child.kill("SIGKILL");
      await broker.stop();
    }
  });
});
